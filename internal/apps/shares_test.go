package apps

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/testkit"
)

// shareWait bounds each wait of these tests for what must happen.
const shareWait = 30 * time.Second

// await waits for a value on ch, at most shareWait, and fails the test
// saying what did not happen.
func await[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(shareWait):
		t.Fatalf("%s did not happen within %s", what, shareWait)
		panic("unreachable")
	}
}

// slowNotes makes app's data calls wait until release is closed (or their
// request ends), each sent to entered as it starts; inFlight counts those
// waiting.
func slowNotes(app *fakeApp, entered chan<- struct{}, release <-chan struct{}, inFlight *atomic.Int32) {
	app.mu.Lock()
	defer app.mu.Unlock()
	app.handlers["POST "+protocol.PathData] = func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // read: the server then sees the caller go away
		inFlight.Add(1)
		defer inFlight.Add(-1)
		select {
		case entered <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		answer(200, `{"items":[{"id":"n1","name":"One"}],"synchronizationType":"full"}`)(w, r)
	}
}

// setNextAt makes a sync due at the given Unix millisecond (0: not
// scheduled), to order the claims.
func setNextAt(t *testing.T, svc *Service, syncID string, at int64) {
	t.Helper()
	if _, err := svc.core.exec(context.Background(), "UPDATE apps_syncs SET next_at = ? WHERE id = ?", at, syncID); err != nil {
		t.Fatal(err)
	}
}

// An app whose syncs are slow holds at most its share of the workers (by
// default half of them): its two syncs, due first, do not keep another
// app's sync from starting. Its second sync waits for its first while a
// worker is free: a run of the other app asked for meanwhile gets it; the
// second runs once the first has ended.
func TestSlowAppLeavesWorkersToOthers(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		svc, _ := testService(t, dsn, nil) // 2 workers, 1 per app
		sh := newShares(t, svc)
		schedule(t, svc)
		sh.awaitStart(t, "the slow app's first data call")
		await(t, "the quick app's sync starting while the slow app's syncs wait", sh.quickData)
		first := lastRun(t, svc, sh.quick.ID, 0)
		if first.Status != StatusSucceeded {
			t.Errorf("the quick app's run: %s %s", first.Status, first.Error)
		}
		// A worker is free: the slow app's second sync, due long ago, does
		// not take it; the quick app's run asked for now does.
		if _, err := svc.SyncService.RunNow(ctx, sh.quick.ID); err != nil {
			t.Fatal(err)
		}
		if n := await(t, "the quick app's run asked for while the slow app's second sync is due", sh.quickData); n != 1 {
			t.Errorf("%d of the slow app's data calls in flight, want 1 (its share)", n)
		}
		sh.releaseAll()
		sh.awaitStart(t, "the slow app's second data call")
		sh.succeeded(t, svc)
	})
}

// Due syncs of apps with no run here are claimed first: with every worker
// open to one app (MaxRunsPerApp = Workers), the second of its slow syncs,
// due before another app's, waits for that app's, then takes the worker
// that app leaves.
func TestOtherAppsClaimedFirst(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		svc, _ := testService(t, dsn, func(c *Config) { c.Workers, c.MaxRunsPerApp = 2, 2 })
		sh := newShares(t, svc)
		schedule(t, svc)
		sh.awaitStart(t, "the slow app's first data call")
		await(t, "the quick app's sync starting before the slow app's second", sh.quickData)
		sh.awaitStart(t, "the slow app's second data call, on the worker the quick app left")
		if n := sh.inFlight.Load(); n != 2 {
			t.Errorf("%d of the slow app's data calls in flight, want 2 (every worker is open to it)", n)
		}
		sh.releaseAll()
		sh.succeeded(t, svc)
	})
}

// shares is a slow app with two syncs, due first, and a quick app with one,
// due after them.
type shares struct {
	slow       []*Sync
	quick      *Sync
	entered    chan struct{} // a slow data call started
	inFlight   atomic.Int32  // the slow data calls waiting
	quickData  chan int32    // the slow data calls waiting as a quick one is made
	releaseAll func()        // lets the slow data calls answer
}

func newShares(t *testing.T, svc *Service) *shares {
	t.Helper()
	ctx := context.Background()
	sh := &shares{entered: make(chan struct{}, 4), quickData: make(chan int32, 4)}
	release := make(chan struct{})
	sh.releaseAll = sync.OnceFunc(func() { close(release) })
	t.Cleanup(sh.releaseAll) // before the apps' servers close
	slow := noteApp(t, "slow")
	slowNotes(slow, sh.entered, release, &sh.inFlight)
	sa, sacc := registerWithAccount(t, svc, slow.url)
	for range 2 {
		sy, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: sa.ID, Account: sacc.ID})
		if err != nil {
			t.Fatal(err)
		}
		sh.slow = append(sh.slow, sy)
	}
	quick := noteApp(t, "quick")
	quick.mu.Lock()
	quick.handlers["POST "+protocol.PathData] = func(w http.ResponseWriter, r *http.Request) {
		sh.quickData <- sh.inFlight.Load()
		answer(200, `{"items":[{"id":"q1","name":"Q"}],"synchronizationType":"full"}`)(w, r)
	}
	quick.mu.Unlock()
	_, sh.quick = registerWithSync(t, svc, quick.url)
	setNextAt(t, svc, sh.slow[0].ID, 1)
	setNextAt(t, svc, sh.slow[1].ID, 2)
	setNextAt(t, svc, sh.quick.ID, 3)
	return sh
}

func (sh *shares) awaitStart(t *testing.T, what string) {
	t.Helper()
	await(t, what, sh.entered)
}

// succeeded checks that the slow app's syncs' runs end succeeded.
func (sh *shares) succeeded(t *testing.T, svc *Service) {
	t.Helper()
	for _, sy := range sh.slow {
		if run := lastRun(t, svc, sy.ID, 0); run.Status != StatusSucceeded {
			t.Errorf("the slow app's sync %s: %s %s", sy.Space, run.Status, run.Error)
		}
	}
}

// Webhook events have a worker of their own: while every run worker is
// held by a slow run, an event of another sync is transformed and applied.
func TestEventsNotStarvedByRuns(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		svc, _ := testService(t, dsn, func(c *Config) { c.Workers = 1 })
		schedule(t, svc)

		// A sync synchronized once, whose webhook is installed.
		hooked := noteApp(t, "hooked")
		transformed := make(chan struct{}, 4)
		hooked.mu.Lock()
		hooked.handlers["POST "+protocol.PathWebhookVerify] = answer(200, `{"id":"wh-1"}`)
		hooked.handlers["POST "+protocol.PathWebhookXform] = func(w http.ResponseWriter, r *http.Request) {
			transformed <- struct{}{}
			answer(200, `{"data":{"note":[{"id":"n3","name":"Three","__syncAction":"SET"}]}}`)(w, r)
		}
		hooked.mu.Unlock()
		_, hookedSync := registerWithSync(t, svc, hooked.url)
		first := lastRun(t, svc, hookedSync.ID, 0)
		if first.Status != StatusSucceeded {
			t.Fatalf("the first run: %s %s", first.Status, first.Error)
		}
		if _, err := svc.core.exec(ctx, "UPDATE apps_syncs SET webhook = ?, webhook_types = ?, next_at = 0 WHERE id = ?", `{"id":"wh-1"}`, `["note"]`, hookedSync.ID); err != nil {
			t.Fatal(err)
		}

		// The only run worker held.
		slow := noteApp(t, "slow")
		entered, release := make(chan struct{}, 4), make(chan struct{})
		t.Cleanup(func() { close(release) }) // before the app's server closes
		var inFlight atomic.Int32
		slowNotes(slow, entered, release, &inFlight)
		registerWithSync(t, svc, slow.url)
		await(t, "the slow run's data call", entered)

		if out := svc.Webhooks.ReceiveEvent(ctx, hookedSync.ID, http.Header{}, []byte(`{"changed":"n3"}`)); out.Status != http.StatusAccepted {
			t.Fatalf("the event: %+v", out)
		}
		await(t, "the event's transform while the run worker is held", transformed)
		if run := lastRun(t, svc, hookedSync.ID, first.Seq); run.Trigger != TriggerWebhook || run.Status != StatusSucceeded || run.Report == nil || run.Report.Events != 1 {
			t.Errorf("the webhook run: %+v", run)
		}
		if n := inFlight.Load(); n != 1 {
			t.Errorf("the slow run's data call ended (%d in flight): it was not what held the worker", n)
		}
	})
}
