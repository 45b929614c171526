package query_test

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// slowDB is a store whose queries wait for a release: a client's slow
// queries, made slow on demand.
type slowDB struct {
	db      store.Querier
	entered chan struct{}
	release chan struct{}
	n       atomic.Int32
}

func (s *slowDB) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s.n.Add(1)
	s.entered <- struct{}{}
	<-s.release
	return s.db.QueryContext(ctx, q, args...)
}

// waitFor waits for an event with a generous bound (never a measure of speed).
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}

// A client holding its share of slow queries does not hold the store: its
// next query waits for one of its own slots, and another client's query
// runs meanwhile.
func TestGateKeepsOneClientFromStarvingOthers(t *testing.T) {
	t.Parallel()
	st := teststore.Open(t, "sqlite::memory:")
	limitsFixture(t, st, 1, 2)
	plan := compile(t, st, &query.Query{From: "P/Task", Select: sel("P/name")}, nil)
	gate := query.NewGate(query.DefaultQueriesPerClient)
	waits := make(chan string, 10)
	gate.OnWait = func(client string) { waits <- client }
	slow := &slowDB{db: st.DB(), entered: make(chan struct{}), release: make(chan struct{})}
	ctx := context.Background()
	hostile := gate.Admit(ctx, "hostile")

	done := make(chan error, 10)
	for range gate.PerClient() {
		go func() { _, err := plan.Run(hostile, slow); done <- err }()
		waitFor(t, slow.entered, "slow query started")
	}
	// The hostile client's next query waits for a slot of its own...
	extraCtx, cancelExtra := context.WithCancel(hostile)
	extra := make(chan error, 1)
	go func() { _, err := plan.Run(extraCtx, slow); extra <- err }()
	if c := waitFor(t, waits, "wait"); c != "hostile" {
		t.Fatalf("%s waits", c)
	}
	// ...while another client's query runs now.
	rows, err := plan.Run(gate.Admit(ctx, "other"), st.DB())
	if err != nil || len(rows) != 2 {
		t.Fatalf("the other client's query: %d rows, %v", len(rows), err)
	}
	// A waiting query ends with its context, and never reached the store.
	cancelExtra()
	if err := waitFor(t, extra, "end of the waiting query"); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting query: %v", err)
	}
	if n := slow.n.Load(); n != int32(gate.PerClient()) {
		t.Fatalf("%d queries reached the store, want %d", n, gate.PerClient())
	}
	// Freed slots are handed on in order: the next query waits, then runs
	// once a slow one ends.
	next := make(chan error, 1)
	go func() { _, err := plan.Run(hostile, st.DB()); next <- err }()
	waitFor(t, waits, "wait")
	slow.release <- struct{}{}
	if err := waitFor(t, done, "slow query end"); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(t, next, "queued query"); err != nil {
		t.Fatal(err)
	}
	slow.release <- struct{}{}
	if err := waitFor(t, done, "slow query end"); err != nil {
		t.Fatal(err)
	}
	// Every slot is free again: PerClient queries run at once without waiting.
	for range gate.PerClient() {
		release, err := gate.Enter(ctx, "hostile")
		if err != nil {
			t.Fatal(err)
		}
		defer release()
	}
	select {
	case c := <-waits:
		t.Fatalf("%s waited with free slots", c)
	default:
	}
}

// A query in a transaction runs on the connection the transaction holds:
// it takes no slot, so a client's write waiting for a slot can never wait
// on the client's reads that wait for that connection.
func TestGateLeavesTransactionsAlone(t *testing.T) {
	t.Parallel()
	st := teststore.Open(t, "sqlite::memory:") // one connection
	limitsFixture(t, st, 1, 2)
	gate := query.NewGate(1)
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	gate.OnWait = func(client string) {
		t.Errorf("%s waited for a slot in a transaction", client)
		cancel() // it would wait for good
	}
	ctx := gate.Admit(base, "c")
	release, err := gate.Enter(context.Background(), "c") // the client's only slot, held by a read
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	err = st.Write(ctx, func(tx *store.Tx) error {
		plan, err := query.Compile(tx.Catalog(), st.Dialect(), &query.Query{From: "P/Task", Select: sel("P/name")}, nil)
		if err != nil {
			return err
		}
		rows, err := plan.Run(ctx, tx.Querier())
		if len(rows) != 2 {
			t.Errorf("%d rows", len(rows))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
