package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The SQL of the embedded engine (modernc.org/sqlite) for the operations
// of [Dialect]. Decimals are stored as text and compared as REAL; JSON
// values are text that json() marks as JSON.

func (sqliteDialect) OffsetWithoutLimit() string { return " LIMIT -1 OFFSET " }

func (sqliteDialect) BigInt(expr string) string { return expr }

func (sqliteDialect) Float(expr string) string { return expr }

func (sqliteDialect) JSONObject(members string) string { return "json_object(" + members + ")" }

func (sqliteDialect) JSONArrayAgg(expr, orderBy string) string {
	return "json_group_array(" + expr + " ORDER BY " + orderBy + ")"
}

func (sqliteDialect) JSONValue(expr string) string { return "json(" + expr + ")" }

func (sqliteDialect) JSONText(expr string) string { return expr }

func (sqliteDialect) DecimalColumn(col string) string { return "CAST(" + col + " AS REAL)" }

func (sqliteDialect) CastDecimal(expr string) string { return "CAST(" + expr + " AS REAL)" }

func (sqliteDialect) DecimalAggregate(fn, col string) string {
	return fn + "(CAST(" + col + " AS REAL))"
}

func (sqliteDialect) DecimalZero() string { return "0" }

func (sqliteDialect) AggregatesBool() bool { return true }

func (sqliteDialect) TextPosition(haystack, needle string) string {
	return "instr(" + haystack + ", " + needle + ")"
}

// LockRows is empty: write transactions are serialized.
func (sqliteDialect) LockRows() string { return "" }

// ClaimRows is empty: write transactions are serialized.
func (sqliteDialect) ClaimRows() string { return "" }

// SharedClockSQL is empty: one process owns a database file.
func (sqliteDialect) SharedClockSQL() string { return "" }

func (sqliteDialect) BlobType() string { return "BLOB" }

// LockSchemaTx takes no lock: one process owns a database file.
func (sqliteDialect) LockSchemaTx(context.Context, *sql.Tx, int64) error { return nil }

// LockSchema takes no lock (and no connection: an in-memory database has
// one).
func (sqliteDialect) LockSchema(context.Context, *sql.DB, int64) (func(), error) {
	return func() {}, nil
}

// DropColumnUnique copies the table: SQLite cannot drop a column
// constraint. A UNIQUE of the column alone shows as an index of origin 'u'
// with one column.
func (sqliteDialect) DropColumnUnique(ctx context.Context, conn *sql.Conn, table, column, create, columns string) error {
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_index_list(?) AS il
		WHERE il.origin = 'u' AND (SELECT COUNT(*) FROM pragma_index_info(il.name)) = 1
		AND (SELECT name FROM pragma_index_info(il.name)) = ?`, table, column).Scan(&n); err != nil {
		return fmt.Errorf("store: drop unique of %s.%s: %w", table, column, err)
	}
	if n == 0 {
		return nil
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: drop unique of %s.%s: %w", table, column, err)
	}
	defer tx.Rollback()
	tmp := table + "_new"
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + tmp,
		strings.Replace(create, table, tmp, 1),
		"INSERT INTO " + tmp + " (" + columns + ") SELECT " + columns + " FROM " + table,
		"DROP TABLE " + table,
		"ALTER TABLE " + tmp + " RENAME TO " + table,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("store: drop unique of %s.%s: %w", table, column, err)
		}
	}
	return tx.Commit()
}
