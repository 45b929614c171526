package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
)

// inMemory serves requests with a handler in the same goroutine: no
// sockets, so that testing/synctest's fake clock drives every wait.
type inMemory http.HandlerFunc

func (h inMemory) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	h(rec, r)
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

func memClient(h http.HandlerFunc) *upstream.Client {
	return &upstream.Client{BaseURL: "https://api.example", Auth: upstream.Bearer("token"), HTTPClient: &http.Client{Transport: inMemory(h)}}
}

// TestBackoff: the retries wait an exponential backoff with jitter: ½–1 s,
// then 1–2 s.
func TestBackoff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var at []time.Time
		c := memClient(func(w http.ResponseWriter, r *http.Request) {
			at = append(at, time.Now())
			w.WriteHeader(503)
		})
		_, err := upstream.Get[any](t.Context(), c.For(acct), "/x", nil)
		if !errors.Is(err, upstream.ErrUnavailable) || len(at) != 3 {
			t.Fatalf("%d calls, err %v", len(at), err)
		}
		for i, want := range [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}} {
			if d := at[i+1].Sub(at[i]); d < want[0] || d > want[1] {
				t.Errorf("wait %d = %v, want %v..%v", i+1, d, want[0], want[1])
			}
		}
	})
}

// TestRetryAfterOn5xx: a 503's Retry-After lengthens the wait, capped by
// MaxWait; a wait past the deadline is not made.
func TestRetryAfterOn5xx(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var at []time.Time
		c := memClient(func(w http.ResponseWriter, r *http.Request) {
			at = append(at, time.Now())
			if len(at) == 1 {
				w.Header().Set("Retry-After", "31536000") // a year
				w.WriteHeader(503)
				return
			}
			fmt.Fprint(w, `{}`)
		})
		c.MaxWait = 20 * time.Second
		if _, err := upstream.Get[any](t.Context(), c.For(acct), "/x", nil); err != nil {
			t.Fatal(err)
		}
		if d := at[1].Sub(at[0]); d != 20*time.Second {
			t.Errorf("waited %v, want MaxWait 20s", d)
		}

		at = nil
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		start := time.Now()
		_, err := upstream.Get[any](ctx, c.For(acct), "/x", nil)
		if ae := appErr(t, err); !ae.TryLater || len(at) != 1 || time.Since(start) != 0 {
			t.Errorf("with a 10s deadline: %v after %d calls and %v", err, len(at), time.Since(start))
		}
	})
}

// TestRateLimitHeadersOn5xxWithQuotaLeft: a 502 that carries the rate-limit
// headers every answer of such an upstream carries (quota left, a reset an
// hour away) is retried after the backoff, not at the reset.
func TestRateLimitHeadersOn5xxWithQuotaLeft(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var at []time.Time
		c := memClient(func(w http.ResponseWriter, r *http.Request) {
			at = append(at, time.Now())
			w.Header().Set("X-RateLimit-Remaining", "4999")
			w.Header().Set("X-RateLimit-Reset", fmt.Sprint(time.Now().Add(time.Hour).Unix()))
			if len(at) == 1 {
				w.WriteHeader(502)
				return
			}
			fmt.Fprint(w, `{}`)
		})
		if _, err := upstream.Get[any](t.Context(), c.For(acct), "/x", nil); err != nil {
			t.Fatal(err)
		}
		if d := at[1].Sub(at[0]); d > time.Second {
			t.Errorf("the retry waited %v: the reset of a limit with quota left was taken as a wait", d)
		}
	})
}

// TestTimeout: an attempt that does not answer within Timeout is retried,
// then tryLater.
func TestTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var calls int
		c := memClient(func(w http.ResponseWriter, r *http.Request) {
			calls++
			<-r.Context().Done()
		})
		c.Timeout = 5 * time.Second
		c.Retries = 1
		start := time.Now()
		_, err := upstream.Get[any](t.Context(), c.For(acct), "/slow", nil)
		if ae := appErr(t, err); !ae.TryLater || calls != 2 || !errors.Is(err, upstream.ErrUnavailable) {
			t.Fatalf("err %v after %d calls", err, calls)
		}
		if d := time.Since(start); d < 10500*time.Millisecond || d > 11*time.Second {
			t.Errorf("took %v, want two timeouts and one backoff", d)
		}

		// The handler's deadline comes first: the call ends with it, and
		// no retry is made after it.
		calls = 0
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		start = time.Now()
		_, err = upstream.Get[any](ctx, c.For(acct), "/slow", nil)
		if ae := appErr(t, err); !ae.TryLater || calls != 1 || time.Since(start) != 3*time.Second {
			t.Fatalf("inside a 3s deadline: %v after %d calls and %v", err, calls, time.Since(start))
		}
	})
}

// TestRateLimitPerAccount: each account has its own limit; a wait past the
// deadline is tryLater at once.
func TestRateLimitPerAccount(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		c := memClient(func(w http.ResponseWriter, r *http.Request) { calls.Add(1); fmt.Fprint(w, `{}`) })
		c.RateLimit, c.Burst = 1, 1 // one call a second
		start := time.Now()
		for range 3 {
			if _, err := upstream.Get[any](t.Context(), c.For(acct), "/x", nil); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("three calls of one account took %v, want 2s", d)
		}
		other := c.For(appkit.Account{"token": "another-account"})
		start = time.Now()
		if _, err := upstream.Get[any](t.Context(), other, "/x", nil); err != nil || time.Since(start) != 0 {
			t.Errorf("another account waited %v (%v)", time.Since(start), err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		_ = upstream.Get[any]
		if _, err := upstream.Get[any](ctx, other, "/x", nil); !errors.Is(err, upstream.ErrRateLimited) || !appErr(t, err).TryLater {
			t.Errorf("a wait past the deadline: %v", err)
		}
		if calls.Load() != 4 {
			t.Errorf("%d calls", calls.Load())
		}
	})
}
