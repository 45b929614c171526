package oauth

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"
)

// reuseWindow is how long the result of a refresh answers later validations
// that still carry the refresh token it consumed. It exists for the retry
// of a validation whose answer was lost; it is deliberately short, since
// during it a revoked token is still handed out and the provider's
// refresh-token-reuse detection does not see the repeated use.
const reuseWindow = 60 * time.Second

// maxRecent bounds the remembered refresh results.
const maxRecent = 4096

// flights makes concurrent refreshes of one refresh token one provider call,
// and remembers each result for a short while. The call runs detached from
// the caller's cancellation (bounded by the flow's timeouts), so a client
// that gives up does not fail the others, and its result stays available to
// a retry.
type flights struct {
	mu     sync.Mutex
	calls  map[string]*flight
	recent map[string]recentResult
	// now is the clock the reuse window is measured with; nil is time.Now.
	now func() time.Time
}

func (f *flights) clock() time.Time {
	if f.now != nil {
		return f.now()
	}
	return time.Now()
}

type flight struct {
	done chan struct{}
	out  map[string]any
	err  error
}

type recentResult struct {
	out   map[string]any
	until time.Time
}

// do runs fn once for concurrent callers with the same key. fn returns the
// result and the expiry of its token (zero if unknown); a successful result
// is reused until min(now+reuseWindow, expiry).
func (f *flights) do(ctx context.Context, key string, fn func(context.Context) (map[string]any, time.Time, error)) (map[string]any, error) {
	now := f.clock()
	f.mu.Lock()
	if r, ok := f.recent[key]; ok {
		if now.Before(r.until) {
			f.mu.Unlock()
			return maps.Clone(r.out), nil
		}
		delete(f.recent, key)
	}
	c, ok := f.calls[key]
	if !ok {
		c = &flight{done: make(chan struct{})}
		if f.calls == nil {
			f.calls = map[string]*flight{}
		}
		f.calls[key] = c
		go f.run(context.WithoutCancel(ctx), key, c, fn)
	}
	f.mu.Unlock()
	select {
	case <-c.done:
		if c.err != nil {
			return nil, c.err
		}
		return maps.Clone(c.out), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("oauth2 token refresh: %w", ctx.Err())
	}
}

// lookup returns the remembered result of key, if it is still valid.
func (f *flights) lookup(key string) (map[string]any, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.recent[key]
	if !ok || !f.clock().Before(r.until) {
		return nil, false
	}
	return maps.Clone(r.out), true
}

func (f *flights) run(ctx context.Context, key string, c *flight, fn func(context.Context) (map[string]any, time.Time, error)) {
	out, exp, err := fn(ctx)
	f.mu.Lock()
	delete(f.calls, key)
	if err == nil {
		until := f.clock().Add(reuseWindow)
		if !exp.IsZero() && exp.Before(until) {
			until = exp
		}
		f.remember(key, recentResult{out: out, until: until})
	}
	c.out, c.err = out, err
	f.mu.Unlock()
	close(c.done)
}

// remember stores a result; f.mu is held.
func (f *flights) remember(key string, r recentResult) {
	if f.recent == nil {
		f.recent = map[string]recentResult{}
	}
	if len(f.recent) >= maxRecent {
		now := f.clock()
		for k, v := range f.recent {
			if !now.Before(v.until) {
				delete(f.recent, k)
			}
		}
		for k := range f.recent {
			if len(f.recent) < maxRecent {
				break
			}
			delete(f.recent, k)
		}
	}
	f.recent[key] = r
}
