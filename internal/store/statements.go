package store

import (
	"context"
	"database/sql"
)

// DB is what a service's fixed statements run on: the store's database
// ([Store.DB]) or one of its transactions (*sql.Tx).
type DB interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Statements runs a service's fixed SQL, written with ? placeholders, on
// DB, rebound for the store's Dialect. A service embeds it in the type
// that carries its small typed statements, one file of them per service
// (internal/apps and internal/auth: queries.go). Every value is bound.
type Statements struct {
	DB      DB
	Dialect Dialect
}

// Exec runs a statement that returns no rows.
func (s Statements) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.DB.ExecContext(ctx, s.Dialect.Rebind(query), args...)
}

// Row runs a query that returns at most one row.
func (s Statements) Row(ctx context.Context, query string, args ...any) *sql.Row {
	return s.DB.QueryRowContext(ctx, s.Dialect.Rebind(query), args...)
}

// Rows runs a query that returns rows (read them with [ScanAll]).
func (s Statements) Rows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return s.DB.QueryContext(ctx, s.Dialect.Rebind(query), args...)
}
