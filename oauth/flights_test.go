package oauth

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestFlightsShareOneCall(t *testing.T) {
	var f flights
	var calls atomic.Int32
	release := make(chan struct{})
	fn := func(context.Context) (map[string]any, time.Time, error) {
		calls.Add(1)
		<-release
		return map[string]any{"access_token": "new"}, time.Time{}, nil
	}
	const n = 8
	var wg sync.WaitGroup
	var started sync.WaitGroup
	started.Add(n)
	for range n {
		wg.Go(func() {
			started.Done()
			out, err := f.do(t.Context(), "k", fn)
			if err != nil || out["access_token"] != "new" {
				t.Errorf("do = %v, %v", out, err)
			}
		})
	}
	started.Wait()
	// Every caller is in do (or about to be) while the call is blocked.
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if c := calls.Load(); c != 1 {
		t.Fatalf("fn ran %d times, want 1", c)
	}
	// Remembered: a later call with the same key does not run fn again.
	if _, err := f.do(t.Context(), "k", fn); err != nil || calls.Load() != 1 {
		t.Fatalf("later call ran fn again (%d) or failed: %v", calls.Load(), err)
	}
}

func TestFlightsDoNotRememberFailuresOrExpiredResults(t *testing.T) {
	var f flights
	var calls atomic.Int32
	boom := errors.New("boom")
	failing := func(context.Context) (map[string]any, time.Time, error) { calls.Add(1); return nil, time.Time{}, boom }
	for range 2 {
		if _, err := f.do(t.Context(), "k", failing); !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
	}
	if calls.Load() != 2 {
		t.Fatalf("a failure was remembered: %d calls", calls.Load())
	}
	// A result whose token already expired is not reused.
	expired := func(context.Context) (map[string]any, time.Time, error) {
		calls.Add(1)
		return map[string]any{}, time.Now().Add(-time.Second), nil
	}
	calls.Store(0)
	_, _ = f.do(t.Context(), "e", expired)
	_, _ = f.do(t.Context(), "e", expired)
	if calls.Load() != 2 {
		t.Fatalf("an expired result was reused: %d calls", calls.Load())
	}
}

func TestFlightsBounded(t *testing.T) {
	var f flights
	ok := func(context.Context) (map[string]any, time.Time, error) { return map[string]any{}, time.Time{}, nil }
	for i := range maxRecent + 10 {
		_, _ = f.do(t.Context(), string(rune(i)), ok)
	}
	if len(f.recent) > maxRecent {
		t.Fatalf("%d remembered results, want at most %d", len(f.recent), maxRecent)
	}
}

// The reuse window is for the retry of a validation whose answer was lost;
// longer, it would hand out revoked tokens and hide refresh token reuse
// from the provider.
func TestFlightsReuseWindowIsShort(t *testing.T) {
	if reuseWindow > time.Minute {
		t.Fatalf("reuseWindow = %s, want at most a minute", reuseWindow)
	}
}
