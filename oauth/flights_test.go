package oauth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Every caller is inside do while the one call is blocked: synctest.Wait
// returns once all of them are blocked (on the call or on its result), with
// no sleep and no guess of how long that takes.
func TestFlightsShareOneCall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testFlightsShareOneCall)
}

func testFlightsShareOneCall(t *testing.T) {
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
	for range n {
		wg.Go(func() {
			out, err := f.do(t.Context(), "k", fn)
			if err != nil || out["access_token"] != "new" {
				t.Errorf("do = %v, %v", out, err)
			}
		})
	}
	synctest.Wait()
	if c := calls.Load(); c != 1 {
		t.Fatalf("with %d callers blocked, fn ran %d times, want 1", n, c)
	}
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
	t.Parallel()
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
	t.Parallel()
	var f flights
	ok := func(context.Context) (map[string]any, time.Time, error) { return map[string]any{}, time.Time{}, nil }
	for i := range maxRecent + 10 {
		_, _ = f.do(t.Context(), string(rune(i)), ok)
	}
	if len(f.recent) > maxRecent {
		t.Fatalf("%d remembered results, want at most %d", len(f.recent), maxRecent)
	}
}

// TestClock is a clock a test moves by hand (exported for the package's
// external tests).
type TestClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewTestClock is a TestClock at t.
func NewTestClock(t time.Time) *TestClock { return &TestClock{t: t} }

// Now is the clock's time.
func (c *TestClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *TestClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// The reuse window is for the retry of a validation whose answer was lost;
// longer, it would hand out revoked tokens and hide refresh token reuse
// from the provider. A refreshed token answers a retry for up to a minute
// (never past its own expiry), and a refresh after that reaches the
// provider again.
func TestFlightsReuseWindowIsShort(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name        string
		expiry      time.Time     // of the refreshed token; zero: not known
		reused, new time.Duration // after the refresh: still answered from memory, refreshed again
	}{
		{"expiry unknown", time.Time{}, time.Minute - time.Millisecond, time.Minute},
		{"expiry far away", t0.Add(time.Hour), time.Minute - time.Millisecond, time.Minute},
		{"token expires within the window", t0.Add(10 * time.Second), 10*time.Second - time.Millisecond, 10 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clock := NewTestClock(t0)
			f := flights{now: clock.Now}
			var calls atomic.Int32
			refresh := func(context.Context) (map[string]any, time.Time, error) {
				n := calls.Add(1)
				return map[string]any{"access_token": fmt.Sprint("token-", n)}, c.expiry, nil
			}
			validate := func() any {
				t.Helper()
				// As OAuth2.Validate does: the remembered result first, then a
				// refresh (shared with concurrent callers).
				if out, ok := f.lookup("k"); ok {
					return out["access_token"]
				}
				out, err := f.do(t.Context(), "k", refresh)
				if err != nil {
					t.Fatal(err)
				}
				return out["access_token"]
			}
			if got := validate(); got != "token-1" {
				t.Fatalf("first validation answered %v", got)
			}
			// A retry within the window gets the same token, from lookup and
			// from do alike, without asking the provider.
			clock.Set(t0.Add(c.reused))
			if got := validate(); got != "token-1" {
				t.Fatalf("retry %s after the refresh answered %v, want the refreshed token-1", c.reused, got)
			}
			if out, err := f.do(t.Context(), "k", refresh); err != nil || out["access_token"] != "token-1" {
				t.Fatalf("do %s after the refresh = %v, %v; want token-1 from memory", c.reused, out, err)
			}
			if n := calls.Load(); n != 1 {
				t.Fatalf("%d provider calls within the window, want 1", n)
			}
			// At the end of the window the provider is asked again.
			clock.Set(t0.Add(c.new))
			if _, ok := f.lookup("k"); ok {
				t.Fatalf("lookup %s after the refresh still answers from memory", c.new)
			}
			if got := validate(); got != "token-2" {
				t.Fatalf("validation %s after the refresh answered %v, want a new refresh (token-2)", c.new, got)
			}
		})
	}
}
