package apps

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// killKey seals the accounts of the kill test in both processes.
var killKey = bytes.Repeat([]byte{5}, KeySize)

// The child half of TestKillHostMidRun: a host process whose scheduler runs
// the syncs of the store until it is killed.
func TestKillHostMidRunChild(t *testing.T) {
	dsn := os.Getenv("APPKIT_APPS_CHILD_DSN")
	if dsn == "" {
		t.Skip("run by TestKillHostMidRun")
	}
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(context.Background(), Config{Store: st, Key: killKey, HostID: "host-child", LeaseTTL: 2 * time.Second, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	svc.Scheduler.Schedule(context.Background())
	t.Fatal("the host was not killed")
}

// startChildHost starts a host process (TestKillHostMidRunChild) running
// the scheduler of the store at dsn (a file or a server both processes
// reach) until it is killed (SIGKILL: no chance to release its leases),
// when the test ends at the latest.
func startChildHost(t *testing.T, dsn string) *testkit.Child {
	t.Helper()
	return testkit.StartChild(t, "the child host's output", "TestKillHostMidRunChild", "APPKIT_APPS_CHILD_DSN="+dsn)
}

// Two syncs of the tracker run in a host process that is killed (SIGKILL)
// while the second is midway: another host process on the same store
// takes both over once the dead host's leases lapse, resumes the run from
// its last committed page, and each sync ends with exactly its own
// entities, through the next runs too.
func TestKillHostMidRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a process")
	}
	testkit.EachSharedStore(t, testKillHostMidRun) // SQLite in a file the child opens too
}

func testKillHostMidRun(t *testing.T, dsn string) {
	ctx := context.Background()
	app, ds := newTrackerApp(t, tracker.Config{Projects: 3, Tasks: 1200})
	app.hold.Store(true)

	// Set up by one process, which then leaves the store to the child.
	var one, two *Sync
	func() {
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close() // before the child opens the store
		svc, err := New(ctx, Config{Store: st, Key: killKey, HostID: "host-setup"})
		if err != nil {
			t.Fatal(err)
		}
		reg, err := svc.Registry.RegisterApp(ctx, app.url)
		if err != nil {
			t.Fatal(err)
		}
		var accs [2]*Account
		for i := range accs {
			if accs[i], err = svc.Registry.CreateAccount(ctx, reg.ID, "", map[string]any{"token": tracker.DemoToken}); err != nil {
				t.Fatal(err)
			}
		}
		types := []string{"project", "task"}
		if one, err = svc.SyncService.CreateSync(ctx, SyncSpec{App: reg.ID, Account: accs[0].ID, Types: types,
			Filter: map[string][]string{tracker.FilterProjects: {ds.Project(1).Name}}}); err != nil {
			t.Fatal(err)
		}
		if two, err = svc.SyncService.CreateSync(ctx, SyncSpec{App: reg.ID, Account: accs[1].ID, Types: types}); err != nil {
			t.Fatal(err)
		}
	}()

	child := startChildHost(t, dsn)
	select {
	case <-app.held:
	case <-time.After(time.Minute):
		t.Fatal("the child never reached the second sync's second task page")
	}
	child.Kill()
	app.hold.Store(false)

	st := teststore.Open(t, dsn)
	svc, err := New(ctx, Config{Store: st, Key: killKey, HostID: "host-after", LeaseTTL: 20 * time.Second, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mid, err := svc.SyncService.Sync(ctx, two.ID)
	if err != nil || mid.RunID == "" || mid.LeaseOwner != "host-child" {
		t.Fatalf("the killed host's sync: %+v %v", mid, err)
	}
	schedule(t, svc)
	r2 := lastRun(t, svc, two.ID, 0)
	if r2.Status != StatusSucceeded || r2.ID != mid.RunID || r2.Owner != "host-after" || r2.Report == nil || !r2.Report.Resumed {
		t.Fatalf("the run taken over: %+v", r2)
	}
	if r1 := lastRun(t, svc, one.ID, 0); r1.Status != StatusSucceeded {
		t.Fatalf("the first sync's run: %+v", r1)
	}
	p1, all := liveTasks(ds, 1), liveTasks(ds, 0)
	check := func(when string) {
		t.Helper()
		if got := teststore.Count(t, st, "tracker/task"); got != p1 {
			t.Errorf("%s: the first sync holds %d tasks, want %d", when, got, p1)
		}
		if got := teststore.Count(t, st, "tracker-2/task"); got != all {
			t.Errorf("%s: the second sync holds %d tasks, want %d", when, got, all)
		}
	}
	check("after the take-over")
	for _, sy := range []*Sync{one, two} {
		if r := runNow(t, svc, sy.ID); r.Status != StatusSucceeded {
			t.Fatalf("the next run: %+v", r)
		}
	}
	check("the next runs")
}
