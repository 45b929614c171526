package store

import (
	"context"
	"database/sql"
	"strings"
)

// driver is what differs between the SQL engines inside the store: one
// method per operation whose SQL (or protocol) differs, with one
// implementation per engine (sqliteDriver, postgresDriver), after River's
// riverdriver. Code of the store calls the driver instead of asking which
// engine it runs on.
type driver interface {
	// Dialect names the engine and rebinds placeholders.
	Dialect

	// lockMigration serializes the migration of several processes
	// opening one database at once (nothing on SQLite: one process owns
	// a file, and the migrating transaction holds its write lock).
	lockMigration(ctx context.Context, tx *sql.Tx) error

	// adoptTable brings a table of the apps service made before the
	// store's migrations to its current shape: it adds the columns it
	// lacks and drops the UNIQUE of a column that is no longer unique;
	// a table in its current shape is left as it is.
	adoptTable(m *migrator, t earlierTable) error

	// lockCatalogSQL is the statement that reads (and locks, where
	// several processes share the database) the catalog version at the
	// start of a write transaction; "" when the transaction needs no
	// check because the in-memory snapshot is current by construction.
	lockCatalogSQL(exclusive, haveSnapshot bool) string

	// notifyCatalog announces a schema change to the other processes
	// sharing the database, delivered when the transaction commits.
	notifyCatalog(t *Tx) error

	// usedColumns reports how many columns table has used on the engine
	// (dropped ones included) and the engine's own limit on them; limit
	// 0 means the engine needs no check beyond MaxTypeColumns.
	usedColumns(t *Tx, table string) (used, limit int, err error)

	// insertRows inserts n rows that do not exist yet into table (cols in
	// order; row(i, dst) appends row i's values to dst and returns it).
	// It is the bulk path of a synchronization's new entities. After an
	// error some of the rows may be written: the caller returns the error,
	// so that its transaction rolls back. (On SQLite this spares each
	// statement its statement journal, a copy of every page it changes.)
	insertRows(t *Tx, table string, cols []string, n int, row rowFunc) error

	// preparesPerTx reports whether a transaction prepares each statement
	// it runs once and reuses it (SQLite, where running a text parses it
	// each time), rather than running the text (PostgreSQL: pgx keeps its
	// own prepared statements per connection, across transactions, where a
	// statement prepared for a transaction costs a round trip to prepare
	// and another to deallocate).
	preparesPerTx() bool

	// decimalArg is the value to bind for a decimal column's text s (as
	// ScalarArg makes it): what the engine's client encodes directly.
	decimalArg(s string) any

	// keysIn is the condition that expr is one of keys, with its
	// arguments; keysPerQuery bounds len(keys).
	keysIn(expr string, keys []string) (cond string, args []any)
	keysPerQuery() int

	// upsertRows writes n rows into table: a row whose id exists gets
	// every column of cols but id and created set from the row; any
	// other row is inserted. cols starts with id, created.
	upsertRows(t *Tx, table string, cols []string, n int, row rowFunc) error
}

// rowFunc appends the values of row i to dst and returns it.
type rowFunc func(i int, dst []any) []any

// multiRowInsert is the INSERT of rows tuples of len(cols) placeholders
// into table, followed by tail.
func multiRowInsert(table string, cols []string, rows int, verb, tail string) string {
	var b strings.Builder
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	b.Grow(len(table) + 16*len(cols) + rows*(len(tuple)+2) + len(tail) + 32)
	b.WriteString(verb + " INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tuple)
	}
	b.WriteString(tail)
	return b.String()
}

// upsertTail is the ON CONFLICT clause of upsertRows: cols starts with id,
// created; every other column takes the new value.
func upsertTail(cols []string) string {
	var set strings.Builder
	for _, c := range cols[2:] {
		if set.Len() > 0 {
			set.WriteString(", ")
		}
		set.WriteString(c + " = excluded." + c)
	}
	return " ON CONFLICT (id) DO UPDATE SET " + set.String()
}

// execMultiRow runs insertRows/upsertRows as multi-row statements of at
// most bulkChunk(len(cols)) rows, each a cached prepared statement.
func execMultiRow(t *Tx, table string, cols []string, n int, row rowFunc, verb, tail string) error {
	per := bulkChunk(len(cols))
	args := make([]any, 0, min(per, n)*len(cols))
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		args = args[:0]
		for i := lo; i < hi; i++ {
			args = row(i, args)
		}
		if _, err := t.exec(multiRowInsert(table, cols, hi-lo, verb, tail), args...); err != nil {
			return err
		}
	}
	return nil
}
