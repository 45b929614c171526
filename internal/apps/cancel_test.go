package apps

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

// receive waits for a value on ch (a minute at most).
func receive(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("timed out waiting for %s", what)
	}
}

type blockNote struct {
	ID   string `appkit:"id"`
	Name string `appkit:"name"`
}

// blockingApp serves an app whose data call blocks until the host ends the
// request: started gets a value when a data call starts, ended when its
// request was cancelled.
func blockingApp(t *testing.T) (url string, started, ended chan struct{}) {
	t.Helper()
	started, ended = make(chan struct{}, 16), make(chan struct{}, 16)
	nop := zerolog.Nop()
	app := &appkit.App{ID: "blocker", Name: "Blocker", Version: "1.0.0", Description: "an app that never ends a page", Logger: &nop,
		Auth: []appkit.Auth{appkit.TokenAuth("Token", "the token", func(ctx context.Context, token string) (string, error) {
			if token != "account-token-42" {
				return "", errors.New("unknown token")
			}
			return "Blocked account", nil
		})},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "note", Name: "Notes", Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]blockNote, error) {
			started <- struct{}{}
			<-ctx.Done()
			ended <- struct{}{}
			return nil, ctx.Err()
		})}}},
	}
	return testapp.Serve(t, app), started, ended
}

// twoHosts opens two services (two host processes) on one store, the
// first with its scheduler running; leases last 3 s (renewed every
// second).
func twoHosts(t *testing.T, dsn string) (a, b *Service) {
	t.Helper()
	a, _ = testService(t, dsn, func(c *Config) { c.HostID, c.LeaseTTL = "host-a", 3*time.Second })
	b = sameStore(t, a, func(c *Config) { c.HostID, c.LeaseTTL = "host-b", 3*time.Second })
	schedule(t, a)
	return a, b
}

// sameStore opens another service on s's store.
func sameStore(t *testing.T, s *Service, tune func(*Config)) *Service {
	t.Helper()
	cfg := s.core.cfg
	cfg.HTTPClient = nil
	tune(&cfg)
	other, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return other
}

// runningSync sets up a sync of the blocking app on a and waits until its
// run is blocked in a data call.
func runningSync(t *testing.T, a *Service, url string, started chan struct{}) (*Sync, string) {
	t.Helper()
	ctx := context.Background()
	_, sy := registerWithSync(t, a, url)
	receive(t, "the run's data call", started)
	sy, err := a.SyncService.Sync(ctx, sy.ID)
	if err != nil || sy.RunID == "" || sy.LeaseOwner != "host-a" {
		t.Fatalf("the running sync: %+v %v", sy, err)
	}
	return sy, sy.RunID
}

func runStatus(t *testing.T, s *Service, id string) *Run {
	t.Helper()
	r, err := s.SyncService.Run(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A user cancels a running sync from another host: the holder learns of
// it at its lease renewal, cancels the run's context (the app's call
// ends) and records the run as cancelled.
func TestCancelRunningSyncFromAnotherHost(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		url, started, ended := blockingApp(t)
		a, b := twoHosts(t, dsn)
		sy, runID := runningSync(t, a, url, started)
		run, err := b.SyncService.CancelSync(context.Background(), sy.ID)
		if err != nil || run.ID != runID {
			t.Fatalf("cancel: %+v %v", run, err)
		}
		receive(t, "the app's call to end", ended)
		testkit.WaitUntil(t, "the run to be cancelled", func() bool { return runStatus(t, b, runID).Status == StatusCancelled })
		r := runStatus(t, b, runID)
		if !strings.Contains(r.Error, "cancelled by a user") || r.EndedAt == nil {
			t.Errorf("the cancelled run: %+v", r)
		}
		// The calls it made are kept, the one cut short last.
		if n := len(r.Exchanges); n == 0 || r.Exchanges[n-1].Path != "/api/v1/synchronizer/data" || r.Exchanges[n-1].Error == "" {
			t.Errorf("the cancelled run's exchanges: %+v", r.Exchanges)
		}
		testkit.WaitUntil(t, "the lease to be released", func() bool {
			got, _ := b.SyncService.Sync(context.Background(), sy.ID)
			return got.LeaseOwner == ""
		})
		got, _ := b.SyncService.Sync(context.Background(), sy.ID)
		if got.RunID != "" || got.NextAt != nil {
			t.Errorf("after the cancel: run %q, next %v", got.RunID, got.NextAt)
		}
		var flag string
		b.core.db.QueryRow(b.core.q("SELECT cancel_run FROM apps_syncs WHERE id = ?"), sy.ID).Scan(&flag)
		if flag != "" {
			t.Errorf("the cancel flag stays set: %q", flag)
		}
		if _, err := b.SyncService.CancelSync(context.Background(), sy.ID); !errors.Is(err, ErrConflict) {
			t.Errorf("cancelling again: %v", err)
		}
	})
}

// Deleting a sync while it runs, from this host or another, cancels the
// run instead of answering a conflict.
func TestDeleteSyncWhileItRuns(t *testing.T) {
	t.Parallel()
	for _, from := range []string{"same host", "other host"} {
		t.Run(from, func(t *testing.T) {
			t.Parallel()
			testkit.EachStore(t, func(t *testing.T, dsn string) {
				url, started, ended := blockingApp(t)
				a, b := twoHosts(t, dsn)
				sy, runID := runningSync(t, a, url, started)
				by := a
				if from == "other host" {
					by = b
				}
				if _, err := by.SyncService.DeleteSync(context.Background(), sy.ID); err != nil {
					t.Fatalf("delete a running sync: %v", err)
				}
				receive(t, "the app's call to end", ended)
				if _, err := b.SyncService.Sync(context.Background(), sy.ID); !errors.Is(err, ErrNotFound) {
					t.Errorf("the sync is still there: %v", err)
				}
				if _, err := b.SyncService.Run(context.Background(), runID); !errors.Is(err, ErrNotFound) {
					t.Errorf("its run is still there: %v", err)
				}
			})
		})
	}
}

// Changing a running sync's types cancels its run, and the sync runs again
// at once with the new types.
func TestUpdateSyncWhileItRuns(t *testing.T) {
	t.Parallel()
	url, started, ended := blockingApp(t)
	a, _ := twoHosts(t, "sqlite::memory:")
	sy, runID := runningSync(t, a, url, started)
	// A change that is refused changes nothing: the run goes on.
	bad := "1ms"
	if _, err := a.SyncService.UpdateSync(context.Background(), sy.ID, SyncSpec{Types: []string{"note"}, Every: &bad}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("an invalid change: %v", err)
	}
	a.SyncService.held.mu.Lock()
	h := a.SyncService.held.held[sy.ID]
	a.SyncService.held.mu.Unlock()
	if h == nil || a.SyncService.held.localReason(h) != "" {
		t.Fatalf("an invalid change cancelled the run (%+v)", h)
	}
	if _, err := a.SyncService.UpdateSync(context.Background(), sy.ID, SyncSpec{Types: []string{"note"}}); err != nil {
		t.Fatalf("change a running sync: %v", err)
	}
	receive(t, "the app's call to end", ended)
	testkit.WaitUntil(t, "the run to be cancelled", func() bool { return runStatus(t, a, runID).Status == StatusCancelled })
	if r := runStatus(t, a, runID); !strings.Contains(r.Error, "changed") {
		t.Errorf("the cancelled run: %+v", r)
	}
	receive(t, "a new run with the new types", started)
	got, _ := a.SyncService.Sync(context.Background(), sy.ID)
	if got.RunID == runID || strings.Join(got.Types, ",") != "note" {
		t.Errorf("after the change: %+v", got)
	}
	// A change of schedule alone lets the run go on.
	every := "1h"
	if _, err := a.SyncService.UpdateSync(context.Background(), sy.ID, SyncSpec{Every: &every}); err != nil {
		t.Fatal(err)
	}
	if r := runStatus(t, a, got.RunID); r.Status != StatusRunning {
		t.Errorf("a schedule change stopped the run: %+v", r)
	}
}

// queuedRun is a service on SQLite in memory, with a sync of a fake app
// and a run of it queued (no scheduler runs it).
func queuedRun(t *testing.T) (*Service, *fakeApp, *Sync, *Run) {
	t.Helper()
	svc, _ := testService(t, "sqlite::memory:", nil)
	app := newFakeApp(t, "token", nil)
	_, sy := fakeSync(t, svc, app)
	run, err := svc.SyncService.RunNow(context.Background(), sy.ID)
	if err != nil || run.Status != StatusQueued {
		t.Fatalf("run now: %+v %v", run, err)
	}
	return svc, app, sy, run
}

// A queued run that no host holds is cancelled at once; a sync without a
// run has nothing to cancel.
func TestCancelQueuedRun(t *testing.T) {
	t.Parallel()
	svc, _, sy, queued := queuedRun(t)
	ctx := context.Background()
	run, err := svc.SyncService.CancelSync(ctx, sy.ID)
	if err != nil || run.ID != queued.ID || run.Status != StatusCancelled {
		t.Fatalf("cancel a queued run: %+v %v", run, err)
	}
	if got, _ := svc.SyncService.Sync(ctx, sy.ID); got.RunID != "" || got.NextAt != nil {
		t.Errorf("the sync after the cancel: %+v", got)
	}
	if _, err := svc.SyncService.CancelSync(ctx, sy.ID); !errors.Is(err, ErrConflict) {
		t.Errorf("nothing to cancel: %v", err)
	}
	if _, err := svc.SyncService.CancelSync(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("no such sync: %v", err)
	}
}

// A holder whose lease renewal updates no row (another host took the sync
// over) stops its run and leaves the run and the lease to the new holder.
func TestLeaseTakenOverStopsTheRun(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		url, started, ended := blockingApp(t)
		svc, _ := testService(t, dsn, func(c *Config) { c.HostID, c.LeaseTTL = "host-a", 3*time.Second })
		ctx := context.Background()
		_, sy := registerWithSync(t, svc, url)
		id, _, err := svc.Scheduler.claim(ctx, claimDue, nil, nil, nil)
		if err != nil || id != sy.ID {
			t.Fatalf("claim: %q %v", id, err)
		}
		worked := make(chan struct{})
		go func() { defer close(worked); svc.Scheduler.work(ctx, id, false) }()
		receive(t, "the run's data call", started)
		if _, err := svc.core.exec(ctx, "UPDATE apps_syncs SET lease_owner = 'host-b' WHERE id = ?", id); err != nil {
			t.Fatal(err)
		}
		receive(t, "the run to stop", worked)
		receive(t, "the app's call to end", ended)
		got, _ := svc.SyncService.Sync(ctx, id)
		if got.LeaseOwner != "host-b" || got.RunID == "" {
			t.Errorf("the new holder's lease or run was touched: %+v", got)
		}
		if r := runStatus(t, svc, got.RunID); r.Status != StatusRunning {
			t.Errorf("the run was ended by the host that lost it: %+v", r)
		}
	})
}

// A run whose holder died (its lease lapsed unreleased) is cancelled by
// the next host that takes the sync, before anything runs.
func TestCancelRunOfADeadHost(t *testing.T) {
	t.Parallel()
	svc, app, sy, run := queuedRun(t)
	ctx := context.Background()
	if _, err := svc.core.exec(ctx, "UPDATE apps_runs SET status = 'running', owner = 'dead-host' WHERE id = ?", run.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.core.exec(ctx, "UPDATE apps_syncs SET lease_owner = 'dead-host', lease_until = 1 WHERE id = ?", sy.ID); err != nil {
		t.Fatal(err)
	}
	got, err := svc.SyncService.CancelSync(ctx, sy.ID)
	if err != nil || got.Status != StatusRunning {
		t.Fatalf("cancel: %+v %v", got, err)
	}
	schedule(t, svc)
	testkit.WaitUntil(t, "the run to be cancelled", func() bool { return runStatus(t, svc, run.ID).Status == StatusCancelled })
	if n := app.count("POST " + "/api/v1/synchronizer/config"); n != 0 {
		t.Errorf("the cancelled run still ran (%d config calls)", n)
	}
	testkit.WaitUntil(t, "the lease to be released", func() bool {
		got, _ := svc.SyncService.Sync(ctx, sy.ID)
		return got.LeaseOwner == "" && got.RunID == ""
	})
}

// A change of a sync writes only what it names: a run that ends between
// the change's read and its write (on this host process or another) keeps
// the filter it sent and the next time it set.
func TestUpdateSyncKeepsWhatARunEndingMeanwhileWrote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _ := testService(t, "sqlite::memory:", nil)
	_, sy := fakeSync(t, svc, newFakeApp(t, "token", nil))
	hourly := "1h"
	if _, err := svc.SyncService.UpdateSync(ctx, sy.ID, SyncSpec{Every: &hourly}); err != nil {
		t.Fatal(err)
	}
	const sent = `{"projects":["Apollo"]}`
	soon := svc.core.now().Add(5 * time.Minute).UnixMilli()
	// The run's end, as the scheduler writes it, lands after the change
	// has read the sync.
	svc.SyncService.beforeUpdateWrite = func() {
		if _, err := svc.core.exec(ctx, "UPDATE apps_syncs SET filter_sent = ?, next_at = ? WHERE id = ?", sent, soon, sy.ID); err != nil {
			t.Error(err)
		}
	}
	stored := func() (string, int64) {
		t.Helper()
		var f string
		var next int64
		if err := svc.core.db.QueryRowContext(ctx, "SELECT filter_sent, next_at FROM apps_syncs WHERE id = ?", sy.ID).Scan(&f, &next); err != nil {
			t.Fatal(err)
		}
		return f, next
	}
	for _, c := range []struct {
		name string
		spec SyncSpec
	}{
		{"types", SyncSpec{Types: []string{"note"}}},
		{"the same schedule", SyncSpec{Every: &hourly}},
	} {
		if _, err := svc.SyncService.UpdateSync(ctx, sy.ID, c.spec); err != nil {
			t.Fatalf("change %s: %v", c.name, err)
		}
		if f, next := stored(); f != sent || next != soon {
			t.Errorf("after a change of %s: filter sent %q, next at %d; want the run's %q and %d", c.name, f, next, sent, soon)
		}
	}
	// A new filter drops the one sent; a schedule of runs on demand only
	// unschedules the sync.
	svc.SyncService.beforeUpdateWrite = nil
	never := ""
	if _, err := svc.SyncService.UpdateSync(ctx, sy.ID, SyncSpec{Filter: map[string][]string{"projects": {"Zeus"}}, Every: &never}); err != nil {
		t.Fatal(err)
	}
	if f, next := stored(); f != "" || next != 0 {
		t.Errorf("after a new filter and no schedule: filter sent %q, next at %d", f, next)
	}
}

// Two changes of a sync at once both apply: the one whose read another
// change made stale is made again over it, not written over it.
func TestUpdateSyncConcurrentChangesBothApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _ := testService(t, "sqlite::memory:", nil)
	_, sy := fakeSync(t, svc, newFakeApp(t, "token", nil))
	// Another change of the types lands after this one has read the sync.
	reads := 0
	svc.SyncService.beforeUpdateWrite = func() {
		reads++
		if reads > 1 {
			return
		}
		if _, err := svc.core.exec(ctx, "UPDATE apps_syncs SET selection = ? WHERE id = ?", `{"types":["note"]}`, sy.ID); err != nil {
			t.Error(err)
		}
	}
	got, err := svc.SyncService.UpdateSync(ctx, sy.ID, SyncSpec{Filter: map[string][]string{"projects": {"Zeus"}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Types, ",") != "note" || strings.Join(got.Filter["projects"], ",") != "Zeus" || reads != 2 {
		t.Errorf("after two changes at once: types %v, filter %v (%d reads); want both changes, the second read over the first", got.Types, got.Filter, reads)
	}
	// A sync that keeps changing under a change ends it with ErrConflict,
	// nothing of it written.
	n := 0
	svc.SyncService.beforeUpdateWrite = func() {
		n++
		if _, err := svc.core.exec(ctx, "UPDATE apps_syncs SET selection = ? WHERE id = ?", fmt.Sprintf(`{"types":["note"],"filter":{"n":["%d"]}}`, n), sy.ID); err != nil {
			t.Error(err)
		}
	}
	if _, err := svc.SyncService.UpdateSync(ctx, sy.ID, SyncSpec{Types: []string{"task"}}); !errors.Is(err, ErrConflict) {
		t.Errorf("a change of a sync that kept changing: %v, want ErrConflict", err)
	}
	svc.SyncService.beforeUpdateWrite = nil
	if got, _ := svc.SyncService.Sync(ctx, sy.ID); strings.Join(got.Types, ",") != "note" {
		t.Errorf("the refused change was written: types %v", got.Types)
	}
}
