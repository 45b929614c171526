package host_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/testkit"
)

// partialApp answers two types: note (one number that is not one, left
// empty) and tag (a malformed page: items is an object).
func partialApp(w http.ResponseWriter, r *http.Request) {
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
		reply(`{"note":{"id":{"id":"id","name":"ID","type":"id"},"size":{"id":"size","name":"Size","type":"number"}},
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
		reply(`{"items":[{"id":"n1","size":"big"},{"id":"n2","size":2}],"synchronizationType":"full","pagination":{"hasNext":false}}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		reply(`{"message":"not found"}`)
	}
}

// The apps API answers a partial run with its status and, per type, the
// status, the reason of a failure and the values left empty, as
// docs/host-api.md shows them.
func TestAppsRunPartial(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		e := newAppsEnv(t, dsn, nil)
		_, _, sy := e.newSync(serveApp(t, http.HandlerFunc(partialApp)), map[string]any{"token": "partial-token"}, nil)
		done := e.waitRuns(sy.ID, "", 1)
		var run struct {
			Status string `json:"status"`
			Error  string `json:"error"`
			Report struct {
				Types []map[string]json.RawMessage `json:"types"`
			} `json:"report"`
		}
		raw := e.api("GET", "/api/apps/runs/"+done[0].ID, nil, 200, &run).raw
		if run.Status != "partial" || !strings.Contains(run.Error, "tag: ") {
			t.Fatalf("run %s (%s), want partial naming tag\n%s", run.Status, run.Error, raw)
		}
		byType := map[string]map[string]json.RawMessage{}
		for _, tr := range run.Report.Types {
			var id string
			json.Unmarshal(tr["Type"], &id)
			byType[id] = tr
		}
		note, tag := byType["note"], byType["tag"]
		if note == nil || tag == nil {
			t.Fatalf("types: %s", raw)
		}
		if string(note["Status"]) != `"completed"` || string(note["Created"]) != "2" || note["Error"] != nil {
			t.Errorf("note: %s", raw)
		}
		var reason string
		if string(tag["Status"]) != `"failed"` || json.Unmarshal(tag["Error"], &reason) != nil || reason == "" || !strings.Contains(run.Error, reason) {
			t.Errorf("tag: %s", raw)
		}
		var values []struct {
			Field, Outcome, Detail, Example string
			Count                           int
		}
		if err := json.Unmarshal(note["Values"], &values); err != nil || len(values) != 1 {
			t.Fatalf("note's values: %v %s", err, raw)
		}
		if v := values[0]; v.Field != "size" || v.Outcome != "dropped" || v.Count != 1 || v.Example != `"big"` || !strings.Contains(v.Detail, "want a number") {
			t.Errorf("note's value line: %+v", v)
		}
	})
}
