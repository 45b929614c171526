package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/appkitgo/appkit/internal/testkit"
)

// eachEngine runs test on an open store of every engine of
// testkit.StoreDSNs, as parallel subtests (this package's tests cannot use
// teststore, which imports it).
func eachEngine(t *testing.T, test func(t *testing.T, s *Store)) {
	t.Helper()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		s, err := Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		test(t, s)
	})
}

// One suite for the driver interface, run over every engine: the bulk
// insert and upsert (with more rows than one statement takes), a refused
// value that leaves the transaction usable, a duplicate id refused, and the
// catalog lock statement.
func TestDriverConformance(t *testing.T) {
	eachEngine(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if s.drv.Name() != s.dialect.Name() {
			t.Fatalf("driver %s on a %s store", s.drv.Name(), s.dialect.Name())
		}
		text, num := SQLType(s.dialect, TText), SQLType(s.dialect, TDecimal)
		if _, err := s.db.ExecContext(ctx, "CREATE TABLE drv (id "+text+" PRIMARY KEY, created BIGINT NOT NULL, modified BIGINT NOT NULL, name "+text+", amount "+num+", done "+SQLType(s.dialect, TBool)+")"); err != nil {
			t.Fatal(err)
		}
		cols := []string{"id", "created", "modified", "name", "amount", "done"}
		const n = 2500 // more than bulkChunk(6) rows
		id := func(i int) string { return fmt.Sprintf("00000000-0000-7000-8000-%012d", i) }
		write := func(fn func(tx *Tx) error) error { return s.Write(ctx, fn) }

		// insertRows: every row, every value.
		err := write(func(tx *Tx) error {
			return s.drv.insertRows(tx, "drv", cols, n, func(i int, dst []any) []any {
				return append(dst, id(i), int64(i), int64(i), fmt.Sprint("row ", i), "12.50", i%2 == 0)
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		var count, created int64
		var sum string
		if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(created), CAST(SUM(CAST(amount AS REAL)) AS TEXT) FROM drv").Scan(&count, &created, &sum); err != nil {
			t.Fatal(err)
		}
		if count != n || created != n*(n-1)/2 || (sum != "31250.0" && sum != "31250") {
			t.Fatalf("after insert: %d rows, created sum %d, amount sum %s", count, created, sum)
		}

		// Lookups by key, in more than one chunk: the rows that exist.
		err = write(func(tx *Tx) error {
			keys := make([]string, 0, n+10)
			for i := range n + 10 {
				keys = append(keys, id(i))
			}
			got := map[string]string{}
			if err := tx.queryKeys("SELECT id, name FROM drv WHERE %s", "id", keys, func(k, v string) { got[k] = v }); err != nil {
				return err
			}
			if len(got) != n || got[id(0)] != "row 0" || got[id(n-1)] != fmt.Sprint("row ", n-1) {
				t.Errorf("queryKeys found %d rows (%q, %q), want %d", len(got), got[id(0)], got[id(n-1)], n)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}

		// upsertRows: an existing row keeps its created and takes the
		// rest; a new row is inserted.
		err = write(func(tx *Tx) error {
			return s.drv.upsertRows(tx, "drv", cols, 2, func(i int, dst []any) []any {
				return append(dst, id(i*n), int64(-1), int64(99), "new", nil, true)
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id                string
			created, modified int64
		}{{id(0), 0, 99}, {id(n), -1, 99}} {
			var cr, mo int64
			var nm string
			var amount *string
			if err := s.db.QueryRowContext(ctx, s.dialect.Rebind("SELECT created, modified, name, amount FROM drv WHERE id = ?"), c.id).Scan(&cr, &mo, &nm, &amount); err != nil {
				t.Fatal(err)
			}
			if cr != c.created || mo != c.modified || nm != "new" || amount != nil {
				t.Errorf("after upsert %s: created %d modified %d name %q amount %v", c.id, cr, mo, nm, amount)
			}
		}

		// A refused value fails the call with NameInvalidValue and leaves
		// the transaction usable.
		err = write(func(tx *Tx) error {
			err := s.drv.insertRows(tx, "drv", cols, 1, func(i int, dst []any) []any {
				return append(dst, id(n+1), int64(0), int64(0), "nul \x00", nil, nil)
			})
			var se *Error
			if !errors.As(err, &se) || se.Name != NameInvalidValue {
				t.Errorf("NUL text: %v, want NameInvalidValue", err)
			}
			return s.drv.insertRows(tx, "drv", cols, 1, func(i int, dst []any) []any {
				return append(dst, id(n+2), int64(0), int64(0), "fine", nil, nil)
			})
		})
		if err != nil {
			t.Fatalf("the transaction after a refused value: %v", err)
		}

		// A row that exists is refused by insertRows, and nothing of
		// the call is written.
		err = write(func(tx *Tx) error {
			return s.drv.insertRows(tx, "drv", cols, 2, func(i int, dst []any) []any {
				return append(dst, id(n+3-i), int64(0), int64(0), "dup", nil, nil)
			})
		})
		if err == nil {
			t.Error("insertRows of an existing id succeeded")
		}
		if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM drv").Scan(&count); err != nil || count != n+2 {
			t.Errorf("%d rows (%v), want %d", count, err, n+2)
		}

		// Writes to the catalog are locked where processes share it.
		if q := s.drv.lockCatalogSQL(true, true); q == "" {
			t.Error("a schema change does not read the catalog version")
		}
	})
}
