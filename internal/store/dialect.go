package store

import (
	"strconv"
	"strings"
)

// Dialect hides the differences between the SQL engines the store runs on.
// Code outside the store writes SQL with ? placeholders and calls Rebind.
type Dialect interface {
	// Name is "sqlite" or "postgres".
	Name() string
	// Rebind turns ? placeholders into $1..$n for postgres; identity for sqlite.
	// It skips ? inside single-quoted string literals.
	Rebind(query string) string
}

// SQLite is the dialect of the embedded store (modernc.org/sqlite).
var SQLite Dialect = sqliteDialect{}

// Postgres is the dialect of the shared store (github.com/jackc/pgx/v5).
var Postgres Dialect = postgresDialect{}

type sqliteDialect struct{}

func (sqliteDialect) Name() string               { return "sqlite" }
func (sqliteDialect) Rebind(query string) string { return query }

type postgresDialect struct{}

func (postgresDialect) Name() string { return "postgres" }

func (postgresDialect) Rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	inQuote := false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'':
			inQuote = !inQuote
			b.WriteByte(c)
		case c == '?' && !inQuote:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// IsPostgres reports whether d is the PostgreSQL dialect.
func IsPostgres(d Dialect) bool { return d != nil && d.Name() == "postgres" }
