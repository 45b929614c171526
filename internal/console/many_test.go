package console_test

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/testkit"
)

// manyAppURL serves an app of tasks and tags related many-to-many: task
// t1 has the twelve tags "tag 01" to "tag 12", task t2 the tags "tag 01"
// and "tag 02".
func manyAppURL(t *testing.T) string {
	t.Helper()
	var tags, t1 []string
	for i := 1; i <= 12; i++ {
		tags = append(tags, fmt.Sprintf(`{"id":"g%d","name":"tag %02d"}`, i, i))
		t1 = append(t1, fmt.Sprintf(`"g%d"`, i))
	}
	data := map[string]string{
		"task": `{"items":[{"id":"t1","name":"Task one","tags":[` + strings.Join(t1, ",") + `]},{"id":"t2","name":"Task two","tags":["g2","g1"]}],"synchronizationType":"full","pagination":{"hasNext":false}}`,
		"tag":  `{"items":[` + strings.Join(tags, ",") + `],"synchronizationType":"full","pagination":{"hasNext":false}}`,
	}
	schema := `{
	 "task":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},
	  "tags":{"id":"tags","name":"Tags","type":"array[text]","relation":{"cardinality":"many-to-many","name":"Tags","targetType":"tag","targetName":"Tasks","targetFieldId":"id"}}},
	 "tag":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call struct {
			RequestedType string `json:"requestedType"`
		}
		_ = json.NewDecoder(r.Body).Decode(&call)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `{"id":"many","name":"Many","version":"1","description":"d","website":"https://example.com",
			"authentication":[{"id":"token","name":"Token","fields":[{"id":"token","name":"Token","type":"password"}]}],"sources":[],"responsibleFor":{"dataSynchronization":true}}`)
		case "/validate":
			io.WriteString(w, `{"name":"many account"}`)
		case "/api/v1/synchronizer/config":
			io.WriteString(w, `{"types":[{"id":"task","name":"Tasks"},{"id":"tag","name":"Tags"}],"filters":[]}`)
		case "/api/v1/synchronizer/schema":
			io.WriteString(w, schema)
		case "/api/v1/synchronizer/data":
			d, ok := data[call.RequestedType]
			if !ok {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"message":"no such type"}`)
				return
			}
			io.WriteString(w, d)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"not found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

var anchor = regexp.MustCompile(`<a href="([^"]+)"(?: class="more")?>([^<]*)</a>`)

// cellOfRow is the HTML of the cell of column col (from 0) of the table
// row that holds text.
func cellOfRow(t *testing.T, body, text string, col int) string {
	t.Helper()
	for _, row := range strings.Split(body, "<tr>")[1:] {
		row, _, _ = strings.Cut(row, "</tr>")
		if !strings.Contains(row, text) {
			continue
		}
		cells := strings.Split(row, "<td")[1:]
		if col >= len(cells) {
			t.Fatalf("the row of %q has %d cells", text, len(cells))
		}
		c, _, _ := strings.Cut(cells[col], "</td>")
		return c
	}
	t.Fatalf("no row holds %q:\n%s", text, body)
	return ""
}

// A many-to-many relation has a column in both types' tables: each cell
// links to the first ten related entities by title and counts the others
// ("+2 more"), a link to them all.
func TestTableManyToMany(t *testing.T) {
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		e := newEnv(t, dsn)
		sy := e.newSync(manyAppURL(t), map[string]any{"token": "many-token-1"})
		if run := e.waitRun(sy.ID); run.Status != apps.StatusSucceeded {
			t.Fatalf("run %s: %s", run.Status, run.Error)
		}
		b := e.browser()
		b.signIn()
		tasks := b.get("/data/many/task")
		if tasks.code != http.StatusOK {
			t.Fatalf("tasks: %d\n%.2000s", tasks.code, tasks.body)
		}
		col := -1
		head, _, _ := strings.Cut(tasks.body, "</thead>")
		for i, th := range strings.Split(head, `<th scope="col"`)[1:] {
			if strings.Contains(th, ">Tags<") {
				col = i
			}
		}
		if col < 0 {
			t.Fatalf("the tasks table has no Tags column:\n%s", tasks.body)
		}
		one := anchor.FindAllStringSubmatch(cellOfRow(t, tasks.body, "Task one", col), -1)
		var titles []string
		for _, a := range one {
			titles = append(titles, a[2])
		}
		want := "tag 01,tag 02,tag 03,tag 04,tag 05,tag 06,tag 07,tag 08,tag 09,tag 10,+2 more"
		if strings.Join(titles, ",") != want {
			t.Fatalf("Task one's tags: %q, want %q", strings.Join(titles, ","), want)
		}
		// A title links to its entity's row.
		tag := b.get(html.UnescapeString(one[0][1]))
		if tag.code != http.StatusOK || strings.Count(tag.body, "<tr>")-1 != 1 || !strings.Contains(tag.body, "tag 01") {
			t.Errorf("the link of tag 01 (%s): %d\n%.2000s", one[0][1], tag.code, tag.body)
		}
		// "+2 more" lists all twelve.
		all := b.get(html.UnescapeString(one[10][1]))
		if all.code != http.StatusOK || strings.Count(all.body, "<tr>")-1 != 12 {
			t.Errorf("the tags of Task one (%s): %d, %d rows\n%.2000s", one[10][1], all.code, strings.Count(all.body, "<tr>")-1, all.body)
		}
		two := cellOfRow(t, tasks.body, "Task two", col)
		if got := anchor.FindAllStringSubmatch(two, -1); len(got) != 2 || got[0][2] != "tag 01" || got[1][2] != "tag 02" || strings.Contains(two, "more") {
			t.Errorf("Task two's tags: %s", two)
		}
		// The other side: a tag's tasks.
		tags := b.get("/data/many/tag")
		if tags.code != http.StatusOK {
			t.Fatalf("tags: %d\n%.2000s", tags.code, tags.body)
		}
		head, _, _ = strings.Cut(tags.body, "</thead>")
		col = -1
		for i, th := range strings.Split(head, `<th scope="col"`)[1:] {
			if strings.Contains(th, ">Tasks<") {
				col = i
			}
		}
		if col < 0 {
			t.Fatalf("the tags table has no Tasks column:\n%s", tags.body)
		}
		first := cellOfRow(t, tags.body, "tag 01", col)
		if got := anchor.FindAllStringSubmatch(first, -1); len(got) != 2 || got[0][2] != "Task one" || got[1][2] != "Task two" {
			t.Errorf("tag 01's tasks: %s", first)
		}
	})
}
