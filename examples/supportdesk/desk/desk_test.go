package desk_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
	"github.com/appkitgo/appkit/examples/supportdesk/fakedesk"
)

func TestMain(m *testing.M) {
	fakedesk.ServeIfChild()
	os.Exit(m.Run())
}

// admin calls an admin route of the desk (its clock, deletions, failures).
func admin(t *testing.T, api, path string) {
	t.Helper()
	resp, err := http.Post(strings.TrimSuffix(api, "/api")+path, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s = %d", path, resp.StatusCode)
	}
}

func ids(items []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, it := range items {
		out[it["id"].(string)] = it
	}
	return out
}

// TestSupportDesk drives the app as the service does, over the desk's API
// served in its own process.
func TestSupportDesk(t *testing.T) {
	api := fakedesk.Start(t)
	c := appkittest.New(t, desk.New(desk.Config{URL: api}))
	c.Account = map[string]any{"token": fakedesk.Token}
	if r := c.Validate("token"); r.Status != 200 || !strings.Contains(string(r.Body), "Demo help desk") {
		t.Fatalf("validate = %d %s", r.Status, r.Body)
	}

	// A full run: every ticket, in pages of at most 50, with the wire
	// forms of their kinds.
	pages := c.Sync(appkittest.Run{Type: "ticket"})
	var items []map[string]any
	for _, p := range pages {
		items = append(items, p.Items...)
	}
	all := ids(items)
	if len(pages) != 3 || len(all) != 120 {
		t.Fatalf("%d pages, %d tickets; want 3 pages of 120 tickets", len(pages), len(all))
	}
	t1 := all["T-1"]
	if t1["due"] != "2026-03-04" || t1["created"] != "2026-02-25T12:00:00.000Z" || t1["customer"] != "c1" || t1["assignee"] != "a1" || t1["status"] != "open" || t1["name"] != "Ticket 1: cannot log in" {
		t.Fatalf("T-1 = %v", t1)
	}
	if _, has := all["T-4"]["assignee"]; has {
		t.Fatalf("T-4 has no assignee upstream: %v", all["T-4"])
	}
	if cs := ids(c.SyncAll(appkittest.Run{Type: "customer"})); cs["c1"]["vip"] != "true" || cs["c2"]["vip"] != "false" || len(cs) != 5 {
		t.Fatalf("customers = %v", cs)
	}
	if as := ids(c.SyncAll(appkittest.Run{Type: "agent"})); len(as) != 3 || as["a2"]["name"] != "Grace" {
		t.Fatalf("agents = %v", as)
	}

	// Filters: customers and agents (from their datalists), a created
	// range, open only.
	opts := c.Datalist("customers", nil)
	if len(opts) != 5 || opts[1].Title != "Globex" || opts[1].Value != "c2" {
		t.Fatalf("customers datalist = %v", opts)
	}
	if opts := c.Datalist("agents", nil); len(opts) != 3 || opts[0].Title != "Ada" {
		t.Fatalf("agents datalist = %v", opts)
	}
	got := ids(c.SyncAll(appkittest.Run{Type: "ticket", Filter: map[string]any{
		"customers": []string{"c2"}, "agents": []string{"a2", "a3"}, "open": true,
		"created": map[string]any{"_min": "2026-02-20T00:00:00.000", "_max": "2026-03-01T23:59:59.999"},
	}}))
	for id, it := range got {
		if it["customer"] != "c2" || it["status"] == "closed" || it["created"].(string) < "2026-02-20" || it["created"].(string) > "2026-03-02" || (it["assignee"] != "a2" && it["assignee"] != "a3") {
			t.Errorf("%s does not match the filter: %v", id, it)
		}
	}
	if len(got) == 0 {
		t.Fatal("the filter selected nothing")
	}

	// Two hours later a ticket is closed by the action and another deleted:
	// the next run with lastSynchronizedAt answers only those.
	last := fakedesk.Epoch
	admin(t, api, "/admin/clock?add=2h")
	if r := c.Execute("close-ticket", map[string]any{"ticket": "T-2", "note": "Fixed in 2.1"}); r.Status != 200 {
		t.Fatalf("close = %d %s", r.Status, r.Body)
	}
	if r := c.Execute("close-ticket", map[string]any{"ticket": "T-999"}); r.Status != 400 || !strings.Contains(r.Message(), "T-999") {
		t.Fatalf("closing an unknown ticket = %d %s", r.Status, r.Body)
	}
	admin(t, api, "/admin/tickets/T-3/delete")
	changed := map[string]string{}
	for _, p := range c.Sync(appkittest.Run{Type: "ticket", LastSynchronizedAt: last.Add(time.Hour)}) {
		if p.SynchronizationType != "delta" {
			t.Fatalf("page answered %s", p.SynchronizationType)
		}
		for _, it := range p.Items {
			changed[it["id"].(string)] = it["__syncAction"].(string)
		}
	}
	if len(changed) != 2 || changed["T-2"] != "SET" || changed["T-3"] != "REMOVE" {
		t.Fatalf("delta = %v, want T-2 SET and T-3 REMOVE", changed)
	}
	// With a filter the same run answers full: a delta cannot follow an
	// edited selection.
	if p := c.Sync(appkittest.Run{Type: "ticket", LastSynchronizedAt: last, Filter: map[string]any{"open": true}}); p[0].SynchronizationType != "full" {
		t.Fatalf("filtered run answered %s", p[0].SynchronizationType)
	}

	// The desk fails for a while: a 502 is retried, a 429 is tryLater with
	// the desk's wait.
	admin(t, api, "/admin/fail?status=502&times=1")
	if n := len(c.SyncAll(appkittest.Run{Type: "customer"})); n != 5 {
		t.Fatalf("after a 502: %d customers", n)
	}
	admin(t, api, "/admin/fail?status=429&times=1")
	r := c.Do("POST", "/api/v1/synchronizer/data", map[string]any{"requestedType": "ticket", "types": []string{"ticket"}})
	if r.Status != 503 || !r.TryLater() || r.Header.Get("Retry-After") != "1" {
		t.Fatalf("a 429 upstream = %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
	}

	c.Account = map[string]any{"token": "wrong-token"}
	if r := c.Do("POST", "/api/v1/synchronizer/data", map[string]any{"requestedType": "ticket"}); r.Status != 401 || strings.Contains(string(r.Body), "wrong-token") {
		t.Fatalf("a wrong token = %d %s", r.Status, r.Body)
	}
	if r := c.Validate("token"); r.Status != 401 {
		t.Fatalf("validate with a wrong token = %d %s", r.Status, r.Body)
	}
}
