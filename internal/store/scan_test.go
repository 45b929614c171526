package store_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

// TestScanAll: every row in order, an empty list (not nil) for none, the
// first scan error, and rows closed in each case.
func TestScanAll(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "scan.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3)`); err != nil {
		t.Fatal(err)
	}
	scanInt := func(r store.RowScanner) (int, error) {
		var n int
		err := r.Scan(&n)
		return n, err
	}
	query := func(where string) *sql.Rows {
		t.Helper()
		rows, err := db.QueryContext(ctx, "SELECT n FROM t WHERE "+where+" ORDER BY n")
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	for _, tc := range []struct {
		name  string
		where string
		scan  func(store.RowScanner) (int, error)
		want  []int
		fails bool
	}{
		{"all rows in order", "1=1", scanInt, []int{1, 2, 3}, false},
		{"no rows: empty, not nil", "n > 9", scanInt, []int{}, false},
		{"a scan fails", "1=1", func(r store.RowScanner) (int, error) {
			n, err := scanInt(r)
			if n == 2 {
				return 0, errors.New("two")
			}
			return n, err
		}, nil, true},
	} {
		rows := query(tc.where)
		got, err := store.ScanAll(rows, tc.scan)
		if (err != nil) != tc.fails || !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: ScanAll = %v, %v; want %v (error: %v)", tc.name, got, err, tc.want, tc.fails)
		}
		if inUse := db.Stats().InUse; inUse != 0 {
			t.Errorf("%s: %d connections in use: rows left open", tc.name, inUse)
			rows.Close()
		}
	}
}
