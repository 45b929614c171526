package console_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

const (
	// hostileRows items of four Markdown fields of hostileValue bytes
	// each and three text fields of hostileText bytes: a table page of
	// them would be some 5 MB of HTML unbounded. Each value exceeds the
	// 16 KiB a cell shows, and a row's seven cells would take twice its
	// 40 KiB, so its last cells are left out: every bound is reached.
	// Larger values only slow the sync that loads them (a 26 MB page
	// timed out under -race on a loaded machine).
	hostileRows  = 25
	hostileValue = 32 << 10
	hostileText  = 20 << 10
	// hostileTexts is the text fields of an item, shown after its
	// Markdown fields (their order 1 to 4, the texts' 5 to 7).
	hostileTexts = 3
	// hostileLarge is the large values of an item.
	hostileLarge = 4 + hostileTexts
)

// hostileMarkdown is a Markdown value of about hostileValue bytes whose
// last line names its row and field.
func hostileMarkdown(row, field int) string {
	var b strings.Builder
	for i := 0; b.Len() < hostileValue; i++ {
		fmt.Fprintf(&b, "Paragraph **%d** of row %d, field %d.\n\n", i, row, field)
	}
	fmt.Fprintf(&b, "END-OF-VALUE-%d-%d", row, field)
	return b.String()
}

// hostileTableAppURL serves an app whose one type has hostileRows items
// of four large Markdown fields and hostileTexts long texts.
func hostileTableAppURL(t *testing.T) string {
	t.Helper()
	var items []string
	for r := range hostileRows {
		fields := []string{fmt.Sprintf(`"id":"n%d"`, r), fmt.Sprintf(`"name":"note %d"`, r)}
		for f := range hostileTexts {
			fields = append(fields, fmt.Sprintf(`"notes%d":%q`, f, strings.Repeat("n", hostileText)+fmt.Sprintf("END-OF-TEXT-%d-%d", r, f)))
		}
		for f := range 4 {
			fields = append(fields, fmt.Sprintf(`"body%d":%q`, f, hostileMarkdown(r, f)))
		}
		items = append(items, "{"+strings.Join(fields, ",")+"}")
	}
	data := `{"items":[` + strings.Join(items, ",") + `],"synchronizationType":"full","pagination":{"hasNext":false}}`
	schema := `{"note":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}`
	for f := range 4 {
		schema += fmt.Sprintf(`,"body%d":{"id":"body%d","name":"Body %d","type":"text","subType":"md","order":%d}`, f, f, f, 1+f)
	}
	for f := range hostileTexts {
		schema += fmt.Sprintf(`,"notes%d":{"id":"notes%d","name":"Notes %d","type":"text","order":%d}`, f, f, f, 5+f)
	}
	schema += `}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `{"id":"hostile","name":"Hostile","version":"1","description":"d","website":"https://example.com",
			"authentication":[{"id":"token","name":"Token","fields":[{"id":"token","name":"Token","type":"password"}]}],"sources":[],"responsibleFor":{"dataSynchronization":true}}`)
		case "/validate":
			io.WriteString(w, `{"name":"hostile account"}`)
		case "/api/v1/synchronizer/config":
			io.WriteString(w, `{"types":[{"id":"note","name":"Notes"}],"filters":[]}`)
		case "/api/v1/synchronizer/schema":
			io.WriteString(w, schema)
		case "/api/v1/synchronizer/data":
			io.WriteString(w, data)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"not found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// maxTablePage is the bound the test holds a table page to: the cells'
// 1 MiB and a quarter of that for the page around them (a row's cells
// unbounded, the page would be some 2.4 MiB).
const maxTablePage = 1<<20 + 1<<18

var wholeLink = regexp.MustCompile(`<a href="(/value/hostile/note\?[^"]+)" class="whole">([^<]*)</a>`)

// A table page of a hostile app's values (25 rows of four 32 KiB
// Markdown fields and three 20 KiB texts) stays under 1.25 MiB: each cell
// shows at most 16 KiB of its value, a row at most 40 KiB (its last cells
// are left out), the page about 1 MiB of cells, and every cell cut or left
// out links to its whole value, whose page shows it to its last line.
func TestTablePageBounded(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	sy := e.newSync(hostileTableAppURL(t), map[string]any{"token": "hostile-token-1"})
	if run := e.waitRun(sy.ID); run.Status != apps.StatusSucceeded {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if n := teststore.Count(t, e.st, "hostile/note"); n != hostileRows {
		t.Fatalf("%d notes stored", n)
	}
	b := e.browser()
	b.signIn()
	p := b.get("/data/hostile/note")
	if p.code != http.StatusOK {
		t.Fatalf("table: %d\n%.2000s", p.code, p.body)
	}
	if len(p.body) > maxTablePage {
		t.Fatalf("the table page has %d bytes (bound %d)", len(p.body), maxTablePage)
	}
	if rows := strings.Count(p.body, "<tr>") - 1; rows != hostileRows {
		t.Errorf("%d rows shown", rows)
	}
	if !strings.Contains(p.body, `<div class="rich"><p>Paragraph <strong>0</strong> of row 0, field 0.</p>`) {
		t.Error("the first rich-text cell does not show its value's start rendered")
	}
	if strings.Contains(p.body, "END-OF-VALUE") || strings.Contains(p.body, "END-OF-TEXT") {
		t.Error("a cell shows its value to the end")
	}
	links := wholeLink.FindAllStringSubmatch(p.body, -1)
	cut, omitted := 0, 0
	for _, l := range links {
		if strings.Contains(l[2], "not on this page") {
			omitted++
		} else {
			cut++
		}
	}
	// Every one of the 175 large values links to its whole value: cut,
	// or left out once its row's room is spent (each row's room runs out
	// before its last text); every row shows its name.
	if cut+omitted != hostileRows*hostileLarge {
		t.Fatalf("%d cells cut and %d left out link to their value, want %d together", cut, omitted, hostileRows*hostileLarge)
	}
	if cut < hostileRows || omitted < hostileRows {
		t.Errorf("%d cells cut and %d left out: want each row to cut one and leave one out at least", cut, omitted)
	}
	for r := range hostileRows {
		if !strings.Contains(p.body, fmt.Sprintf("<td>note %d</td>", r)) {
			t.Errorf("row %d's name is not shown", r)
		}
	}
	t.Logf("the table page: %d bytes, %d cells cut, %d left out", len(p.body), cut, omitted)
	// The first rich-text cell's link shows its value whole.
	var first string
	for _, l := range links {
		if strings.Contains(l[1], "body0") {
			first = strings.ReplaceAll(l[1], "&amp;", "&")
			break
		}
	}
	if first == "" {
		t.Fatal("no link to a rich-text value")
	}
	whole := b.get(first)
	if whole.code != http.StatusOK || !strings.Contains(whole.body, "END-OF-VALUE-") || !strings.Contains(whole.body, "<strong>0</strong>") {
		t.Errorf("the whole value %s: %d, %d bytes\n%.1000s", first, whole.code, len(whole.body), whole.body)
	}
	if m := regexp.MustCompile(`END-OF-VALUE-\d+-0`).FindString(whole.body); m == "" || strings.Count(whole.body, "END-OF-VALUE") != 1 {
		t.Errorf("the whole value page does not show one value of body0 to its end (%q)", m)
	}
	// A cell left out links to its whole value too.
	for _, l := range links {
		if strings.Contains(l[2], "not on this page") {
			v := b.get(strings.ReplaceAll(l[1], "&amp;", "&"))
			if v.code != http.StatusOK || !strings.Contains(v.body, "END-OF-") {
				t.Errorf("the whole value of a cell left out %s: %d", l[1], v.code)
			}
			break
		}
	}
	// A text field's link too.
	for _, l := range links {
		if strings.Contains(l[1], "notes") {
			v := b.get(strings.ReplaceAll(l[1], "&amp;", "&"))
			if v.code != http.StatusOK || !strings.Contains(v.body, "END-OF-TEXT-") {
				t.Errorf("the whole text %s: %d", l[1], v.code)
			}
			break
		}
	}
	if r := b.get("/value/hostile/note?id=00000000-0000-4000-8000-000000000000&field=hostile.note%2Fnotes"); r.code != http.StatusNotFound {
		t.Errorf("the value of no entity: %d", r.code)
	}
	if r := b.get("/value/hostile/note?id=x&field=nope"); r.code != http.StatusNotFound {
		t.Errorf("the value of no field: %d", r.code)
	}
}
