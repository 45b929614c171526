package console

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/pagerules"
)

// Items of data answers are checked against the schema the run answered,
// with the rules of internal/pagerules, and the findings are placed at the
// item and field; page-level rules (a repeated cursor, an id sent twice
// across pages) are found across the exchanges of one type.
func TestCheckExchanges(t *testing.T) {
	t.Parallel()
	schema := `{"task":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},"points":{"id":"points","name":"Points","type":"number"}}}`
	data := func(body string) apps.Exchange {
		return apps.Exchange{Method: "POST", Path: "/api/v1/synchronizer/data", Status: 200,
			Request: `{"requestedType":"task","account":{"token":"***"}}`, Response: body}
	}
	list := []apps.Exchange{
		{Method: "POST", Path: "/api/v1/synchronizer/schema", Status: 200, Request: `{"types":["task"]}`, Response: schema},
		data(`{"items":[{"id":"1","name":"a","points":3},{"id":"2","name":"b","points":"many"},{"name":"c"},{"id":"4","colour":"red"}],"pagination":{"hasNext":true,"nextPageConfig":{"p":2}}}`),
		data(`{"items":[{"id":"1","name":"again"}],"pagination":{"hasNext":true,"nextPageConfig":{"p":2}}}`),
		{Method: "POST", Path: "/api/v1/synchronizer/data", Status: 200, Request: `{"account":{"token":"**`, Response: `{}`},
	}
	out := checkExchanges(list)
	if len(out) != 4 {
		t.Fatalf("%d exchanges", len(out))
	}
	if !strings.Contains(out[0].Response, "\n  \"task\": {") {
		t.Errorf("the schema answer is not pretty-printed:\n%s", out[0].Response)
	}
	p1 := out[1]
	if p1.Type != "task" || p1.Page != 1 || len(p1.Items) != 4 {
		t.Fatalf("page 1: %+v", p1)
	}
	want := map[int]pagerules.Rule{1: pagerules.ValueShape, 2: pagerules.IDMissing, 3: pagerules.UnknownKey}
	if len(p1.Items[0].Problems) != 0 {
		t.Errorf("a good item has findings: %+v", p1.Items[0].Problems)
	}
	for i, rule := range want {
		got := p1.Items[i].Problems
		if len(got) == 0 || got[0].Rule != rule {
			t.Errorf("item %d: %+v, want %s", i, got, rule)
		}
	}
	if f := p1.Items[1].Problems[0].Field; f != "points" {
		t.Errorf("the finding of item 1 names the field %q", f)
	}
	p2 := out[2]
	if p2.Page != 2 || len(p2.Items) != 1 || len(p2.Items[0].Problems) == 0 || p2.Items[0].Problems[0].Rule != pagerules.IDRepeated {
		t.Errorf("page 2 items: %+v", p2.Items)
	}
	if len(p2.Problems) == 0 || !strings.Contains(p2.Problems[0], string(pagerules.CursorRepeats)) {
		t.Errorf("page 2: the repeated cursor is not found: %q", p2.Problems)
	}
	if len(out[3].Problems) == 0 || !strings.Contains(out[3].Problems[0], "not kept whole") {
		t.Errorf("a cut request: %q", out[3].Problems)
	}
}

// A data request's own schema serves when the run has no schema answer.
func TestCheckExchangesRequestSchema(t *testing.T) {
	t.Parallel()
	out := checkExchanges([]apps.Exchange{{Method: "POST", Path: "/base/api/v1/synchronizer/data", Status: 200,
		Request:  `{"requestedType":"t","schema":{"t":{"id":{"id":"id","name":"ID","type":"id"}}}}`,
		Response: `{"items":[{"id":"1","x":1}]}`}})
	if len(out[0].Items) != 1 || len(out[0].Items[0].Problems) != 1 || out[0].Items[0].Problems[0].Rule != pagerules.UnknownKey {
		t.Errorf("%+v", out[0])
	}
	out = checkExchanges([]apps.Exchange{{Method: "POST", Path: "/api/v1/synchronizer/data", Status: 200,
		Request: `{"requestedType":"t"}`, Response: `{"items":[{"id":"1"}]}`}})
	if len(out[0].Problems) != 1 || !strings.Contains(out[0].Problems[0], "No schema") {
		t.Errorf("%+v", out[0])
	}
}

// An answer cut at the kept size still gets its complete leading items
// checked.
func TestCheckExchangesCutAnswer(t *testing.T) {
	t.Parallel()
	full := `{"items":[{"id":"1"},{"id":"2","x":true},{"id":"3","na`
	out := checkExchanges([]apps.Exchange{{Method: "POST", Path: "/api/v1/synchronizer/data", Status: 200,
		Request:  `{"requestedType":"t","schema":{"t":{"id":{"id":"id","name":"ID","type":"id"}}}}`,
		Response: full}})
	if len(out[0].Items) != 2 || len(out[0].Items[1].Problems) != 1 || len(out[0].Problems) != 1 || !strings.Contains(out[0].Problems[0], "first 2 items") {
		t.Errorf("%+v", out[0])
	}
	for _, body := range []string{`{"pagination":{"hasNext":false},"items":[{"id":"1"}`, `[`, ``, `{"items":{"a":1}`} {
		got := leadingItems(body)
		t.Logf("%q: %d items", body, len(got))
	}
	if n := len(leadingItems(`{"pagination":{"hasNext":false},"items":[{"id":"1"},{"id"`)); n != 1 {
		t.Errorf("items after another key: %d", n)
	}
}

func FuzzLeadingItems(f *testing.F) {
	f.Add(`{"items":[{"id":"1"},{"id":"2"`)
	f.Add(`{"a":[1,2],"items":[`)
	f.Fuzz(func(t *testing.T, body string) {
		for _, it := range leadingItems(body) {
			if !json.Valid(it) {
				t.Fatalf("an item that is not JSON: %q", it)
			}
		}
	})
}

// A data request cut within its schema still names its type: the items
// are checked against the run's schema answer.
func TestCheckExchangesCutRequest(t *testing.T) {
	t.Parallel()
	out := checkExchanges([]apps.Exchange{
		{Method: "POST", Path: "/api/v1/synchronizer/schema", Status: 200, Response: `{"t":{"id":{"id":"id","name":"ID","type":"id"}}}`},
		{Method: "POST", Path: "/api/v1/synchronizer/data", Status: 200,
			Request:  `{"account":{},"pagination":null,"requestedType":"t","schema":{"t":{"id":{"id":"id","na`,
			Response: `{"items":[{"id":"1","x":1}]}`}})
	if out[1].Type != "t" || len(out[1].Items) != 1 || len(out[1].Items[0].Problems) != 1 {
		t.Errorf("%+v", out[1])
	}
	for body, want := range map[string]string{`{"requestedType":"a"`: "a", `{"x":[1,2],"requestedType":"b","s":{`: "b", `{"requestedType":1}`: "", `[`: "", `{"sch`: ""} {
		if got := leadingString(body, "requestedType"); got != want {
			t.Errorf("%q: %q, want %q", body, got, want)
		}
	}
}
