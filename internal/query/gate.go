package query

import (
	"context"
	"fmt"
	"sync"
)

// DefaultQueriesPerClient is how many queries one client runs against the
// store at once by default: fewer than the connections of the smallest
// pool (4 on a SQLite file), so that one client's slow queries leave other
// clients a connection.
const DefaultQueriesPerClient = 2

// Gate bounds how many queries each client (a token's user) runs at once:
// Plan.Run waits for a slot of the client its context was admitted for
// (Admit), so one client's slow queries wait behind each other instead of
// holding every connection of the store. A context not admitted runs
// without a slot, and so does a query run in a transaction (on the
// connection the transaction holds already). A Gate is safe for concurrent
// use.
type Gate struct {
	perClient int
	// OnWait, when set before the gate is used, is called each time a query
	// waits for a slot (metrics, tests).
	OnWait func(client string)

	mu      sync.Mutex
	clients map[string]*clientSlots
}

// clientSlots is one client's running queries and its waiting ones.
type clientSlots struct {
	running int
	waiting []chan struct{}
}

// NewGate returns a gate of perClient queries per client (at least 1).
func NewGate(perClient int) *Gate {
	return &Gate{perClient: max(perClient, 1), clients: map[string]*clientSlots{}}
}

// PerClient is how many queries one client runs at once.
func (g *Gate) PerClient() int { return g.perClient }

type admissionKey struct{}

type admission struct {
	gate   *Gate
	client string
}

// Admit returns ctx admitted for client: the queries run with it take
// client's slots of g.
func (g *Gate) Admit(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, admissionKey{}, admission{gate: g, client: client})
}

// Admitted reports whether ctx was admitted through a gate.
func Admitted(ctx context.Context) bool {
	_, ok := ctx.Value(admissionKey{}).(admission)
	return ok
}

// enter takes a slot of the client ctx was admitted for, waiting for one
// while ctx lasts; release gives it back. A context not admitted takes none.
func enter(ctx context.Context) (release func(), err error) {
	a, ok := ctx.Value(admissionKey{}).(admission)
	if !ok {
		return func() {}, nil
	}
	return a.gate.Enter(ctx, a.client)
}

// Enter takes one of client's slots, waiting while ctx lasts; release gives
// it back (once).
func (g *Gate) Enter(ctx context.Context, client string) (release func(), err error) {
	g.mu.Lock()
	c := g.clients[client]
	if c == nil {
		c = &clientSlots{}
		g.clients[client] = c
	}
	if c.running < g.perClient {
		c.running++
		g.mu.Unlock()
		return g.releaser(client), nil
	}
	ready := make(chan struct{})
	c.waiting = append(c.waiting, ready)
	g.mu.Unlock()
	if g.OnWait != nil {
		g.OnWait(client)
	}
	select {
	case <-ready: // the releaser handed its slot over
		return g.releaser(client), nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		for i, w := range c.waiting {
			if w == ready {
				c.waiting = append(c.waiting[:i], c.waiting[i+1:]...)
				return nil, fmt.Errorf("query: waiting for one of the client's %d query slots: %w", g.perClient, ctx.Err())
			}
		}
		// Handed over just as ctx ended: give the slot on.
		g.release(client)
		return nil, fmt.Errorf("query: waiting for one of the client's %d query slots: %w", g.perClient, ctx.Err())
	}
}

func (g *Gate) releaser(client string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.release(client)
		})
	}
}

// release hands client's slot to its first waiting query, or frees it
// (g.mu held).
func (g *Gate) release(client string) {
	c := g.clients[client]
	if len(c.waiting) > 0 {
		next := c.waiting[0]
		c.waiting = c.waiting[1:]
		close(next)
		return
	}
	c.running--
	if c.running == 0 {
		delete(g.clients, client)
	}
}
