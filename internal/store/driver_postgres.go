package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
)

// postgresDriver is the shared engine (github.com/jackc/pgx/v5): several
// host processes may use one database.
type postgresDriver struct{ postgresDialect }

func (postgresDriver) lockMigration(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLockID)); err != nil {
		return fmt.Errorf("store: migrate lock: %w", err)
	}
	return nil
}

// adoptTable adds the columns that are missing (ADD COLUMN IF NOT EXISTS)
// and drops the UNIQUE constraint by the name PostgreSQL gives a column's
// (table_column_key).
func (postgresDriver) adoptTable(m *migrator, t earlierTable) error {
	for _, c := range t.added {
		if err := m.exec("ALTER TABLE " + t.table + " ADD COLUMN IF NOT EXISTS " + c.name + " " + c.decl); err != nil {
			return err
		}
	}
	if t.notUnique == "" {
		return nil
	}
	return m.exec("ALTER TABLE " + t.table + " DROP CONSTRAINT IF EXISTS " + t.table + "_" + t.notUnique + "_key")
}

func (postgresDriver) lockCatalogSQL(exclusive, _ bool) string {
	if exclusive {
		return "SELECT version FROM catalog_state WHERE id = 1 FOR UPDATE"
	}
	return "SELECT version FROM catalog_state WHERE id = 1 FOR SHARE"
}

func (postgresDriver) notifyCatalog(t *Tx) error {
	if _, err := t.tx.ExecContext(t.ctx, "SELECT pg_notify($1, $2)", notifyChannel, notifyPayload(t.cat)); err != nil {
		return fmt.Errorf("store: notify catalog change: %w", err)
	}
	return nil
}

func (postgresDriver) usedColumns(t *Tx, table string) (int, int, error) {
	var attrs int
	if err := t.tx.QueryRowContext(t.ctx, "SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0", table).Scan(&attrs); err != nil {
		return 0, 0, err
	}
	return attrs, postgresMaxColumns, nil
}

// insertRows copies the rows into the table with COPY (binary), the
// fastest way PostgreSQL takes rows: one round trip for the page, no
// statement to parse or plan, no placeholders to bind. The rows do not
// exist (the caller looked them up in this transaction), so a plain COPY
// does what the multi-row INSERT did: a concurrent writer of the same id
// makes it fail with a unique violation, as it made the INSERT fail.
func (postgresDriver) insertRows(t *Tx, table string, cols []string, n int, row rowFunc) error {
	// All values are made and checked before the COPY starts: a refused
	// value leaves the transaction usable, as exec does.
	vals := make([]any, 0, n*len(cols))
	rows := make([][]any, n)
	for i := range n {
		lo := len(vals)
		vals = row(i, vals)
		rows[i] = vals[lo:len(vals):len(vals)]
	}
	if err := checkArgs(vals); err != nil {
		return err
	}
	err := t.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("store: copy: connection is a %T, not pgx's", dc)
		}
		_, err := c.Conn().CopyFrom(t.ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: copy into %s: %w", table, clientError(err))
	}
	return nil
}

func (postgresDriver) preparesPerTx() bool { return false }

// decimalArg hands pgx a NUMERIC value it encodes as it is. Given the
// text, pgx's COPY first tries to encode a string as a NUMERIC, fails, and
// builds an error (with fmt) before it parses the text: for each value.
func (postgresDriver) decimalArg(s string) any { return pgNumeric(s) }

// pgNumeric is a decimal's text (ScalarArg's form) bound to a NUMERIC
// column.
type pgNumeric string

// NumericValue parses the text (pgtype.NumericValuer).
func (d pgNumeric) NumericValue() (pgtype.Numeric, error) {
	var n pgtype.Numeric
	if err := n.Scan(string(d)); err != nil {
		return n, fmt.Errorf("store: decimal %q: %w", string(d), err)
	}
	return n, nil
}

// keysIn binds the keys as one text array: one statement (planned once)
// whatever their number. The array is unnested in a sub-query rather than
// tested with = ANY: the planner takes a literal array's length as the
// rows that match, and with no statistics of a table filled in the same
// transaction it then scans the whole table for a thousand keys (20–40 ms
// a page of 1,000 items at 100,000 rows, growing with the table) instead
// of probing its index a thousand times (about 1 ms).
func (postgresDriver) keysIn(expr string, keys []string) (string, []any) {
	return expr + " IN (SELECT unnest(?::text[]))", []any{keys}
}

func (postgresDriver) keysPerQuery() int { return 10000 }

func (postgresDriver) upsertRows(t *Tx, table string, cols []string, n int, row rowFunc) error {
	return execMultiRow(t, table, cols, n, row, "INSERT", upsertTail(cols))
}
