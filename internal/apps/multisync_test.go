package apps

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// trackerNow is the tracker's clock in these tests.
var trackerNow = tracker.Epoch.Add(200 * 24 * time.Hour)

// dataCall is what a pageHold looks at in a data call.
type dataCall struct {
	Type       string         `json:"requestedType"`
	Filter     map[string]any `json:"filter"`
	Pagination any            `json:"pagination"`
}

// pageHold holds an app's data calls: while hold is set, a data call that
// match accepts waits until its request ends or release is closed (held
// gets a value when one waits).
type pageHold struct {
	hold    atomic.Bool
	held    chan struct{}
	release chan struct{}
	match   func(dataCall) bool
}

func newPageHold(match func(dataCall) bool) pageHold {
	return pageHold{held: make(chan struct{}, 10), release: make(chan struct{}), match: match}
}

// serve serves the app's handler h on a test server, holding its data
// calls, and returns the server's URL.
func (p *pageHold) serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == protocol.PathData && p.hold.Load() {
			b, _ := io.ReadAll(r.Body)
			var c dataCall
			json.Unmarshal(b, &c)
			if p.match(c) {
				p.held <- struct{}{}
				select {
				case <-r.Context().Done():
					return
				case <-p.release:
				}
			}
			r.Body = io.NopCloser(strings.NewReader(string(b)))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// trackerApp serves the tracker; a data call for a task page after the
// first of a sync whose filter is empty is held (see pageHold).
type trackerApp struct {
	url string
	pageHold
}

// newTrackerApp serves the tracker of cfg and returns it with its dataset.
func newTrackerApp(t *testing.T, cfg tracker.Config) (*trackerApp, tracker.Dataset) {
	t.Helper()
	nop := zerolog.Nop()
	cfg.Logger = &nop
	cfg.Now = func() time.Time { return trackerNow }
	app := &trackerApp{pageHold: newPageHold(func(c dataCall) bool {
		return c.Type == "task" && len(c.Filter) == 0 && c.Pagination != nil
	})}
	app.url = app.serve(t, testapp.Handler(t, tracker.New(cfg)))
	return app, tracker.DatasetOf(cfg)
}

// liveTasks counts the tracker's live tasks, of one project when p > 0.
func liveTasks(ds tracker.Dataset, p int) int {
	n := 0
	for j := 1; j <= ds.Tasks; j++ {
		task := ds.Task(j, trackerNow)
		if task.Live(trackerNow) && (p == 0 || task.ProjectID == ds.Project(p).ID) {
			n++
		}
	}
	return n
}

// schedule runs s's scheduler until the returned stop is called.
func schedule(t *testing.T, s *Service) (stop func()) {
	t.Helper()
	return testkit.Background(t, s.Scheduler.Schedule)
}

// lastRun waits until the sync's latest run has ended and returns it.
func lastRun(t *testing.T, s *Service, syncID string, after int64) *Run {
	t.Helper()
	var got *Run
	testkit.WaitUntil(t, "a run of sync "+syncID+" to end", func() bool {
		runs, err := s.SyncService.Runs(context.Background(), syncID, 1)
		if err != nil || len(runs) == 0 || runs[0].Seq <= after || runs[0].EndedAt == nil {
			return false
		}
		got = runs[0]
		return true
	})
	return got
}

// runNow asks s for a run of the sync now and returns it once it has
// ended.
func runNow(t *testing.T, s *Service, syncID string) *Run {
	t.Helper()
	ctx := context.Background()
	last, _ := s.SyncService.Runs(ctx, syncID, 1)
	if _, err := s.SyncService.RunNow(ctx, syncID); err != nil {
		t.Fatal(err)
	}
	return lastRun(t, s, syncID, last[0].Seq)
}

// Two syncs of the tracker (two accounts, one with a project filter, one
// without, whose second run is a delta) run side by side on two host
// processes sharing one store: each owns its space and keeps exactly its
// own entities through full runs, deltas, a run interrupted midway and
// resumed by the other host, and a change of filter.
func TestTwoSyncsOfOneAppSideBySide(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		app, ds := newTrackerApp(t, tracker.Config{Projects: 3, Tasks: 1200})
		// Both workers open to one app: host a runs its two syncs at once.
		a, _ := testService(t, dsn, func(c *Config) { c.HostID, c.LeaseTTL, c.MaxRunsPerApp = "host-a", 10*time.Second, 2 })
		b := sameStore(t, a, func(c *Config) { c.HostID, c.LeaseTTL = "host-b", 10*time.Second })
		st := a.core.st

		reg, acc1 := registerWithToken(t, a, app.url, tracker.DemoToken)
		acc2, err := b.Registry.CreateAccount(ctx, reg.ID, "", map[string]any{"token": tracker.DemoToken})
		if err != nil {
			t.Fatal(err)
		}
		types := []string{"project", "task"}
		app.hold.Store(true)
		one, err := a.SyncService.CreateSync(ctx, SyncSpec{App: reg.ID, Account: acc1.ID, Types: types,
			Filter: map[string][]string{tracker.FilterProjects: {ds.Project(1).Name}}})
		if err != nil {
			t.Fatal(err)
		}
		two, err := b.SyncService.CreateSync(ctx, SyncSpec{App: reg.ID, Account: acc2.ID, Types: types})
		if err != nil {
			t.Fatal(err)
		}
		if one.Space != "tracker" || two.Space != "tracker-2" {
			t.Fatalf("spaces %q and %q", one.Space, two.Space)
		}
		if _, err := b.SyncService.CreateSync(ctx, SyncSpec{App: reg.ID, Account: acc2.ID, Space: "tracker-2"}); err == nil {
			t.Error("a third sync took the second's space")
		}

		// Host a runs both; the second's run is stopped midway (its
		// second task page never answers) with host a.
		stopA := schedule(t, a)
		receive(t, "the second sync's second task page", app.held)
		r1 := lastRun(t, a, one.ID, 0)
		stopA()
		if r1.Status != StatusSucceeded {
			t.Fatalf("the first sync's run: %+v", r1)
		}
		mid, err := b.SyncService.Sync(ctx, two.ID)
		if err != nil || mid.RunID == "" {
			t.Fatalf("the interrupted sync: %+v %v", mid, err)
		}
		// As if host a had been killed: its lease stays until it
		// lapses (a second from now), unreleased.
		leaseNow, err := a.core.leaseClock(ctx, a.core.db)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.core.exec(ctx, "UPDATE apps_syncs SET lease_owner = 'host-a', lease_until = ? WHERE id = ?", leaseNow+1000, two.ID); err != nil {
			t.Fatal(err)
		}
		// Host b takes the sync over once the lease lapsed and resumes
		// the run from its saved page.
		app.hold.Store(false)
		schedule(t, b)
		r2 := lastRun(t, b, two.ID, 0)
		if r2.Status != StatusSucceeded || r2.ID != mid.RunID || r2.Attempts != 2 || r2.Report == nil || !r2.Report.Resumed {
			t.Fatalf("the resumed run: %+v", r2)
		}
		check := func(when string, want1, want2 int) {
			t.Helper()
			if got := teststore.Count(t, st, "tracker/task"); got != want1 {
				t.Errorf("%s: the first sync holds %d tasks, want %d", when, got, want1)
			}
			if got := teststore.Count(t, st, "tracker-2/task"); got != want2 {
				t.Errorf("%s: the second sync holds %d tasks, want %d", when, got, want2)
			}
		}
		p1, all := liveTasks(ds, 1), liveTasks(ds, 0)
		if p1 == 0 || p1 == all {
			t.Fatal("the filter selects nothing or everything; pick another")
		}
		check("first runs", p1, all)

		// Again, on either host: a full run of the first (its filter
		// asks for full pages), a delta of the second.
		for _, sy := range []*Sync{one, two} {
			if r := runNow(t, a, sy.ID); r.Status != StatusSucceeded {
				t.Fatalf("second run: %+v", r)
			}
		}
		check("second runs", p1, all)
		if modes := typeModes(t, a, two.ID); modes["task"] != protocol.SyncDelta {
			t.Errorf("the second sync's second run: modes %v, want a task delta", modes)
		}

		// The first sync changes its filter: its full run removes what
		// it no longer gets, the second's entities stay.
		last, _ := a.SyncService.Runs(ctx, one.ID, 1)
		if _, err := a.SyncService.UpdateSync(ctx, one.ID, SyncSpec{Filter: map[string][]string{tracker.FilterProjects: {ds.Project(2).Name}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.SyncService.RunNow(ctx, one.ID); err != nil {
			t.Fatal(err)
		}
		if r := lastRun(t, a, one.ID, last[0].Seq); r.Status != StatusSucceeded {
			t.Fatalf("run after the change: %+v", r)
		}
		check("a changed filter", liveTasks(ds, 2), all)
	})
}

// typeModes is the mode of each type in the sync's latest run.
func typeModes(t *testing.T, s *Service, syncID string) map[string]string {
	t.Helper()
	runs, err := s.SyncService.Runs(context.Background(), syncID, 1)
	if err != nil || len(runs) == 0 || runs[0].Report == nil {
		t.Fatalf("runs: %v %v", runs, err)
	}
	out := map[string]string{}
	for _, tr := range runs[0].Report.Types {
		out[tr.Type] = tr.Mode
	}
	return out
}

// oldSyncsTable is apps_syncs as stores made it while an app had one sync
// only (app_id unique, no space column).
const oldSyncsTable = `CREATE TABLE apps_syncs (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL UNIQUE,
	account_id TEXT NOT NULL,
	selection TEXT NOT NULL,
	every_ms BIGINT NOT NULL,
	next_at BIGINT NOT NULL,
	webhook TEXT NOT NULL,
	webhook_types TEXT NOT NULL,
	run_id TEXT NOT NULL,
	lease_owner TEXT NOT NULL,
	lease_until BIGINT NOT NULL,
	created_at BIGINT NOT NULL,
	cancel_run TEXT NOT NULL DEFAULT '',
	cancel_reason TEXT NOT NULL DEFAULT ''
)`

// A store whose app had its one sync (made as the service made it before
// several syncs per app, and synchronized by the engine into the app's
// space) opens: the sync keeps the app's space, its next run continues the
// same state and entities (nothing created again, nothing removed), and a
// second sync of the app can be set up beside it.
func TestUpgradeStoreWithOneSyncPerApp(t *testing.T) {
	t.Parallel()
	testkit.EachSharedStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		app, ds := newTrackerApp(t, tracker.Config{Projects: 3, Tasks: 300})
		key := bytes.Repeat([]byte{3}, KeySize)

		// The old store: the engine's run into the app's space; then,
		// the store closed, its apps_syncs as it was then with one app,
		// account and sync, and no record of the store's migrations of
		// the apps tables (as in a store made before the migrations,
		// which runs them all).
		old, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := syncer.Run(ctx, old, syncer.Options{AppURL: app.url, Auth: "token", AccountElsewhere: true,
			StoredAccount: map[string]any{"auth": "token", "token": tracker.DemoToken}, Types: []string{"project", "task"}}); err != nil {
			t.Fatalf("the old run: %v", err)
		}
		all := liveTasks(ds, 0)
		if got := teststore.Count(t, old, "tracker/task"); got != all {
			t.Fatalf("the old run stored %d tasks, want %d", got, all)
		}
		desc, err := syncer.Describe(ctx, syncer.Options{AppURL: app.url})
		if err != nil {
			t.Fatal(err)
		}
		seal, _ := newSealer(key)
		fields := `{"auth":"token","token":"` + tracker.DemoToken + `"}`
		now := time.Now().UnixMilli()
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{"DELETE FROM store_migrations WHERE name LIKE 'apps%'", nil},
			{"DROP TABLE apps_syncs", nil},
			{oldSyncsTable, nil},
			{"INSERT INTO apps_apps (id, url, name, space, descriptor, created_at) VALUES (?, ?, ?, ?, ?, ?)",
				[]any{"app-1", app.url, desc.Descriptor.Name, desc.Space, mustJSON(desc.Descriptor), now}},
			{"INSERT INTO apps_accounts (id, app_id, auth, name, sealed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
				[]any{"acc-1", "app-1", "token", "Demo", seal.seal([]byte(fields), "account:acc-1"), now, now}},
			{`INSERT INTO apps_syncs (id, app_id, account_id, selection, every_ms, next_at, webhook, webhook_types, run_id, lease_owner, lease_until, created_at)
VALUES (?, ?, ?, ?, 0, 0, '', '', '', '', 0, ?)`, []any{"sync-1", "app-1", "acc-1", `{"types":["project","task"],"filter":null}`, now}},
		} {
			if _, err := old.DB().ExecContext(ctx, old.Dialect().Rebind(q.sql), q.args...); err != nil {
				t.Fatal(err)
			}
		}
		old.Close()

		st := teststore.Open(t, dsn)
		svc, err := New(ctx, Config{Store: st, Key: key, Poll: 20 * time.Millisecond, HostID: "host-new"})
		if err != nil {
			t.Fatalf("open the old store: %v", err)
		}
		sy, err := svc.SyncService.Sync(ctx, "sync-1")
		if err != nil || sy.Space != "tracker" || sy.AppID != "app-1" || len(sy.Types) != 2 {
			t.Fatalf("the upgraded sync: %+v %v", sy, err)
		}
		if _, err := svc.SyncService.RunNow(ctx, sy.ID); err != nil {
			t.Fatal(err)
		}
		schedule(t, svc)
		r := lastRun(t, svc, sy.ID, 0)
		if r.Status != StatusSucceeded || r.Report == nil {
			t.Fatalf("the first run after the upgrade: %+v", r)
		}
		for _, tr := range r.Report.Types {
			if tr.Created != 0 || tr.Removed != 0 {
				t.Errorf("%s: %d created, %d removed after the upgrade; want the same entities", tr.Type, tr.Created, tr.Removed)
			}
		}
		if got := teststore.Count(t, st, "tracker/task"); got != all {
			t.Errorf("after the upgrade: %d tasks, want %d", got, all)
		}
		two, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: "app-1", Account: "acc-1", Types: []string{"task"}})
		if err != nil || two.Space != "tracker-2" {
			t.Fatalf("a second sync after the upgrade: %+v %v", two, err)
		}
		if r := lastRun(t, svc, two.ID, 0); r.Status != StatusSucceeded {
			t.Fatalf("the second sync's run: %+v", r)
		}
		if got := teststore.Count(t, st, "tracker-2/task"); got != all {
			t.Errorf("the second sync: %d tasks, want %d", got, all)
		}
		// Opening it again changes nothing.
		if _, err := New(ctx, Config{Store: st, Key: key}); err != nil {
			t.Fatalf("open again: %v", err)
		}
		if list, err := svc.SyncService.Syncs(ctx, "app-1"); err != nil || len(list) != 2 {
			t.Errorf("syncs after opening again: %d %v", len(list), err)
		}
	})
}

// A host whose lease on the sync it runs lapsed (a renewal late on a
// loaded machine) does not claim that sync again while the run goes on: a
// second run of it in the same process would find the first busy, end
// paused and release the lease the first still runs under. The run renews
// its lease and ends with one attempt.
func TestHostDoesNotClaimItsOwnRunAgain(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		app, _ := newTrackerApp(t, tracker.Config{Projects: 2, Tasks: 600})
		app.hold.Store(true)
		svc, _ := testService(t, dsn, func(c *Config) { c.HostID, c.LeaseTTL = "host-a", 3*time.Second })
		reg, acc := registerWithToken(t, svc, app.url, tracker.DemoToken)
		sy, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: reg.ID, Account: acc.ID, Types: []string{"project", "task"}})
		if err != nil {
			t.Fatal(err)
		}
		schedule(t, svc)
		receive(t, "the run's second task page", app.held)

		// The lease lapses under the running run; the scheduler polls
		// (and is woken) until the run's renewal takes the lease back.
		if _, err := svc.core.exec(ctx, "UPDATE apps_syncs SET lease_until = 0 WHERE id = ?", sy.ID); err != nil {
			t.Fatal(err)
		}
		svc.Wake()
		testkit.WaitUntil(t, "the run to renew its lease", func() bool {
			got, err := svc.SyncService.Sync(ctx, sy.ID)
			return err == nil && got.LeaseUntil != nil && got.LeaseOwner == "host-a"
		})
		close(app.release)
		r := lastRun(t, svc, sy.ID, 0)
		if r.Status != StatusSucceeded || r.Attempts != 1 {
			t.Fatalf("the run: %+v, want one attempt that succeeded", r)
		}
	})
}
