package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// sqliteDriver is the embedded engine (modernc.org/sqlite): one process
// owns a database file.
type sqliteDriver struct{ sqliteDialect }

func (sqliteDriver) lockMigration(context.Context, *sql.Tx) error { return nil }

// adoptTable adds the missing columns (SQLite has no ADD COLUMN IF NOT
// EXISTS: the table's columns are read from pragma_table_info) and, as
// SQLite cannot drop a column's constraint, copies the rows of a table
// whose column is UNIQUE alone (an index of origin 'u' with that one
// column) into one made by its current CREATE.
func (sqliteDriver) adoptTable(m *migrator, t earlierTable) error {
	rows, err := m.tx.QueryContext(m.ctx, "SELECT name FROM pragma_table_info(?)", t.table)
	if err != nil {
		return err
	}
	cols, err := ScanAll(rows, scanString)
	if err != nil {
		return err
	}
	has := make(map[string]bool, len(cols))
	for _, name := range cols {
		has[name] = true
	}
	for _, c := range t.added {
		if !has[c.name] {
			if err := m.exec("ALTER TABLE " + t.table + " ADD COLUMN " + c.name + " " + c.decl); err != nil {
				return err
			}
		}
	}
	if t.notUnique == "" {
		return nil
	}
	var unique int
	if err := m.tx.QueryRowContext(m.ctx, `SELECT COUNT(*) FROM pragma_index_list(?) AS il
		WHERE il.origin = 'u' AND (SELECT COUNT(*) FROM pragma_index_info(il.name)) = 1
		AND (SELECT name FROM pragma_index_info(il.name)) = ?`, t.table, t.notUnique).Scan(&unique); err != nil {
		return err
	}
	if unique == 0 {
		return nil
	}
	for _, c := range t.added {
		if !has[c.name] {
			cols = append(cols, c.name)
		}
	}
	list := strings.Join(sortedStrings(cols), ", ")
	tmp := t.table + "_new"
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + tmp,
		strings.Replace(t.create, t.table, tmp, 1),
		"INSERT INTO " + tmp + " (" + list + ") SELECT " + list + " FROM " + t.table,
		"DROP TABLE " + t.table,
		"ALTER TABLE " + tmp + " RENAME TO " + t.table,
	} {
		if err := m.exec(q); err != nil {
			return err
		}
	}
	return nil
}

// scanString reads a row of one text column (for ScanAll).
func scanString(r RowScanner) (string, error) {
	var s string
	err := r.Scan(&s)
	return s, err
}

func (sqliteDriver) lockCatalogSQL(exclusive, haveSnapshot bool) string {
	if !exclusive && haveSnapshot {
		return "" // one process per file; writes are serialized
	}
	return "SELECT version FROM catalog_state WHERE id = 1"
}

func (sqliteDriver) notifyCatalog(*Tx) error { return nil }

func (sqliteDriver) usedColumns(*Tx, string) (int, int, error) { return 0, 0, nil }

func (sqliteDriver) insertRows(t *Tx, table string, cols []string, n int, row rowFunc) error {
	return execMultiRow(t, table, cols, n, row, "INSERT OR FAIL", "")
}

// keysIn is an IN list of placeholders, 500 at most (SQLite binds at most
// 32766 values a statement).
func (sqliteDriver) keysIn(expr string, keys []string) (string, []any) {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	return expr + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(keys)), ", ") + ")", args
}

func (sqliteDriver) keysPerQuery() int { return 500 }

func (sqliteDriver) upsertRows(t *Tx, table string, cols []string, n int, row rowFunc) error {
	return execMultiRow(t, table, cols, n, row, "INSERT", upsertTail(cols))
}

// SQLite settings of a file store (the package doc, "SQLite connections",
// says why).
const (
	// sqliteCacheKiB is the page cache of each connection.
	sqliteCacheKiB = 8 << 10
	// sqliteCheckpointPages is the WAL size (in pages) past which a
	// commit checkpoints it into the database file.
	sqliteCheckpointPages = 1000
	// sqliteJournalLimit is the size the WAL file is truncated back to
	// after a checkpoint that reset it.
	sqliteJournalLimit = 32 << 20
)

// sqliteFileDSN is the modernc.org/sqlite DSN of a database file with the
// store's settings.
func sqliteFileDSN(path string) string {
	return path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)" +
		fmt.Sprintf("&_pragma=temp_store(MEMORY)&_pragma=cache_size(-%d)&_pragma=mmap_size(0)&_pragma=wal_autocheckpoint(%d)&_pragma=journal_size_limit(%d)",
			sqliteCacheKiB, sqliteCheckpointPages, sqliteJournalLimit) +
		"&_txlock=immediate"
}

// decimalArg binds the text: decimals are TEXT columns on SQLite.
func (sqliteDriver) decimalArg(s string) any { return s }

func (sqliteDriver) preparesPerTx() bool { return true }
