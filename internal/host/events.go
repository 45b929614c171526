package host

import (
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/appkitgo/appkit/internal/httpjson"
)

// Bounds of anonymous webhook events (POST /api/apps/events/{sync}), per
// client address (see eventGate).
const (
	// eventBurst refused events an address may send at once, then
	// eventRate a second.
	eventBurst = 10
	eventRate  = 1.0
	// eventsPerAddress events of one address are handled at once at most;
	// eventsPerSync events of one sync, from all addresses together.
	eventsPerAddress = 4
	eventsPerSync    = 8
	// eventSweepAt is the number of addresses past which idle ones are
	// forgotten (a full bucket with nothing in flight forgets nothing).
	eventSweepAt = 1024
)

// eventGate admits webhook events before the app is asked to verify them.
// Each address has a bucket of eventBurst events refilled at eventRate a
// second: an event takes one from it before the app's verify is called
// (so that events sent at once cannot all reach the app before the first
// is counted) and gives it back when the event was not refused (accepted,
// a replay, or the app could not verify it now). An address with an empty
// bucket, eventsPerAddress events in flight, or whose sync has
// eventsPerSync events in flight, gets 429 without its body being read
// or the app called. It is safe for concurrent use.
type eventGate struct {
	now func() time.Time

	mu        sync.Mutex
	addrs     map[string]*eventBucket
	syncs     map[string]int
	lastSweep time.Time
}

type eventBucket struct {
	tokens   float64
	at       time.Time
	inFlight int
}

func newEventGate(now func() time.Time) *eventGate {
	if now == nil {
		now = time.Now
	}
	return &eventGate{now: now, addrs: map[string]*eventBucket{}, syncs: map[string]int{}}
}

// refill adds what the time since the bucket's last use brought.
func (b *eventBucket) refill(now time.Time) {
	if d := now.Sub(b.at); d > 0 {
		b.tokens = math.Min(eventBurst, b.tokens+d.Seconds()*eventRate)
	}
	b.at = now
}

// admit reserves room for one event of addr to syncID. It returns the
// release to call once the event is handled (refused: the event counts
// against addr), or, when there is no room, how long to wait and why.
func (g *eventGate) admit(addr, syncID string) (release func(refused bool), retry time.Duration, why string) {
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.addrs[addr]
	if b == nil {
		g.sweep(now)
		b = &eventBucket{tokens: eventBurst, at: now}
		g.addrs[addr] = b
	}
	b.refill(now)
	switch {
	case b.tokens < 1:
		return nil, time.Duration((1 - b.tokens) / eventRate * float64(time.Second)), "too many refused events from this address; try again later"
	case b.inFlight >= eventsPerAddress:
		return nil, time.Second, fmt.Sprintf("too many events from this address at once (at most %d); try again later", eventsPerAddress)
	case g.syncs[syncID] >= eventsPerSync:
		return nil, time.Second, fmt.Sprintf("too many events for this webhook at once (at most %d); try again later", eventsPerSync)
	}
	b.tokens--
	b.inFlight++
	g.syncs[syncID]++
	var once sync.Once
	return func(refused bool) {
		once.Do(func() {
			now := g.now()
			g.mu.Lock()
			defer g.mu.Unlock()
			b.inFlight--
			if g.syncs[syncID]--; g.syncs[syncID] <= 0 {
				delete(g.syncs, syncID)
			}
			if !refused {
				b.refill(now)
				b.tokens = math.Min(eventBurst, b.tokens+1)
			}
		})
	}, 0, ""
}

// sweep forgets idle addresses with full buckets, once a minute at most
// and only past eventSweepAt of them; it is called with g.mu held.
func (g *eventGate) sweep(now time.Time) {
	if len(g.addrs) < eventSweepAt || now.Sub(g.lastSweep) < time.Minute {
		return
	}
	g.lastSweep = now
	for k, b := range g.addrs {
		if b.inFlight == 0 {
			b.refill(now)
			if b.tokens >= eventBurst {
				delete(g.addrs, k)
			}
		}
	}
}

// event receives a webhook event; the app verifies it. The sender's
// address is admitted first (see eventGate): without room it gets 429
// before its body is read or the app called. Events the app refuses (401),
// for no sync (404) or otherwise refused (4xx, a body too large) count
// against the address; others give their room back. Refused events do not
// count as invalid API tokens, so a sender cannot lock the address's
// token users out.
func (a *appsAPI) event(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > maxEventBody {
		httpjson.Message(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", maxEventBody))
		return
	}
	syncID := r.PathValue("sync")
	release, retry, why := a.h.eventGate.admit(limitKey(clientIP(r)), syncID)
	if release == nil {
		tooMany(w, retry, why)
		return
	}
	refused := true
	defer func() { release(refused) }()
	body, ok := readBody(w, r, maxEventBody)
	if !ok {
		return
	}
	out := a.hooks.ReceiveEvent(r.Context(), syncID, r.Header, body)
	refused = out.Status >= 400 && out.Status < 500
	httpjson.Write(w, out.Status, map[string]any{"message": out.Message})
}
