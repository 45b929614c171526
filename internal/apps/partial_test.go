package apps

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// twoTypeApp is a fake app with two types, note (two good items) and tag
// (a malformed page: items is an object), whose config enables webhooks;
// it answers the webhook's install.
func twoTypeApp(t *testing.T) *fakeApp {
	t.Helper()
	return newFakeApp(t, "token", map[string]http.HandlerFunc{
		"POST " + protocol.PathConfig: answer(200, `{"types":[{"id":"note","name":"Notes"},{"id":"tag","name":"Tags"}],"filters":[],"webhooks":{"enabled":true}}`),
		"POST " + protocol.PathSchema: answer(200, `{"note":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}},
			"tag":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`),
		"POST " + protocol.PathData: func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				RequestedType string `json:"requestedType"`
			}
			body, _ := io.ReadAll(r.Body)
			json.Unmarshal(body, &req)
			if req.RequestedType == "tag" {
				answer(200, `{"items":{"id":"t1","name":"not a list"},"synchronizationType":"full","pagination":{"hasNext":false}}`)(w, r)
				return
			}
			answer(200, `{"items":[{"id":"n1","name":"One"},{"id":"n2","name":"Two"}],"synchronizationType":"full","pagination":{"hasNext":false}}`)(w, r)
		},
		"POST " + protocol.PathWebhooks: answer(200, `{"id":"wh-7"}`),
	})
}

// A run in which one type fails (its page is malformed) and the other
// completes ends partial: the run's error names the failed type with its
// reason, as the type's report does; the other type's entities are
// stored; the filter sent and the webhook are kept as after a success and
// the sync is scheduled as after one. The API's JSON (the run as
// encoding/json writes it) carries the status and the per-type outcome.
func TestRunPartial(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		svc, _ := testService(t, dsn, nil)
		ctx := context.Background()
		app := twoTypeApp(t)
		a, acc := registerWithAccount(t, svc, app.url)
		every := "1h"
		sy, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: a.ID, Account: acc.ID, Types: []string{"note", "tag"}, Every: &every})
		if err != nil {
			t.Fatal(err)
		}
		stop := schedule(t, svc)
		run := lastRun(t, svc, sy.ID, 0)
		stop()

		if run.Status != StatusPartial {
			t.Fatalf("run %s (%s), want %s", run.Status, run.Error, StatusPartial)
		}
		if run.Report == nil || len(run.Report.Types) != 2 {
			t.Fatalf("report: %+v", run.Report)
		}
		byType := map[string]*syncer.TypeReport{}
		for _, tr := range run.Report.Types {
			byType[tr.Type] = tr
		}
		note, tag := byType["note"], byType["tag"]
		if note == nil || note.Status != syncer.TypeCompleted || note.Created != 2 || note.Error != "" {
			t.Errorf("note: %+v", note)
		}
		if tag == nil || tag.Status != syncer.TypeFailed || tag.Error == "" {
			t.Fatalf("tag: %+v", tag)
		}
		if !strings.Contains(run.Error, "tag: "+tag.Error) || strings.Contains(run.Error, "note") {
			t.Errorf("the run's error %q does not name the failed type with its reason %q (and only it)", run.Error, tag.Error)
		}
		if got := teststore.Count(t, svc.core.st, sy.Space+"/note"); got != 2 {
			t.Errorf("%d notes stored, want 2", got)
		}

		// Kept as after a success: the filter sent, the webhook; the
		// sync is due at its next scheduled time, no run kept open.
		if run.Report.Webhook != "installed" {
			t.Errorf("webhook: %q", run.Report.Webhook)
		}
		got, err := svc.SyncService.Sync(ctx, sy.ID)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Webhook) != `{"id":"wh-7"}` {
			t.Errorf("the sync's webhook: %s", got.Webhook)
		}
		var sent string
		if err := svc.core.db.QueryRowContext(ctx, svc.core.q("SELECT filter_sent FROM apps_syncs WHERE id = ?"), sy.ID).Scan(&sent); err != nil {
			t.Fatal(err)
		}
		if sent == "" {
			t.Error("the filter sent was not kept")
		}
		if got.RunID != "" || got.NextAt == nil || got.NextAt.Before(run.EndedAt.Add(59*time.Minute)) || got.NextAt.After(run.EndedAt.Add(61*time.Minute)) {
			t.Errorf("the sync after a partial run: run %q, next %v (ended %v)", got.RunID, got.NextAt, run.EndedAt)
		}

		// The API's encoding: the run's status, each type's status and
		// error.
		raw, err := json.Marshal(run)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"status":"partial"`, `"Status":"completed"`, `"Status":"failed"`, `"Error":`} {
			if !strings.Contains(string(raw), want) {
				t.Errorf("the run's JSON lacks %s: %s", want, raw)
			}
		}
	})
}

// A webhook run's report sums, per type, what each event did, its values
// converted or left empty per field and outcome included.
func TestAddTypeReport(t *testing.T) {
	t.Parallel()
	agg := &syncer.TypeReport{Type: "note"}
	addTypeReport(agg, &syncer.TypeReport{Type: "note", Status: syncer.TypeCompleted, Items: 2, Created: 1, Unchanged: 1, Values: []*syncer.ValueReport{
		{Field: "due", Outcome: syncer.ValueCoerced, Count: 2, Detail: "first", Example: `"1/2/2024"`}}})
	addTypeReport(agg, &syncer.TypeReport{Type: "note", Status: syncer.TypeCompleted, Items: 3, Updated: 3, Values: []*syncer.ValueReport{
		{Field: "due", Outcome: syncer.ValueCoerced, Count: 1, Detail: "second", Example: `"3/4/2024"`},
		{Field: "size", Outcome: syncer.ValueDropped, Count: 1, Detail: "want a number", Example: `"big"`}}})
	if agg.Pages != 2 || agg.Items != 5 || agg.Created != 1 || agg.Updated != 3 || agg.Unchanged != 1 || agg.Status != syncer.TypeCompleted {
		t.Errorf("counts: %+v", agg)
	}
	if len(agg.Values) != 2 || agg.Values[0].Count != 3 || agg.Values[0].Detail != "first" || agg.Values[0].Example != `"1/2/2024"` ||
		agg.Values[1].Field != "size" || agg.Values[1].Count != 1 {
		t.Errorf("values: %+v %+v", agg.Values[0], agg.Values[1:])
	}
	addTypeReport(agg, &syncer.TypeReport{Type: "note", Status: syncer.TypeFailed, Error: "refused"})
	addTypeReport(agg, &syncer.TypeReport{Type: "note", Status: syncer.TypeCompleted})
	if agg.Status != syncer.TypeFailed || agg.Error != "refused" {
		t.Errorf("status: %q %q", agg.Status, agg.Error)
	}
}
