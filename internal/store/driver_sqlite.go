package store

import (
	"context"
	"database/sql"
	"fmt"
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
	return execMultiRow(t, table, cols, n, row, "")
}

func (sqliteDriver) upsertRows(t *Tx, table string, cols []string, n int, row rowFunc) error {
	return execMultiRow(t, table, cols, n, row, upsertTail(cols))
}

// SQLite settings of a file store (see the package doc, "SQLite
// connections").
const (
	// sqliteCacheKiB is the page cache of each connection.
	sqliteCacheKiB = 32 << 10
	// sqliteMmapBytes is how much of the file each connection reads
	// through a memory map instead of read calls.
	sqliteMmapBytes = 256 << 20
	// sqliteCheckpointPages is the WAL size (in pages) past which a
	// commit checkpoints it into the database file.
	sqliteCheckpointPages = 4000
	// sqliteJournalLimit is the size the WAL file is truncated back to
	// after a checkpoint that reset it.
	sqliteJournalLimit = 64 << 20
)

// sqliteFileDSN is the modernc.org/sqlite DSN of a database file with the
// store's settings.
func sqliteFileDSN(path string) string {
	return path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)" +
		fmt.Sprintf("&_pragma=cache_size(-%d)&_pragma=mmap_size(%d)&_pragma=wal_autocheckpoint(%d)&_pragma=journal_size_limit(%d)",
			sqliteCacheKiB, sqliteMmapBytes, sqliteCheckpointPages, sqliteJournalLimit) +
		"&_txlock=immediate"
}
