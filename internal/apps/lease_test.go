package apps

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// inProcess is a client that serves its requests with h in the calling
// goroutine, with no network: a call blocked in h is durably blocked for
// testing/synctest, whose clock then moves on.
func inProcess(h http.Handler) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if err := r.Context().Err(); err != nil {
			return nil, err
		}
		return w.Result(), nil
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// slowApp is a sync app of one type "note" whose data calls wait until
// release is closed (or their request ends); each host's data call is
// sent to started first.
type slowApp struct {
	started chan string
	release chan struct{}
}

func (a *slowApp) handler(host string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case protocol.PathDescriptor:
			answer(200, fakeDescriptor("token"))(w, r)
		case protocol.PathValidate:
			answer(200, `{"name":"Fake account"}`)(w, r)
		case protocol.PathConfig:
			answer(200, `{"types":[{"id":"note","name":"Notes"}],"filters":[]}`)(w, r)
		case protocol.PathSchema:
			answer(200, `{"note":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`)(w, r)
		case protocol.PathData:
			a.started <- host
			select {
			case <-a.release:
			case <-r.Context().Done():
				return
			}
			answer(200, `{"items":[{"id":"n1","name":"One"}],"synchronizationType":"full"}`)(w, r)
		default:
			answer(404, `{"message":"no such endpoint"}`)(w, r)
		}
	})
}

// The holder of a sync renews its lease every third of it: while its run
// goes on, the lease always has more than half of its time left, so a
// renewal that comes late (a loaded host, a slow database) still finds it
// held, and no other host claims and runs the sync beside it. A lease
// renewed only as it ends would be free for another host's poll from the
// moment it lapses until the late renewal lands.
func TestLeaseRenewedWellBeforeItEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		st := teststore.Open(t, "sqlite::memory:")
		app := &slowApp{started: make(chan string, 4), release: make(chan struct{})}
		const ttl = 30 * time.Second
		host := func(id string) *Service {
			svc, err := New(ctx, Config{Store: st, Key: bytes.Repeat([]byte{3}, KeySize), HostID: id, LeaseTTL: ttl, Poll: ttl / 10, RequestTimeout: time.Hour,
				HTTPClient: inProcess(app.handler(id)), BaseURL: "http://host.test", Logger: zerolog.Nop()})
			if err != nil {
				t.Fatal(err)
			}
			return svc
		}
		a, b := host("host-a"), host("host-b")
		_, sy := registerWithSync(t, a, "http://app.test")
		var wg sync.WaitGroup
		sctx, stop := context.WithCancel(ctx)
		defer func() { stop(); wg.Wait() }()
		wg.Go(func() { a.Scheduler.Schedule(sctx) })
		if h := <-app.started; h != "host-a" {
			t.Fatalf("%s started the run, want host-a", h)
		}
		wg.Go(func() { b.Scheduler.Schedule(sctx) })
		claimed := time.Now()
		for range 30 {
			// Inside the synctest bubble: the fake clock moves a tenth of
			// the lease at once, when every goroutine of the bubble waits.
			time.Sleep(ttl / 10)
			synctest.Wait()
			got, err := a.SyncService.Sync(ctx, sy.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.LeaseOwner != "host-a" || got.LeaseUntil == nil {
				t.Fatalf("%s after the claim: the lease is %q's, want host-a's", time.Since(claimed), got.LeaseOwner)
			}
			if left := time.Until(*got.LeaseUntil); left <= ttl/2 {
				t.Fatalf("%s after the claim the lease has %s left of %s: it was not renewed in time", time.Since(claimed), left, ttl)
			}
		}
		select {
		case h := <-app.started:
			t.Fatalf("%s started the sync that host-a runs", h)
		default:
		}
		close(app.release)
		synctest.Wait() // the run ends; both schedulers wait for their next poll
		runs, err := a.SyncService.Runs(ctx, sy.ID, 1)
		if err != nil || len(runs) != 1 {
			t.Fatalf("%d runs: %v", len(runs), err)
		}
		run := runs[0]
		if run.Status != StatusSucceeded || run.Owner != "host-a" || run.Attempts != 1 {
			t.Errorf("the run: status %s, owner %s, %d attempts; want succeeded by host-a in one", run.Status, run.Owner, run.Attempts)
		}
	})
}
