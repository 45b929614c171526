package appkit

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// wireItem is a struct item using every Go type a schema field can have.
type wireItem struct {
	ID       string     `appkit:"id"`
	Name     string     `appkit:"name"`
	Done     bool       `appkit:"done"`
	Count    int64      `appkit:"count"`
	Small    uint8      `appkit:"small"`
	Ratio    float64    `appkit:"ratio"`
	Half     float32    `appkit:"half"`
	At       time.Time  `appkit:"at"`
	Due      Day        `appkit:"due"`
	Tags     []string   `appkit:"tags"`
	Note     *string    `appkit:"note"`
	Later    *time.Time `appkit:"later"`
	Skipped  string     `appkit:"skipped,omitempty"`
	Nothing  int        `appkit:"nothing,omitempty"`
	internal string     // unexported: not a field of the schema
}

func encodeStructs[T any](t *testing.T, items []T, delta bool) []byte {
	t.Helper()
	rt := reflect.TypeFor[T]()
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	st, errs := schemaOf(rt, "Things")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	bt := &builtType{decl: &Type{ID: "thing"}, structs: st, fields: st.schemaFields()}
	out := append([]byte{'['}, encodeItems(nil, items, bt, delta, &pageProblems{})...)
	out = append(out, ']')
	if !json.Valid(out) {
		t.Fatalf("invalid JSON: %s", out)
	}
	return out
}

func TestStructItemWireForm(t *testing.T) {
	t.Parallel()
	zone := time.FixedZone("X", -(3*60+30)*60)
	note := "a \"quoted\" <b>note</b>\n\t\u2028 é \x01"
	item := wireItem{internal: "not sent", ID: "1", Name: "<b>bold</b> & co", Done: true, Count: -42, Small: 200, Ratio: 1e21, Half: 0.1,
		At: time.Date(2024, 6, 13, 9, 5, 7, 123456789, zone), Due: Day{2024, 2, 29}, Tags: []string{"a", ""}, Note: &note}
	got := encodeStructs(t, []wireItem{item, {ID: "2"}}, false)
	want := `[{"id":"1","name":"<b>bold</b> & co","done":"true","count":-42,"small":200,"ratio":1e+21,"half":0.1,` +
		`"at":"2024-06-13T09:05:07.123-03:30","due":"2024-02-29","tags":["a",""],"note":"a \"quoted\" <b>note</b>\n\t\u2028 é \u0001"},` +
		`{"id":"2","name":"","done":"false","count":0,"small":0,"ratio":0,"half":0,"at":null,"due":null,"tags":null}]`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	var decoded []map[string]any
	if err := json.Unmarshal(got, &decoded); err != nil || decoded[0]["note"] != note {
		t.Fatalf("the note does not decode back: %v %q", err, decoded[0]["note"])
	}
}

func TestStructItemsInDeltaPages(t *testing.T) {
	t.Parallel()
	got := encodeStructs(t, []*wireItem{{ID: "1", Skipped: "x"}}, true)
	if !bytes.HasSuffix(got, []byte(`"skipped":"x","__syncAction":"SET"}]`)) {
		t.Fatalf("got %s", got)
	}
	type only struct {
		ID string `appkit:"id"`
		N  *int   `appkit:"n"`
	}
	if got := encodeStructs(t, []only{{ID: "1"}}, true); string(got) != `[{"id":"1","__syncAction":"SET"}]` {
		t.Fatalf("got %s", got)
	}
}

func TestSchemaOfStruct(t *testing.T) {
	t.Parallel()
	type item struct {
		ID        int        `appkit:"id"`
		Name      string     `appkit:",name=Title,desc=The title,order=9"`
		DueDate   Day        `appkit:",hidden"`
		HTMLBody  string     `appkit:",html"`
		ProjectID string     `appkit:"project,ref=project,match=code"`
		Labels    []string   `appkit:"labels,ref=label,inverse=Things it labels"`
		Cost      float64    `appkit:"cost,format=Money,precision=2,unit=EUR,readonly"`
		Stage     string     `appkit:"stage,workflow,options=new|done"`
		Ignored   string     `appkit:"-"`
		When      *time.Time `appkit:"when"`
	}
	st, errs := schemaOf(reflect.TypeFor[item](), "Things")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, f := range st.schemaFields() {
		w := f.wire()
		b, _ := json.Marshal(w)
		got = append(got, string(b))
	}
	want := []string{
		`{"id":"id","name":"ID","type":"id","order":1}`,
		`{"id":"name","name":"Title","description":"The title","type":"text","order":9}`,
		`{"id":"dueDate","name":"Due date","type":"date","subType":"day","ignore":true,"order":3}`,
		`{"id":"htmlBody","name":"HTML body","type":"text","subType":"html","order":4}`,
		`{"id":"project","name":"Project ID","type":"text","relation":{"cardinality":"many-to-one","name":"Project ID","targetType":"project","targetName":"Things","targetFieldId":"code"},"order":5}`,
		`{"id":"labels","name":"Labels","type":"array[text]","relation":{"cardinality":"many-to-many","name":"Labels","targetType":"label","targetName":"Things it labels","targetFieldId":"id"},"order":6}`,
		`{"id":"cost","name":"Cost","type":"number","readonly":true,"order":7,"format":{"type":"Money","precision":2,"unit":"EUR"}}`,
		`{"id":"stage","name":"Stage","type":"text","subType":"workflow","order":8,"options":["new","done"]}`,
		`{"id":"when","name":"When","type":"date","order":9}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A numeric id is sent as a string.
	if out := encodeStructs(t, []item{{ID: 7}}, false); !bytes.HasPrefix(out, []byte(`[{"id":"7",`)) {
		t.Fatalf("got %s", out)
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, id, name string }{
		{"ID", "id", "ID"}, {"Name", "name", "Name"}, {"DueDate", "dueDate", "Due date"}, {"URL", "url", "URL"},
		{"HTMLBody", "htmlBody", "HTML body"}, {"ProjectURL", "projectURL", "Project URL"}, {"Line2Total", "line2Total", "Line2 total"},
		{"x", "x", "x"},
	} {
		if id, name := lowerLeading(tc.in), words(tc.in); id != tc.id || name != tc.name {
			t.Errorf("%s: got %q %q, want %q %q", tc.in, id, name, tc.id, tc.name)
		}
	}
}

func TestMapItemWireForm(t *testing.T) {
	t.Parallel()
	fields := []Field{ID(), Text("name", "Name"), Bool("done", "Done"), Integer("n", "N"), DateTimeField("at", "At"), DayField("due", "Due"),
		TextArray("tags", "Tags"), Ref("owner", "Owner", "user"), Refs("links", "Links", "thing"), Text("sel", "Sel").As(SubMultiSelect),
		Text("state", "State").As(SubSingleSelect).WithOptions("open", "closed")}
	bt := &builtType{decl: &Type{ID: "thing"}, fields: fields, maps: newMapSchema(fields)}
	at := time.Date(2024, 6, 13, 9, 0, 0, 0, time.UTC)
	midnight := time.Date(2024, 6, 13, 0, 0, 0, 0, time.FixedZone("", 2*3600))
	items := []Item{
		{"id": 5, "name": "<i>x</i>", "done": false, "n": 3, "at": at, "due": midnight, "tags": []any{"a", 1}, "owner": 9, "links": []string{"a"}, "sel": []string{"x"}, "state": "open"},
		{"id": "b", "due": Day{2024, 1, 2}, "n": 2.5, "colour": "red", "at": "yesterday"},
		{"id": "c", "due": at, "state": "Open"},
	}
	pp := &pageProblems{typ: "thing"}
	got := append([]byte{'['}, encodeItems(nil, items, bt, false, pp)...)
	got = append(got, ']')
	want := `[{"id":"5","name":"<i>x</i>","done":"false","n":3,"at":"2024-06-13T09:00:00.000Z","due":"2024-06-13","tags":["a","1"],"owner":"9","links":["a"],"sel":["x"],"state":"open"},` +
		`{"id":"b","n":2.5,"at":"yesterday","due":"2024-01-02","colour":"red"},{"id":"c","due":"2024-06-13T09:00:00.000Z","state":"Open"}]`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	var rules []string
	for _, v := range pp.violations {
		rules = append(rules, v.Error())
	}
	wantRules := []string{
		`type "thing", item "b", field "n": value shape: want an integer, got 2.5`,
		`type "thing", item "b", field "at": value shape: want an ISO 8601 date, got "yesterday"`,
		`type "thing", item "b", field "colour": unknown key: the type's schema has no such field`,
		`type "thing", item "c", field "due": value shape: want a day, got the time.Time 2024-06-13T09:00:00Z: a time of day in a day field (send an appkit.Day, or midnight)`,
		`type "thing", item "c", field "state": option not declared: want one of the options ["open","closed"], got "Open"`,
	}
	if strings.Join(rules, "\n") != strings.Join(wantRules, "\n") {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(rules, "\n"), strings.Join(wantRules, "\n"))
	}
	pp = &pageProblems{typ: "thing"}
	encodeItems(nil, []Item{{"id": "1", "__syncAction": "REMOVE"}}, bt, true, pp)
	if !strings.Contains(pp.mistake, "send removals in Page.Removed") {
		t.Fatalf("mistake = %q", pp.mistake)
	}
}

func TestAppendISOTime(t *testing.T) {
	t.Parallel()
	for _, tm := range []time.Time{
		time.Date(2024, 6, 13, 9, 5, 7, 999999999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.FixedZone("", 14*3600)),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.FixedZone("", -12*3600-1800)),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 3, 31, 2, 30, 0, 0, time.Local),
	} {
		if got, want := string(appendISOTime(nil, tm)), tm.Format(timeLayout); got != want {
			t.Errorf("%v: got %s, want %s", tm, got, want)
		}
	}
}

// A Day outside the calendar (a month or day of more than two digits, or
// negative) is still written as digits: the page stays valid JSON, and the
// checks report the value instead of a broken page.
func TestDayOutsideTheCalendarStaysJSON(t *testing.T) {
	t.Parallel()
	for _, d := range []Day{{2026, -140, 1}, {2026, 200, 5}, {2026, 1, -14}, {2026, 1, 100}, {-5, 1, 1}, {math.MinInt, math.MinInt, math.MinInt}} {
		b := appendDay(nil, d)
		if !json.Valid(b) {
			t.Errorf("%#v: %q is not JSON", d, b)
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil || s != d.String() {
			t.Errorf("%#v: %q, String() %q", d, b, d.String())
		}
	}
	if got := (Day{2026, 200, -5}).String(); got != "2026-200--5" {
		t.Errorf("String() = %q", got)
	}
}
