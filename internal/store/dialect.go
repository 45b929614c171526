package store

import (
	"strconv"
	"strings"
)

// Dialect hides the differences between the SQL engines the store runs on:
// one method per operation whose SQL differs, implemented once per engine
// (dialect_sqlite.go, dialect_postgres.go). Code outside the store writes
// SQL with ? placeholders, calls Rebind, and asks the Dialect for every
// piece of SQL that differs instead of asking which engine it runs on.
// Expressions passed in are SQL text, written once and in order in the
// result, so the ? placeholders they hold keep their order.
type Dialect interface {
	// Name is "sqlite" or "postgres" (for logs and messages).
	Name() string
	// Rebind turns ? placeholders into $1..$n for postgres; identity for sqlite.
	// It skips ? inside single-quoted string literals.
	Rebind(query string) string

	// OffsetWithoutLimit is the clause before the OFFSET value of a query
	// with no LIMIT (" OFFSET ", or " LIMIT -1 OFFSET " where an OFFSET
	// needs a LIMIT).
	OffsetWithoutLimit() string
	// BigInt is expr (an integer SUM or COUNT) read as a 64-bit integer.
	BigInt(expr string) string
	// Float is expr (an AVG) read as a double precision number.
	Float(expr string) string
	// JSONObject is a JSON object built from members, a comma-separated
	// list of key, value expressions.
	JSONObject(members string) string
	// JSONArrayAgg aggregates expr (a JSON value) over the rows, in
	// orderBy order, into a JSON array ([] for no rows).
	JSONArrayAgg(expr, orderBy string) string
	// JSONValue is expr (a JSON sub-query or object) kept a JSON value
	// when nested in a JSON object or array.
	JSONValue(expr string) string
	// JSONText is expr (a JSON sub-query) read as a text column.
	JSONText(expr string) string
	// DecimalColumn is a decimal column as compared and sorted by number.
	DecimalColumn(col string) string
	// CastDecimal is expr (a bound value) compared as a decimal column is
	// by DecimalColumn.
	CastDecimal(expr string) string
	// DecimalAggregate is fn (SUM, AVG, MIN, MAX) of a decimal column,
	// read back as OutScalar reads a decimal.
	DecimalAggregate(fn, col string) string
	// DecimalZero is the DecimalAggregate value of no rows for SUM.
	DecimalZero() string
	// AggregatesBool reports whether MIN and MAX apply to boolean columns.
	AggregatesBool() bool
	// TextPosition is the 1-based position of needle in haystack (0 when
	// it does not occur).
	TextPosition(haystack, needle string) string
	// BlobType is the column type of binary data.
	BlobType() string
	// LockRows is the clause ending a SELECT in a write transaction that
	// locks the selected rows until the transaction ends (nothing where
	// write transactions are serialized).
	LockRows() string
	// ClaimRows is LockRows that passes over the rows another
	// transaction has locked instead of waiting for them (a queue's
	// claim).
	ClaimRows() string
	// SharedClockSQL is the query of the database's clock in Unix
	// milliseconds, which the processes sharing the database agree on;
	// "" where one process owns the database and its own clock serves.
	SharedClockSQL() string
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

// IsPostgres reports whether d is the PostgreSQL dialect. It is for the
// store's own engine implementations: code outside the store asks the
// Dialect for the SQL that differs.
func IsPostgres(d Dialect) bool { return d != nil && d.Name() == "postgres" }
