package console_test

import (
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
)

// partialAppURL serves an app written with net/http only, with two types:
// note (good items but for a locale date-time and a number that is not
// one) and tag (a malformed page: items is an object).
func partialAppURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reply := func(s string) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, s)
		}
		switch r.URL.Path {
		case "/":
			reply(`{"id":"partial","name":"Partial","version":"1","description":"d","website":"https://example.com",
			"authentication":[{"id":"token","name":"Token","fields":[{"id":"token","name":"Token","type":"password"}]}],"sources":[],"responsibleFor":{"dataSynchronization":true}}`)
		case "/validate":
			reply(`{"name":"partial account"}`)
		case "/api/v1/synchronizer/config":
			reply(`{"types":[{"id":"note","name":"Notes"},{"id":"tag","name":"Tags"}],"filters":[]}`)
		case "/api/v1/synchronizer/schema":
			reply(`{"note":{"id":{"id":"id","name":"ID","type":"id"},"due":{"id":"due","name":"Due","type":"date"},"size":{"id":"size","name":"Size","type":"number"}},
			"tag":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`)
		case "/api/v1/synchronizer/data":
			var req struct {
				RequestedType string `json:"requestedType"`
			}
			json.Unmarshal(body, &req)
			if req.RequestedType == "tag" {
				reply(`{"items":{"id":"t1","name":"not a list"},"synchronizationType":"full","pagination":{"hasNext":false}}`)
				return
			}
			reply(`{"items":[{"id":"n1","due":"11/14/2023, 10:13 PM","size":"big"},{"id":"n2","due":"2023-11-15T10:00:00Z","size":2}],"synchronizationType":"full","pagination":{"hasNext":false}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			reply(`{"message":"not found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The page of a partial run, on both engines: the partial badge, the
// failed type's status and reason, the completed type's counts and a line
// per field whose values were converted or left empty.
func TestRunPagePartial(t *testing.T) {
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		e := newEnv(t, dsn)
		b := e.browser()
		b.signIn()
		sy := e.newSync(partialAppURL(t), map[string]any{"token": "secret-token-1"})
		run := e.waitRun(sy.ID)
		if run.Status != apps.StatusPartial {
			t.Fatalf("run %s: %s", run.Status, run.Error)
		}
		var tag *syncer.TypeReport
		for _, tr := range run.Report.Types {
			if tr.Type == "tag" {
				tag = tr
			}
		}
		if tag == nil || tag.Status != syncer.TypeFailed || tag.Error == "" {
			t.Fatalf("the tag type's report: %+v", tag)
		}
		rp := b.get("/runs/" + run.ID)
		if rp.code != http.StatusOK {
			t.Fatalf("run page: %d\n%s", rp.code, rp.body)
		}
		for _, want := range []string{
			`<span class="status partial">partial</span>`,
			`<th scope="row">note</th><td class="type-status"><span class="status completed">completed</span></td><td class="created">2</td>`,
			`<th scope="row">tag</th><td class="type-status"><span class="status failed">failed</span></td>`,
			`<li><strong>tag</strong>: <span class="type-error">` + template.HTMLEscapeString(tag.Error) + `</span></li>`,
			`<th scope="row"><code>note.due</code></th><td class="outcome coerced">coerced</td><td class="count">1</td><td class="detail">a month-first locale date-time`,
			`<td class="example"><code>&#34;11/14/2023, 10:13 PM&#34;</code></td>`,
			`<th scope="row"><code>note.size</code></th><td class="outcome dropped">left empty</td><td class="count">1</td><td class="detail">want a number`,
			`<td class="example"><code>&#34;big&#34;</code></td>`,
		} {
			if !strings.Contains(rp.body, want) {
				t.Errorf("the run page lacks %s", want)
			}
		}
		if t.Failed() {
			t.Logf("the run page:\n%s", rp.body)
		}
		// The sync's runs list: the partial badge, the failed type marked.
		sp := b.get("/syncs/" + sy.ID)
		if !strings.Contains(sp.body, `<span class="status partial">partial</span>`) {
			t.Errorf("the sync page lacks the partial badge:\n%s", sp.body)
		}
		if failedType := regexp.MustCompile(`<li><span class="type">(\w+)</span>:(?:[^<]|<span[^>]*>[^<]*</span>)*? <span class="status failed">failed</span></li>`).FindAllStringSubmatch(sp.body, -1); len(failedType) != 1 || failedType[0][1] != "tag" {
			t.Errorf("the sync page's runs list marks %q failed, want tag alone:\n%s", failedType, sp.body)
		}
	})
}
