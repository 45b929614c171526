package apps

import (
	"context"
	"database/sql"

	"github.com/appkitgo/appkit/internal/store"
)

// The fixed SQL of the service, one small typed function per statement,
// over the tables the store's migrations make (apps_apps, apps_accounts,
// apps_oauth, apps_actions, apps_syncs, apps_runs, apps_events). Service
// files hold the logic and call these; no other file of the package writes
// SQL. Times are Unix milliseconds (ms); the functions return the
// database's errors as they are (sql.ErrNoRows where a row is missing)
// unless they say otherwise, and their callers say what failed.

// execer is what the statements run on: the store's database or one of
// its transactions.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queries runs the service's statements on db, rebound for d.
type queries struct {
	db execer
	d  store.Dialect
}

// on returns the service's statements run on db (s.db or a transaction).
func (s *core) on(db execer) queries { return queries{db: db, d: s.d} }

func (q queries) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return q.db.ExecContext(ctx, q.d.Rebind(query), args...)
}

func (q queries) row(ctx context.Context, query string, args ...any) *sql.Row {
	return q.db.QueryRowContext(ctx, q.d.Rebind(query), args...)
}

func (q queries) rows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return q.db.QueryContext(ctx, q.d.Rebind(query), args...)
}
