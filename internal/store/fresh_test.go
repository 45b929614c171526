package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/appkitgo/appkit/internal/apitest"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
)

// twoProcesses opens two stores on one fresh PostgreSQL schema (two host
// processes) and waits until both catalog listeners are up.
func twoProcesses(t *testing.T) (a, b *store.Store) {
	t.Helper()
	a, b = apitest.TwoProcesses(t)
	for _, st := range []*store.Store{a, b} {
		testkit.WaitUntil(t, "the listener to be up", st.CatalogListening)
	}
	return a, b
}

// twoProcessesWithTask is twoProcesses after createTask through a, once b
// sees A/Task.
func twoProcessesWithTask(t *testing.T) (a, b *store.Store) {
	t.Helper()
	a, b = twoProcesses(t)
	createTask(t, a)
	testkit.WaitUntil(t, "b to see A/Task", func() bool {
		cat, err := b.Catalog(context.Background())
		return err == nil && cat.Type("A/Task") != nil
	})
	return a, b
}

var errNoField = errors.New("no such field in this catalog")

// countPoints reads through View: the number of A/Task rows with A/points
// set, a statement built from the catalog snapshot View hands over.
func countPoints(ctx context.Context, st *store.Store, runs *int) (int, error) {
	var n int
	err := st.View(ctx, func(cat *store.Catalog) error {
		*runs++
		ty := cat.Type("A/Task")
		if ty == nil || ty.Field("A/points") == nil {
			return errNoField
		}
		return st.DB().QueryRowContext(ctx, "SELECT count(*) FROM "+ty.Table+" WHERE "+ty.Field("A/points").Col+" IS NOT NULL").Scan(&n)
	})
	return n, err
}

func hasField(st *store.Store, typ, field string) func() bool {
	return func() bool {
		cat, err := st.Catalog(context.Background())
		return err == nil && cat.Type(typ) != nil && cat.Type(typ).Field(field) != nil
	}
}

// A schema change through one process reaches the other's reads by
// notification: reads make no catalog round trip.
func TestCatalogNotified(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := twoProcesses(t)
	createTask(t, a)
	err := a.WriteSchema(ctx, func(tx *store.Tx) error {
		return tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/points", Type: store.TInt})
	})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitUntil(t, "b to see A/points", hasField(b, "A/Task", "A/points"))
	create(t, a, "A/Task", map[string]any{"A/name": "x", "A/points": 3})
	before := b.CatalogRoundTrips()
	for range 20 {
		runs := 0
		if n, err := countPoints(ctx, b, &runs); err != nil || n != 1 || runs != 1 {
			t.Fatalf("read through b: %d rows, %d runs, %v", n, runs, err)
		}
	}
	if got := b.CatalogRoundTrips() - before; got != 0 {
		t.Errorf("20 reads made %d catalog round trips, want 0", got)
	}
	if a.CatalogRoundTrips() != 0 {
		t.Errorf("a made %d catalog round trips, want 0", a.CatalogRoundTrips())
	}
}

// The window between another process's commit and its notification: a read
// that fails on the old catalog (an unknown field; a dropped column, SQLSTATE
// 42703; a dropped table, 42P01) is run again with the new one.
func TestCatalogRaceWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := twoProcessesWithTask(t)
	release := make(chan struct{})
	b.HoldNotifications(func() { <-release })
	defer func() {
		close(release)
		b.HoldNotifications(nil)
	}()
	steps := []struct {
		name   string
		change func(tx *store.Tx) error
		want   error // of the read through b
		rows   int
	}{
		{"field created", func(tx *store.Tx) error {
			if err := tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/points", Type: store.TInt}); err != nil {
				return err
			}
			_, err := tx.Create("A/Task", map[string]any{"A/name": "x", "A/points": 3})
			return err
		}, nil, 1},
		{"field deleted (column gone)", func(tx *store.Tx) error {
			return tx.DeleteField("A/Task", "A/points", true)
		}, errNoField, 0},
		{"field created again", func(tx *store.Tx) error {
			return tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/points", Type: store.TInt})
		}, nil, 0},
		{"type deleted (table gone)", func(tx *store.Tx) error {
			return tx.DeleteType("A/Task", true, true)
		}, errNoField, 0},
	}
	for _, s := range steps {
		if err := a.WriteSchema(ctx, s.change); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		trips, retries := b.CatalogRoundTrips(), b.CatalogRetries()
		runs := 0
		n, err := countPoints(ctx, b, &runs)
		if !errors.Is(err, s.want) || n != s.rows {
			t.Fatalf("%s: read through b = %d, %v; want %d, %v", s.name, n, err, s.rows, s.want)
		}
		if runs != 2 || b.CatalogRetries()-retries != 1 || b.CatalogRoundTrips()-trips != 1 {
			t.Errorf("%s: %d runs, %d retries, %d round trips; want 2, 1, 1", s.name, runs, b.CatalogRetries()-retries, b.CatalogRoundTrips()-trips)
		}
	}
}

// The listener's connection dies: reads check the version each time (and so
// see every change) until it is back, then read from memory again.
func TestCatalogListenerRecovers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := twoProcessesWithTask(t)
	release := make(chan struct{})
	b.HoldReconnect(func() { <-release })
	pid := b.ListenerPID()
	if _, err := a.DB().ExecContext(ctx, "SELECT pg_terminate_backend($1)", int64(pid)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitUntil(t, "the listener to go down", func() bool { return !b.CatalogListening() })

	trips := b.CatalogRoundTrips()
	err := a.WriteSchema(ctx, func(tx *store.Tx) error {
		return tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/points", Type: store.TInt})
	})
	if err != nil {
		t.Fatal(err)
	}
	// No notification can arrive, yet the very next read sees the field.
	for range 5 {
		runs := 0
		if n, err := countPoints(ctx, b, &runs); err != nil || n != 0 || runs != 1 {
			t.Fatalf("read while the listener is down: %d, %d runs, %v", n, runs, err)
		}
	}
	if got := b.CatalogRoundTrips() - trips; got != 5 {
		t.Errorf("5 reads without a listener made %d round trips, want 5", got)
	}

	close(release)
	b.HoldReconnect(nil)
	testkit.WaitUntil(t, "the listener to come back", func() bool { return b.CatalogListening() && b.ListenerPID() != pid })
	trips = b.CatalogRoundTrips()
	for range 5 {
		runs := 0
		if _, err := countPoints(ctx, b, &runs); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.CatalogRoundTrips() - trips; got != 0 {
		t.Errorf("5 reads with the listener back made %d round trips, want 0", got)
	}
	// And it hears changes again.
	err = a.WriteSchema(ctx, func(tx *store.Tx) error {
		return tx.RenameField("A/Task", "A/points", "A/score")
	})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitUntil(t, "b to see the rename", hasField(b, "A/Task", "A/score"))
}

// A catalog notification of another schema in the same database (another
// host's catalog) is ignored.
func TestCatalogOtherSchemaIgnored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := twoProcesses(t)
	twoProcessesWithTask(t) // another host, whose catalog changes
	trips := a.CatalogRoundTrips()
	for range 5 {
		if _, err := a.Catalog(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cat, _ := a.Catalog(ctx)
	if cat.Type("A/Task") != nil || a.CatalogRoundTrips() != trips {
		t.Errorf("a took another schema's change: %v, %d round trips", cat.TypeNames(), a.CatalogRoundTrips()-trips)
	}
}
