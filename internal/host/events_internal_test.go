package host

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// The event gate: an event takes its room before the app is called and
// gives it back unless refused; an address has eventsPerAddress events
// in flight at most, a sync eventsPerSync from all addresses; refused
// events empty the address's bucket, which refills with time.
func TestEventGate(t *testing.T) {
	t.Parallel()
	clock := &testClock{t: time.Unix(1_700_000_000, 0)}
	g := newEventGate(clock.now)

	// In flight per address: the next one waits, another address passes.
	var held []func(bool)
	for i := range eventsPerAddress {
		rel, _, why := g.admit("10.0.0.1", fmt.Sprintf("sync-%d", i))
		if rel == nil {
			t.Fatalf("event %d of one address: %s", i, why)
		}
		held = append(held, rel)
	}
	if rel, retry, why := g.admit("10.0.0.1", "sync-x"); rel != nil || retry <= 0 || why == "" {
		t.Fatalf("event %d of one address at once was admitted", eventsPerAddress+1)
	}
	// Accepted events give their room back: the address's bucket is full
	// again once they end.
	for _, rel := range held {
		rel(false)
		rel(true) // a second release changes nothing
	}
	if b := g.addrs["10.0.0.1"]; b.tokens != eventBurst || b.inFlight != 0 || len(g.syncs) != 0 {
		t.Fatalf("after accepted events: %+v, syncs %v", b, g.syncs)
	}

	// In flight per sync, from many addresses.
	held = held[:0]
	for i := range eventsPerSync {
		rel, _, why := g.admit(fmt.Sprintf("10.0.1.%d", i), "busy")
		if rel == nil {
			t.Fatalf("event %d of one sync: %s", i, why)
		}
		held = append(held, rel)
	}
	if rel, _, _ := g.admit("10.0.2.1", "busy"); rel != nil {
		t.Fatalf("event %d of one sync at once was admitted", eventsPerSync+1)
	}
	if rel, _, why := g.admit("10.0.2.1", "other"); rel == nil {
		t.Fatalf("another sync's event: %s", why)
	} else {
		rel(false)
	}
	for _, rel := range held {
		rel(false)
	}

	// Refused events count: eventBurst of them, then none until the
	// bucket refills.
	for i := range eventBurst {
		rel, _, why := g.admit("10.0.3.1", "s")
		if rel == nil {
			t.Fatalf("refused event %d: %s", i+1, why)
		}
		rel(true)
	}
	rel, retry, _ := g.admit("10.0.3.1", "s")
	if rel != nil || retry != time.Second {
		t.Fatalf("an event after %d refused ones: admitted %v, retry %v", eventBurst, rel != nil, retry)
	}
	clock.advance(time.Second)
	if rel, _, why := g.admit("10.0.3.1", "s"); rel == nil {
		t.Fatalf("after a second: %s", why)
	} else {
		rel(true)
	}
	if rel, _, _ := g.admit("10.0.3.1", "s"); rel != nil {
		t.Fatal("the refilled event was not counted")
	}
}
