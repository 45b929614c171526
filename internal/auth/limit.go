package auth

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultRate is the service's limit: 3 requests per second per token.
const DefaultRate = 3

// DefaultWorkspaceRate is the service's limit over all tokens of the
// workspace: 7 requests per second.
const DefaultWorkspaceRate = 7

// Limiter is a token bucket per key (an API token's id) plus, optionally, one
// bucket shared by all keys (the workspace limit). A bucket holds Burst
// requests and refills at Rate per second, so a client may send Burst
// requests at once and then Rate per second. A nil *Limiter allows
// everything. Buckets idle long enough to be full again are dropped (that
// forgets nothing), so the map holds only recently active keys.
type Limiter struct {
	limit  rate.Limit
	burst  int
	global *rate.Limiter
	now    func() time.Time

	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
	lastSweep time.Time
	sweepAt   int // sweep early when the map grows to this size
}

// LimiterOptions configure [NewLimiter].
type LimiterOptions struct {
	// Burst is the size of each key's bucket; 0 means ceil(rate), at least 1.
	Burst int
	// Workspace is the shared rate over all keys; 0 means none.
	Workspace float64
	// WorkspaceBurst is the shared bucket's size; 0 means ceil(Workspace).
	WorkspaceBurst int
	// Now replaces the clock (tests).
	Now func() time.Time
}

const sweepEvery = time.Minute

// NewLimiter returns a limiter of perKey requests per second per key; it
// returns nil (no limits) when perKey is 0 or negative.
func NewLimiter(perKey float64, opts LimiterOptions) *Limiter {
	if perKey <= 0 || math.IsNaN(perKey) {
		return nil
	}
	l := &Limiter{
		limit:   rate.Limit(perKey),
		burst:   opts.Burst,
		now:     opts.Now,
		buckets: map[string]*rate.Limiter{},
		sweepAt: 1024,
	}
	if l.burst <= 0 {
		l.burst = burstFor(perKey)
	}
	if l.now == nil {
		l.now = time.Now
	}
	if opts.Workspace > 0 {
		b := opts.WorkspaceBurst
		if b <= 0 {
			b = burstFor(opts.Workspace)
		}
		l.global = rate.NewLimiter(rate.Limit(opts.Workspace), b)
	}
	return l
}

func burstFor(r float64) int {
	if r >= 1<<20 {
		return 1 << 20
	}
	b := int(math.Ceil(r))
	if b < 1 {
		b = 1
	}
	return b
}

// Decision is the outcome of [Limiter.Take].
type Decision struct {
	// OK is true when the request may pass.
	OK bool
	// RetryAfter tells, for a refused request, when one would pass.
	RetryAfter time.Duration
	// Workspace is true when the shared workspace-wide bucket refused the
	// request (the key's own bucket had room); false when the key's own
	// bucket was empty.
	Workspace bool
}

// Allow takes one request from key's bucket (and the shared one). When it
// is refused, retryAfter tells when a request would pass.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	d := l.Take(key)
	return d.OK, d.RetryAfter
}

// Take takes one request from key's bucket and from the shared one, and
// tells which limit refused it. A request refused by either bucket spends
// nothing from the other: a key held back by the workspace-wide limit keeps
// its own allowance for when the workspace has room again.
func (l *Limiter) Take(key string) Decision {
	if l == nil {
		return Decision{OK: true}
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets[key]
	if !found {
		l.sweep(now)
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[key] = b
	}
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return Decision{RetryAfter: d}
	}
	if l.global != nil {
		g := l.global.ReserveN(now, 1)
		if d := g.DelayFrom(now); d > 0 {
			g.CancelAt(now)
			r.CancelAt(now)
			return Decision{RetryAfter: d, Workspace: true}
		}
	}
	return Decision{OK: true}
}

// Blocked reports, without spending anything, whether key's own bucket is
// empty, and when it will hold a request again. It is how failures are
// throttled: check Blocked before the attempt, Allow after a failure.
func (l *Limiter) Blocked(key string) (blocked bool, retryAfter time.Duration) {
	if l == nil {
		return false, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets[key]
	if !found {
		return false, 0
	}
	tokens := b.TokensAt(now)
	if tokens >= 1 {
		return false, 0
	}
	return true, time.Duration((1 - tokens) / float64(l.limit) * float64(time.Second))
}

// sweep drops full buckets, once a minute or when the map has grown; it is
// called with l.mu held.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < sweepEvery && len(l.buckets) < l.sweepAt {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, k)
		}
	}
	l.sweepAt = 2 * len(l.buckets)
	if l.sweepAt < 1024 {
		l.sweepAt = 1024
	}
}

// Burst is the size of each key's bucket.
func (l *Limiter) Burst() int {
	if l == nil {
		return 0
	}
	return l.burst
}
