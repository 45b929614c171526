package desk_test

import (
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
)

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

func ids(items []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, it := range items {
		out[it["id"].(string)] = it
	}
	return out
}

func TestSupportDesk(t *testing.T) {
	clk := &clock{t: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}
	d := desk.New(120, clk.now)
	c := appkittest.New(t, d.App())
	c.Account = map[string]any{"token": desk.Token}
	if r := c.Validate("token"); r.Status != 200 {
		t.Fatalf("validate = %d %s", r.Status, r.Body)
	}

	// A full run: every ticket, in pages of at most PageSize, with the
	// wire forms of their kinds.
	pages := c.Sync(appkittest.Run{Type: "ticket"})
	all := ids(func() (items []map[string]any) {
		for _, p := range pages {
			items = append(items, p.Items...)
		}
		return
	}())
	if len(pages) != 3 || len(all) != 120 {
		t.Fatalf("%d pages, %d tickets; want 3 pages of 120 tickets", len(pages), len(all))
	}
	t1 := all["T-1"]
	if t1["due"] != "2026-03-04" || t1["created"] != "2026-02-25T12:00:00.000Z" || t1["customer"] != "c1" || t1["status"] != "open" {
		t.Fatalf("T-1 = %v", t1)
	}
	if cs := ids(c.SyncAll(appkittest.Run{Type: "customer"})); cs["c1"]["vip"] != "true" || cs["c2"]["vip"] != "false" {
		t.Fatalf("customers = %v", cs)
	}

	// Filters: customers (from the datalist), a created range, open only.
	opts := c.Datalist("customers", nil)
	if len(opts) != 5 || opts[1].Title != "Globex" || opts[1].Value != "c2" {
		t.Fatalf("datalist = %v", opts)
	}
	got := ids(c.SyncAll(appkittest.Run{Type: "ticket", Filter: map[string]any{
		"customers": []string{"c2"}, "open": true,
		"created": map[string]any{"_min": "2026-02-27T00:00:00.000", "_max": "2026-03-01T23:59:59.999"},
	}}))
	for id, it := range got {
		if it["customer"] != "c2" || it["status"] == "closed" || it["created"].(string) < "2026-02-27" {
			t.Errorf("%s does not match the filter: %v", id, it)
		}
	}
	if len(got) == 0 {
		t.Fatal("the filter selected nothing")
	}

	// An hour later a ticket is closed by the action and another deleted:
	// the next run with lastSynchronizedAt answers only those.
	last := clk.now()
	clk.add(2 * time.Hour)
	if r := c.Execute("close-ticket", map[string]any{"ticket": "T-2", "note": "Fixed in 2.1"}); r.Status != 200 {
		t.Fatalf("close = %d %s", r.Status, r.Body)
	}
	if r := c.Execute("close-ticket", map[string]any{"ticket": "T-999"}); r.Status != 400 {
		t.Fatalf("closing an unknown ticket = %d %s", r.Status, r.Body)
	}
	if !d.Delete("T-3") {
		t.Fatal("Delete(T-3) = false")
	}
	delta := c.Sync(appkittest.Run{Type: "ticket", LastSynchronizedAt: last})
	changed := map[string]string{}
	for _, p := range delta {
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

	c.Account = map[string]any{"token": "wrong"}
	if r := c.Do("POST", "/api/v1/synchronizer/data", map[string]any{"requestedType": "ticket"}); r.Status != 401 {
		t.Fatalf("a wrong token = %d %s", r.Status, r.Body)
	}
}
