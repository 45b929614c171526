package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// keyedFixture opens a store with a type K/T of a text key, an int and a
// text field.
func keyedFixture(t *testing.T, dsn string) *store.Store {
	t.Helper()
	st := teststore.Open(t, dsn)
	createType(t, st, "K/T", []store.FieldSpec{
		{Name: "K/key", Type: store.TText}, {Name: "K/n", Type: store.TInt}, {Name: "K/note", Type: store.TText},
	})
	return st
}

// MatchByValue finds entities by a text field (exactly, not as a pattern
// or case-folded) and reads the fields asked for, empty ones as nil.
func TestMatchByValue(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		st := keyedFixture(t, dsn)
		a, b := store.NewEntityID(), store.NewEntityID()
		write(t, st, func(tx *store.Tx) error {
			ty := tx.Catalog().Type("K/T")
			_, err := tx.BulkUpsert(ty, []*store.Field{ty.Field("K/key"), ty.Field("K/n"), ty.Field("K/note")}, []store.BulkRow{
				{ID: a, Values: []any{"a-1", int64(7), "seven"}},
				{ID: b, Values: []any{"B%", nil, nil}},
			})
			return err
		})
		// Enough keys to take several statements on SQLite (500 a query).
		keys := []string{"a-1", "A-1", "B%", "B", "b%", "missing"}
		for i := range 1200 {
			keys = append(keys, "k"+strings.Repeat("x", i%7)+string(rune('a'+i%26)))
		}
		var got map[string]store.Match
		write(t, st, func(tx *store.Tx) (err error) {
			ty := tx.Catalog().Type("K/T")
			got, err = tx.MatchByValue(ty, ty.Field("K/key"), keys, ty.Field("K/n"), ty.Field("K/note"))
			return err
		})
		want := map[string]store.Match{
			"a-1": {ID: a, Values: []any{int64(7), "seven"}},
			"B%":  {ID: b, Values: []any{nil, nil}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("MatchByValue = %#v, want %#v", got, want)
		}
		write(t, st, func(tx *store.Tx) error {
			ty := tx.Catalog().Type("K/T")
			if _, err := tx.MatchByValue(ty, ty.Field("K/n"), []string{"7"}); err == nil {
				t.Error("MatchByValue on an int field: no error")
			}
			return nil
		})
	})
}

// KeyField makes an index once (the field is then Indexed, in every
// process's catalog); a field with an index can still be dropped.
func TestKeyField(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		st := keyedFixture(t, dsn)
		ctx := context.Background()
		for range 2 {
			writeSchema(t, st, func(tx *store.Tx) error { return tx.KeyField("K/T", "K/key") })
		}
		cat, err := st.Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !cat.Type("K/T").Field("K/key").Key {
			t.Fatal("K/key is not Key after KeyField")
		}
		if cat.Type("K/T").Field("K/note").Key {
			t.Fatal("K/note is Key")
		}
		err = st.Write(ctx, func(tx *store.Tx) error {
			ty := tx.Catalog().Type("K/T")
			fields := []*store.Field{ty.Field("K/key"), ty.Field("K/note")}
			_, err := tx.BulkUpsert(ty, fields, []store.BulkRow{
				{ID: store.NewEntityID(), Values: []any{"same", "a"}}, {ID: store.NewEntityID(), Values: []any{nil, "b"}},
				{ID: store.NewEntityID(), Values: []any{nil, "b"}},
			})
			return err
		})
		if err != nil {
			t.Fatalf("distinct keys and empty ones: %v", err)
		}
		err = st.Write(ctx, func(tx *store.Tx) error {
			ty := tx.Catalog().Type("K/T")
			_, err := tx.BulkUpsert(ty, []*store.Field{ty.Field("K/key")}, []store.BulkRow{{ID: store.NewEntityID(), Values: []any{"same"}}})
			return err
		})
		if err == nil {
			t.Fatal("a second entity with the same key: no error")
		}
		if err := st.WriteSchema(ctx, func(tx *store.Tx) error { return tx.KeyField("K/T", "K/note") }); err == nil {
			t.Fatal("KeyField of a field whose values repeat: no error")
		}
		err = st.WriteSchema(ctx, func(tx *store.Tx) error { return tx.KeyField("K/T", "K/nope") })
		if err == nil {
			t.Fatal("KeyField of a missing field: no error")
		}
		err = st.WriteSchema(ctx, func(tx *store.Tx) error { return tx.KeyField("K/nope", "K/key") })
		if !errors.Is(err, store.ErrTypeNotFound) {
			t.Fatalf("KeyField of a missing type: %v, want ErrTypeNotFound", err)
		}
		if err := st.WriteSchema(ctx, func(tx *store.Tx) error { return tx.DeleteField("K/T", "K/key", true) }); err != nil {
			t.Fatalf("drop a key field: %v", err)
		}
		// The index went with it: a new field may take an index again.
		err = st.WriteSchema(ctx, func(tx *store.Tx) error {
			if err := tx.CreateField(store.FieldSpec{Holder: "K/T", Name: "K/key2", Type: store.TText}); err != nil {
				return err
			}
			return tx.KeyField("K/T", "K/key2")
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// Reserved ids: the same key keeps its id until taken; taking ends the
// reservation; scopes are apart; dropping the type named by a scope ends
// its reservations.
func TestReservedIDs(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		st := keyedFixture(t, dsn)
		ctx := context.Background()
		var first, again, other map[string]string
		write(t, st, func(tx *store.Tx) (err error) {
			first, err = tx.ReserveIDs("K/T", []string{"x", "y", "x"})
			return err
		})
		if len(first) != 2 || first["x"] == "" || first["y"] == "" || first["x"] == first["y"] {
			t.Fatalf("ReserveIDs = %v, want two distinct ids", first)
		}
		write(t, st, func(tx *store.Tx) (err error) {
			if again, err = tx.ReserveIDs("K/T", []string{"y", "x", "z"}); err != nil {
				return err
			}
			other, err = tx.ReserveIDs("other", []string{"x"})
			return err
		})
		if again["x"] != first["x"] || again["y"] != first["y"] || again["z"] == "" {
			t.Fatalf("second ReserveIDs = %v, want x and y as before (%v) and a new z", again, first)
		}
		if other["x"] == first["x"] {
			t.Fatal("two scopes share a reservation")
		}
		// take ends the reservations of keys in K/T, as the engine takes
		// them when their items arrive.
		take := func(keys ...string) (taken map[string]string) {
			t.Helper()
			write(t, st, func(tx *store.Tx) (err error) {
				ty := tx.Catalog().Type("K/T")
				_, taken, err = tx.MatchOrTakeReserved(ty, ty.Field("K/key"), keys)
				return err
			})
			return taken
		}
		if taken, after := take("x", "w"), take("x"); !reflect.DeepEqual(taken, map[string]string{"x": first["x"]}) || len(after) != 0 {
			t.Fatalf("take = %v then %v, want x's id once", taken, after)
		}
		// A rolled back reservation is gone with its transaction.
		boom := errors.New("boom")
		if err := st.Write(ctx, func(tx *store.Tx) error {
			if _, err := tx.ReserveIDs("K/T", []string{"v"}); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if after := take("v"); len(after) != 0 {
			t.Fatalf("a rolled back reservation is there: %v", after)
		}
		// Dropping K/T ends its reservations (y gets a new id), not
		// another scope's (other's x keeps its own).
		writeSchema(t, st, func(tx *store.Tx) error { return tx.DeleteType("K/T", true, true) })
		var afterY, afterOther map[string]string
		write(t, st, func(tx *store.Tx) (err error) {
			if afterY, err = tx.ReserveIDs("K/T", []string{"y"}); err != nil {
				return err
			}
			afterOther, err = tx.ReserveIDs("other", []string{"x"})
			return err
		})
		if afterY["y"] == again["y"] || afterOther["x"] != other["x"] {
			t.Fatalf("after dropping K/T: y %s (was %s, want a new id), other's x %s (want %s)", afterY["y"], again["y"], afterOther["x"], other["x"])
		}
	})
}

// Two transactions setting aside an id for the same key at once agree on
// one (PostgreSQL, where the second waits on the first's row: it then
// takes the first's id rather than failing or keeping its own).
func TestReserveIDsConcurrently(t *testing.T) {
	t.Parallel()
	st := keyedFixture(t, testkit.PostgresDSN(t))
	ctx := context.Background()
	reserved, release := make(chan string), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- st.Write(ctx, func(tx *store.Tx) error {
			ids, err := tx.ReserveIDs("K/T", []string{"x"})
			if err != nil {
				close(reserved)
				return err
			}
			reserved <- ids["x"]
			<-release
			return nil
		})
	}()
	id1, ok := <-reserved
	if !ok {
		t.Fatal(<-first)
	}
	second := make(chan map[string]string, 1)
	go func() {
		var ids map[string]string
		err := st.Write(ctx, func(tx *store.Tx) (err error) {
			ids, err = tx.ReserveIDs("K/T", []string{"x"})
			return err
		})
		if err != nil {
			t.Error(err)
		}
		second <- ids
	}()
	testkit.WaitUntil(t, "the second reservation to wait on the first's row", func() bool {
		var waiting int
		err := st.DB().QueryRowContext(ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO host_reserved_ids%'").Scan(&waiting)
		return err == nil && waiting > 0
	})
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if got := <-second; got["x"] != id1 {
		t.Fatalf("second transaction reserved %q, want the first's %q", got["x"], id1)
	}
}

// On PostgreSQL, a lookup of a thousand keys probes the key's index even
// in the transaction that filled the table (no statistics yet), rather
// than reading the whole table for each page of a synchronization.
func TestMatchByValueUsesTheIndex(t *testing.T) {
	t.Parallel()
	st := keyedFixture(t, testkit.PostgresDSN(t))
	writeSchema(t, st, func(tx *store.Tx) error { return tx.KeyField("K/T", "K/key") })
	write(t, st, func(tx *store.Tx) error {
		ty := tx.Catalog().Type("K/T")
		rows := make([]store.BulkRow, 50000)
		for i := range rows {
			rows[i] = store.BulkRow{ID: store.NewEntityID(), Values: []any{fmt.Sprint("k", i), int64(i), "a note long enough to fill some pages"}}
		}
		if _, err := tx.BulkUpsert(ty, []*store.Field{ty.Field("K/key"), ty.Field("K/n"), ty.Field("K/note")}, rows); err != nil {
			return err
		}
		keys := make([]string, 1000)
		for i := range keys {
			keys[i] = fmt.Sprint("new", i)
		}
		plan, err := tx.ExplainMatch(ty, ty.Field("K/key"), keys)
		if err != nil {
			return err
		}
		if strings.Contains(plan, "Seq Scan on "+ty.Table) || !strings.Contains(plan, "Index") {
			t.Errorf("the lookup does not probe the key's index:\n%s", plan)
		}
		return nil
	})
}

// MatchOrTakeReserved answers in one statement what MatchByValue and
// taking their reservations would: entities by key, and the reservations (of the
// scope named after the type) of the keys with none, which it ends; an
// entity wins over a reservation of its key.
func TestMatchOrTakeReserved(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		st := keyedFixture(t, dsn)
		writeSchema(t, st, func(tx *store.Tx) error { return tx.KeyField("K/T", "K/key") })
		y := store.NewEntityID()
		var res map[string]string
		write(t, st, func(tx *store.Tx) (err error) {
			if res, err = tx.ReserveIDs("K/T", []string{"x", "y"}); err != nil {
				return err
			}
			if _, err := tx.ReserveIDs("other", []string{"z"}); err != nil {
				return err
			}
			ty := tx.Catalog().Type("K/T")
			_, err = tx.BulkUpsert(ty, []*store.Field{ty.Field("K/key"), ty.Field("K/n")}, []store.BulkRow{{ID: y, Values: []any{"y", int64(3)}}})
			return err
		})
		keys := []string{"x", "y", "z"}
		for i := range 1100 { // several statements on SQLite
			keys = append(keys, fmt.Sprint("k", i))
		}
		var found map[string]store.Match
		var reserved, again map[string]string
		write(t, st, func(tx *store.Tx) (err error) {
			ty := tx.Catalog().Type("K/T")
			if found, reserved, err = tx.MatchOrTakeReserved(ty, ty.Field("K/key"), keys, ty.Field("K/n")); err != nil {
				return err
			}
			_, again, err = tx.MatchOrTakeReserved(ty, ty.Field("K/key"), keys)
			return err
		})
		if want := map[string]store.Match{"y": {ID: y, Values: []any{int64(3)}}}; !reflect.DeepEqual(found, want) {
			t.Errorf("found %v, want %v", found, want)
		}
		if want := map[string]string{"x": res["x"]}; !reflect.DeepEqual(reserved, want) {
			t.Errorf("reserved %v, want %v (z is another scope's, y has an entity)", reserved, want)
		}
		if len(again) != 0 {
			t.Errorf("the reservation was not ended: %v", again)
		}
	})
}
