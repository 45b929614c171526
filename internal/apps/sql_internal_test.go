package apps

import (
	"context"
	"database/sql"
	"testing"
)

// The tests' own statements, to read or set what the service's API does
// not show (a lease held by another host, a run left running): the
// service itself runs only queries.go's.

// q rebinds a test's statement for the store's dialect.
func (s *core) q(query string) string { return s.d.Rebind(query) }

// exec runs a test's statement on the service's database.
func (s *core) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.on(s.db).Exec(ctx, query, args...)
}

// ids runs a test's query, whose one column is an id, and returns the ids.
func (s *core) ids(ctx context.Context, query string, args ...any) ([]string, error) {
	return idList(s.on(s.db).Rows(ctx, query, args...))
}

func TestListLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ asked, want int }{
		{-1, 50}, {0, 50}, {1, 1}, {50, 50}, {999, 999}, {1000, 1000}, {1001, 50}, {1 << 40, 50},
	} {
		if got := listLimit(c.asked); got != c.want {
			t.Errorf("listLimit(%d) = %d, want %d", c.asked, got, c.want)
		}
	}
}
