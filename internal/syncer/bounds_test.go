package syncer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/appkitgo/appkit/internal/syncer"
)

// cursorApp answers every data call with one page: its items and next
// cursor computed from the cursor received (nil: no items), always with
// hasNext.
func cursorApp(t *testing.T, page func(n int) (items []map[string]any, next any)) *fakeApp {
	schema := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`
	return newFakeApp(t, schema, func(c dataCall) (int, string) {
		var cur struct{ C int }
		json.Unmarshal(c.Pagination, &cur)
		items, next := page(cur.C)
		if items == nil {
			items = []map[string]any{}
		}
		b, _ := json.Marshal(map[string]any{"items": items, "synchronizationType": "full",
			"pagination": map[string]any{"hasNext": true, "nextPageConfig": next}})
		return 200, string(b)
	})
}

func oneItem(n int) []map[string]any {
	return []map[string]any{{"id": fmt.Sprint("c", n), "name": fmt.Sprint("Cursor ", n)}}
}

// A run whose app never ends is bounded: a cursor that cycles, a cursor
// that changes on empty pages, pages without end, a cursor too large and a
// run out of time each stop it with a named error; nothing of the last good
// run is removed, and a run that cannot end is dropped (the next one starts
// afresh) while one out of time is kept to be resumed.
func TestRunBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		page   func(n int) ([]map[string]any, any)
		opts   syncer.Options
		is     error
		want   string
		calls  int // at most
		resume bool
	}{
		{"cursor alternates", func(n int) ([]map[string]any, any) { return oneItem(n), map[string]any{"C": 1 - n} },
			syncer.Options{}, syncer.ErrLoop, "already sent", 4, false},
		{"cursor cycles of three", func(n int) ([]map[string]any, any) { return oneItem(n), map[string]any{"C": (n + 1) % 3} },
			syncer.Options{}, syncer.ErrLoop, "already sent", 5, false},
		{"empty pages, new cursors", func(n int) ([]map[string]any, any) { return nil, map[string]any{"C": n + 1} },
			syncer.Options{MaxEmptyPages: 5}, syncer.ErrLimit, "MaxEmptyPages", 7, false},
		{"pages without end", func(n int) ([]map[string]any, any) { return oneItem(n), map[string]any{"C": n + 1} },
			syncer.Options{MaxPages: 6}, syncer.ErrLimit, "MaxPages", 8, false},
		{"cursor too large", func(n int) ([]map[string]any, any) {
			return oneItem(n), map[string]any{"C": n + 1, "pad": strings.Repeat("p", syncer.MaxCursor)}
		}, syncer.Options{}, syncer.ErrLimit, "MaxCursor", 2, false},
		{"out of time", func(n int) ([]map[string]any, any) { return oneItem(n), map[string]any{"C": n + 1} },
			syncer.Options{MaxRunTime: time.Hour}, syncer.ErrLimit, "MaxRunTime", 6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := openStore(t)
			if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: pagedApp(t, 3, 2, nil).srv.URL}); err != nil {
				t.Fatal(err)
			}
			app := cursorApp(t, tc.page)
			opts := tc.opts
			opts.AppURL = app.srv.URL
			// A clock that moves 20 minutes a call: a run of an hour is over
			// after a few pages.
			var ticks atomic.Int64
			opts.Now = func() time.Time { return trackerNow.Add(time.Duration(ticks.Add(1)) * 20 * time.Minute) }
			_, err := syncer.Run(ctx, st, opts)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %v naming %q", err, tc.is, tc.want)
			}
			if n := len(app.dataCalls()); n > tc.calls {
				t.Errorf("%d data calls, want at most %d", n, tc.calls)
			}
			if got := names(t, rows(t, st, "fake/item")); len(got) < 3 || !reflect.DeepEqual(got[len(got)-3:], itemIDs(0, 3)) {
				t.Errorf("the last good run's items are not all there: %v", got)
			}
			before := len(app.dataCalls())
			rep, _ := syncer.Run(ctx, st, opts)
			if rep == nil || rep.Resumed != tc.resume {
				t.Fatalf("next run resumed: %+v, want %v", rep, tc.resume)
			}
			if first := app.dataCalls()[before]; (string(first.Pagination) == "null") == tc.resume {
				t.Errorf("the next run asked for %s first", first.Pagination)
			}
		})
	}
}

// Canceling the context stops a run at once, with ErrCanceled and the
// context's error, in the middle of a call to the app; nothing is removed
// and the next run resumes it.
func TestRunCanceled(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	if _, err := syncer.Run(context.Background(), st, syncer.Options{AppURL: pagedApp(t, 5, 2, nil).srv.URL}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	released := make(chan bool, 1)
	app := pagedApp(t, 3, 1, func(page, call int) (int, string, bool) {
		if page != 1 || call != 1 {
			return 0, "", false
		}
		cancel()
		return hangStatus, "", true
	})
	app.set(func(a *fakeApp) {
		data := a.data
		a.data = func(c dataCall) (int, string) {
			status, body := data(c)
			if status == hangStatus {
				select {
				case released <- c.ctx.Err() != nil:
				default:
				}
			}
			return status, body
		}
	})
	_, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
	if !errors.Is(err, syncer.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrCanceled and context.Canceled", err)
	}
	select {
	case ok := <-released:
		if !ok {
			t.Error("the hanging call was not given up by the engine")
		}
	case <-time.After(time.Minute):
		t.Fatal("the app's call never ended")
	}
	if got := names(t, rows(t, st, "fake/item")); !reflect.DeepEqual(got, itemIDs(0, 5)) {
		t.Errorf("after the canceled run: %v", got)
	}
	rep, err := syncer.Run(context.Background(), st, syncer.Options{AppURL: app.srv.URL})
	if err != nil || !rep.Resumed {
		t.Fatalf("next run: %v, %+v", err, rep)
	}
	if got := names(t, rows(t, st, "fake/item")); !reflect.DeepEqual(got, itemIDs(0, 3)) {
		t.Errorf("after the resumed run: %v", got)
	}
}

// A cancelled run returns only once its call to the app has returned, even
// when the transport takes a while to give a cancelled call up (a
// connection being torn down): nothing of a run, such as the record of its
// last call, outlives it. The app's handler is called in memory inside a
// synctest bubble: once everything else is blocked, Run must still be
// waiting for the held call, and returns after it is let go.
func TestRunReturnsAfterItsCallInFlight(t *testing.T) {
	t.Parallel()
	var cancel context.CancelFunc
	app := pagedApp(t, 3, 1, func(page, call int) (int, string, bool) {
		if page != 1 || call != 1 {
			return 0, "", false
		}
		cancel()
		return hangStatus, "", true
	})
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t)
		var ctx context.Context
		ctx, cancel = context.WithCancel(t.Context())
		defer cancel()
		slow := &slowToGiveUp{h: app.srv.Config.Handler, release: make(chan struct{})}
		done := make(chan error, 1)
		go func() {
			_, err := syncer.Run(ctx, st, syncer.Options{AppURL: "http://app.test", HTTPClient: &http.Client{Transport: slow}})
			done <- err
		}()
		synctest.Wait() // the cancelled call is held; all else waits
		select {
		case err := <-done:
			t.Fatalf("Run returned (%v) while its call to the app was still in flight", err)
		default:
		}
		close(slow.release)
		if err := <-done; !errors.Is(err, syncer.ErrCanceled) {
			t.Fatalf("err = %v, want ErrCanceled", err)
		}
		if n := slow.inFlight.Load(); n != 0 {
			t.Errorf("Run returned with %d calls to the app still in flight", n)
		}
	})
}

// slowToGiveUp serves calls with h in memory and holds a call whose context
// was cancelled until release is closed.
type slowToGiveUp struct {
	h        http.Handler
	release  chan struct{}
	inFlight atomic.Int32
}

func (s *slowToGiveUp) RoundTrip(r *http.Request) (*http.Response, error) {
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	in := r.Clone(r.Context())
	if in.Body == nil {
		in.Body = http.NoBody // as a server sees a request without a body
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, in)
	if err := r.Context().Err(); err != nil {
		<-s.release // the teardown of the cancelled call
		return nil, err
	}
	return rec.Result(), nil
}
