// Package sqlsync is the SQL database example app: the account holds a
// connection string (PostgreSQL or SQLite), a SQL query filter selects the
// rows, and the type's schema is inferred from the query's result columns,
// so one app synchronizes any table or join.
//
// Only reading is possible: the query must be one SELECT (or WITH, VALUES,
// TABLE) statement; it runs in a read-only transaction on a connection that
// is read-only itself (PostgreSQL: default_transaction_read_only; SQLite:
// the file opened read-only, no ATTACH), within StatementTimeout; the text
// sent is one statement as the database reads it (see [DB.Query]). Values
// are cut to MaxCellBytes in the database, a SQLite query builds or reads
// no value over MaxValueBytes, the app reads no PostgreSQL message over
// MaxMessageBytes, and a run delivers at most MaxRows rows.
package sqlsync

import (
	"context"
	"database/sql"

	"github.com/appkitgo/appkit/appkit"
)

// The bounds of a run.
const (
	// MaxRows is the most rows a run delivers; a query returning more is
	// refused (add a WHERE or a LIMIT).
	MaxRows = 10_000
	// PageSize is the most rows on one page.
	PageSize = 500
	// MaxPageBytes ends a page early once its text values reach it.
	MaxPageBytes = 4 << 20
)

// ConnectionField is the id of the account's connection string.
const ConnectionField = "connection"

// Cursor is the row pages' cursor: the number of rows already delivered.
// Every page runs the query again and skips them, so a query should ORDER
// BY its id for pages that do not overlap.
type Cursor struct {
	Offset int `json:"offset"`
}

// New declares the app over the databases of dbs.
func New(dbs *Databases) *appkit.App {
	query := appkit.HighlightTextFilter("query", "SQL query", appkit.EditorSQL)
	return &appkit.App{
		ID: "sqlsync", Name: "SQL database", Version: "1.0.0",
		Description: "Rows of a SQL query on PostgreSQL or SQLite, with the schema of its result (appkit example)",
		Website:     "https://github.com/appkitgo/appkit/tree/main/examples/sqlsync",
		Auth: []appkit.Auth{{
			ID: "database", Name: "Database connection",
			Description: "A connection string: postgres://user:password@host:5432/database or sqlite:FILE.db",
			Fields: []appkit.AuthField{{
				ID: ConnectionField, Name: "Connection string", Type: appkit.FieldText, Secret: true,
				Description: "postgres://user:password@host:5432/database?sslmode=require, or sqlite:FILE.db for a file the app serves",
			}},
			Validate: func(ctx context.Context, acc appkit.Account) (*appkit.Validation, error) {
				db, err := dbs.Open(ctx, acc.String(ConnectionField))
				if err != nil {
					return nil, appkit.InvalidAccount("%v", err)
				}
				if err := db.Ping(ctx); err != nil {
					return nil, appkit.InvalidAccount("%v", err)
				}
				return &appkit.Validation{Name: db.Target.Label}, nil
			},
		}},
		Sync: &appkit.Sync{
			Filters: []appkit.Filter{query},
			ValidateFilter: func(ctx context.Context, req *appkit.Request) error {
				q, _ := query.Get(req.Filter)
				_, _, err := columns(ctx, dbs, req.Account, q)
				return err
			},
			Types: []appkit.Type{{
				ID: "row", Name: "Rows", Default: true,
				FieldsFunc: func(ctx context.Context, req *appkit.SchemaRequest) ([]appkit.Field, error) {
					q, _ := query.Get(req.Filter)
					fields, _, err := columns(ctx, dbs, req.Account, q)
					return fields, err
				},
				Data: appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, c *Cursor) (*appkit.Page[appkit.Item, Cursor], error) {
					q, _ := query.Get(req.Filter)
					from := 0
					if c != nil {
						from = c.Offset
					}
					return page(ctx, dbs, req.Account, q, from)
				}),
			}},
		},
	}
}

// columns runs the query and infers the schema from its result columns.
func columns(ctx context.Context, dbs *Databases, acc appkit.Account, q string) ([]appkit.Field, []column, error) {
	db, err := dbs.Open(ctx, acc.String(ConnectionField))
	if err != nil {
		return nil, nil, err
	}
	var fields []appkit.Field
	var cols []column
	err = db.Query(ctx, q, func(cts []resultColumn, rows *sql.Rows) error {
		fields, cols, err = inferColumns(cts)
		if err != nil {
			return err
		}
		rows.Next() // the query runs up to its first row, and its errors show
		return nil
	})
	return fields, cols, err
}

// page runs the query and answers the rows from offset on.
func page(ctx context.Context, dbs *Databases, acc appkit.Account, q string, offset int) (*appkit.Page[appkit.Item, Cursor], error) {
	if offset < 0 || offset > MaxRows {
		return nil, appkit.BadRequest("pagination: offset %d is outside 0..%d", offset, MaxRows)
	}
	db, err := dbs.Open(ctx, acc.String(ConnectionField))
	if err != nil {
		return nil, err
	}
	p := &appkit.Page[appkit.Item, Cursor]{}
	err = db.Query(ctx, q, func(cts []resultColumn, rows *sql.Rows) error {
		_, cols, err := inferColumns(cts)
		if err != nil {
			return err
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		n, bytes := 0, 0
		for rows.Next() {
			n++
			if n <= offset {
				continue
			}
			if n > MaxRows {
				return appkit.BadRequest("query: it returns more than %d rows: narrow it down (WHERE, LIMIT)", MaxRows)
			}
			if len(p.Items) == PageSize || bytes >= MaxPageBytes {
				p.Next = &Cursor{Offset: n - 1}
				return nil
			}
			if err := rows.Scan(ptrs...); err != nil {
				return db.queryError(ctx, err)
			}
			it, err := item(cols, vals, n)
			if err != nil {
				return err
			}
			for _, v := range it {
				if s, ok := v.(string); ok {
					bytes += len(s)
				}
			}
			p.Items = append(p.Items, it)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}
