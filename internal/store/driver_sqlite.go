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
