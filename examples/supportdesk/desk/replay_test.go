package desk_test

import (
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
	"github.com/appkitgo/appkit/examples/supportdesk/fakedesk"
)

// TestReplay runs offline on the desk's answers recorded in
// testdata/TestReplay.yaml (the token masked); `go test -run TestReplay
// -appkit.record` records them again from the desk in its own process.
func TestReplay(t *testing.T) {
	api := "http://desk.invalid/api" // never reached: every answer is replayed
	if appkittest.Recording() {
		api = fakedesk.Start(t)
	}
	c := appkittest.New(t, desk.New(desk.Config{URL: api, HTTPClient: appkittest.Record(t, appkittest.RecordSecrets(fakedesk.Token))}))
	c.Account = map[string]any{"token": fakedesk.Token}
	if r := c.Validate("token"); r.Status != 200 {
		t.Fatalf("validate = %d %s", r.Status, r.Body)
	}
	if n := len(c.SyncAll(appkittest.Run{Type: "customer"})); n != 5 {
		t.Fatalf("%d customers", n)
	}
	if n := len(c.SyncAll(appkittest.Run{Type: "agent"})); n != 3 {
		t.Fatalf("%d agents", n)
	}
	tickets := c.SyncAll(appkittest.Run{Type: "ticket", Filter: map[string]any{
		"customers": []string{"c2"}, "open": true,
		"created": map[string]any{"_min": "2026-02-27T00:00:00.000", "_max": "2026-03-01T23:59:59.999"},
	}})
	if len(tickets) == 0 {
		t.Fatal("no tickets")
	}
	for _, it := range tickets {
		if it["customer"] != "c2" || it["status"] == "closed" {
			t.Errorf("%v does not match the filter", it)
		}
	}
	if r := c.Execute("close-ticket", map[string]any{"ticket": tickets[0]["id"], "note": "Replayed"}); r.Status != 200 {
		t.Fatalf("close = %d %s", r.Status, r.Body)
	}
}
