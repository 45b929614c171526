package apps

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/testkit"
)

// A full run asked for (RunWith, RunSpec.Full) asks the app without
// lastSynchronizedAt where the runs before and after it are deltas; its
// report says Full from the moment it is queued. It is refused while a run
// is in progress; a paused or interrupted run asked in full starts over
// (its earlier counts dropped).
func TestRunWithFull(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		svc, _ := testService(t, dsn, nil)
		ctx := context.Background()
		var mu sync.Mutex
		var asked []bool // per data call: whether lastSynchronizedAt was sent
		app := newFakeApp(t, "token", map[string]http.HandlerFunc{
			"POST " + protocol.PathConfig: answer(200, `{"types":[{"id":"note","name":"Notes"}],"filters":[]}`),
			"POST " + protocol.PathSchema: answer(200, `{"note":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`),
			"POST " + protocol.PathData: func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					LastSynchronizedAt *string `json:"lastSynchronizedAt"`
				}
				body, _ := io.ReadAll(r.Body)
				json.Unmarshal(body, &req)
				mu.Lock()
				asked = append(asked, req.LastSynchronizedAt != nil)
				mu.Unlock()
				if req.LastSynchronizedAt != nil {
					answer(200, `{"items":[],"synchronizationType":"delta","pagination":{"hasNext":false}}`)(w, r)
					return
				}
				answer(200, `{"items":[{"id":"n1","name":"One"}],"synchronizationType":"full","pagination":{"hasNext":false}}`)(w, r)
			},
		})
		lastAsked := func() bool {
			mu.Lock()
			defer mu.Unlock()
			if len(asked) == 0 {
				t.Fatal("no data call")
			}
			return asked[len(asked)-1]
		}
		a, acc := registerWithAccount(t, svc, app.url)
		none := ""
		sy, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: a.ID, Account: acc.ID, Every: &none})
		if err != nil {
			t.Fatal(err)
		}
		stop := schedule(t, svc)
		first := lastRun(t, svc, sy.ID, 0)
		if first.Status != StatusSucceeded || first.Report.Full || lastAsked() {
			t.Fatalf("first run: %s %q, full %v, lastSynchronizedAt sent %v", first.Status, first.Error, first.Report.Full, lastAsked())
		}
		delta := runNow(t, svc, sy.ID)
		if delta.Status != StatusSucceeded || delta.Report.Full || !lastAsked() {
			t.Fatalf("second run: %s, full %v, lastSynchronizedAt sent %v", delta.Status, delta.Report.Full, lastAsked())
		}
		queued, err := svc.SyncService.RunWith(ctx, sy.ID, RunSpec{Full: true})
		if err != nil {
			t.Fatal(err)
		}
		if queued.Report == nil || !queued.Report.Full || queued.Trigger != TriggerManual {
			t.Errorf("the full run queued: trigger %s, report %+v", queued.Trigger, queued.Report)
		}
		full := lastRun(t, svc, sy.ID, delta.Seq)
		if full.ID != queued.ID || full.Status != StatusSucceeded || !full.Report.Full || lastAsked() {
			t.Fatalf("full run: %s %s, full %v, lastSynchronizedAt sent %v", full.ID, full.Status, full.Report.Full, lastAsked())
		}
		if len(full.Report.Types) != 1 || full.Report.Types[0].Unchanged != 1 {
			t.Errorf("full run's report: %+v", full.Report.Types)
		}
		after := runNow(t, svc, sy.ID)
		if after.Report.Full || !lastAsked() {
			t.Errorf("the run after the full one: full %v, lastSynchronizedAt sent %v", after.Report.Full, lastAsked())
		}
		stop()

		// A run in progress at a live host: refused. Interrupted (no host
		// holds it): asked in full, it starts over.
		if _, err := svc.core.exec(ctx, "UPDATE apps_runs SET status = ?, ended_at = 0 WHERE id = ?", StatusRunning, after.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.core.exec(ctx, "UPDATE apps_syncs SET run_id = ?, lease_owner = ?, lease_until = ? WHERE id = ?",
			after.ID, "another-host", time.Now().Add(time.Hour).UnixMilli(), sy.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.SyncService.RunWith(ctx, sy.ID, RunSpec{Full: true}); !errors.Is(err, ErrConflict) {
			t.Errorf("a full run asked while one is in progress: %v, want a conflict", err)
		}
		if _, err := svc.core.exec(ctx, "UPDATE apps_syncs SET lease_owner = '', lease_until = 0 WHERE id = ?", sy.ID); err != nil {
			t.Fatal(err)
		}
		again, err := svc.SyncService.RunWith(ctx, sy.ID, RunSpec{Full: true})
		if err != nil {
			t.Fatal(err)
		}
		if again.ID != after.ID || again.Report == nil || !again.Report.Full || len(again.Report.Types) != 0 {
			t.Errorf("the interrupted run asked in full: %s, report %+v", again.ID, again.Report)
		}
		stop = schedule(t, svc)
		defer stop()
		testkit.WaitUntil(t, "the interrupted run to end", func() bool {
			r, err := svc.SyncService.Run(ctx, after.ID)
			return err == nil && r.EndedAt != nil
		})
		if r, _ := svc.SyncService.Run(ctx, after.ID); r.Status != StatusSucceeded || !r.Report.Full || lastAsked() {
			t.Errorf("the interrupted run, in full: %s, full %v, lastSynchronizedAt sent %v", r.Status, r.Report.Full, lastAsked())
		}
	})
}
