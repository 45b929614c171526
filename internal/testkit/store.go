// Package testkit holds fixtures shared by the host's tests.
package testkit

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"
)

// StoreDSNs returns the store DSNs a test suite runs against: "sqlite::memory:"
// always, and a fresh PostgreSQL schema when APPKIT_TEST_POSTGRES is set (the
// schema is dropped when the test ends).
func StoreDSNs(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{"sqlite": "sqlite::memory:"}
	base := os.Getenv("APPKIT_TEST_POSTGRES")
	if base == "" {
		return out
	}
	out["postgres"] = testPostgresDSN(t, base)
	return out
}

// PostgresDSN returns a fresh PostgreSQL schema's DSN, as StoreDSNs does,
// and skips the test when APPKIT_TEST_POSTGRES is not set: for tests of
// what only PostgreSQL does (two processes on one database, its plans).
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn, ok := StoreDSNs(t)["postgres"]
	if !ok {
		t.Skip("APPKIT_TEST_POSTGRES is not set")
	}
	return dsn
}

func testPostgresDSN(t testing.TB, base string) string {
	t.Helper()
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if _, err := db.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		db.Close()
		t.Fatalf("postgres: create schema: %v", err)
	}
	t.Cleanup(func() {
		db.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		db.Close()
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

// EachStore runs test once per store engine of StoreDSNs, as parallel
// subtests named by engine ("sqlite", "postgres").
func EachStore(t *testing.T, test func(t *testing.T, dsn string)) {
	t.Helper()
	eachStore(t, StoreDSNs(t), test)
}

// EachSharedStore is EachStore with SQLite in a file of the test's
// temporary directory rather than in memory, so that a child process the
// test starts opens the same store.
func EachSharedStore(t *testing.T, test func(t *testing.T, dsn string)) {
	t.Helper()
	dsns := StoreDSNs(t)
	dsns["sqlite"] = "sqlite:" + filepath.Join(t.TempDir(), "shared.db")
	eachStore(t, dsns, test)
}

func eachStore(t *testing.T, dsns map[string]string, test func(t *testing.T, dsn string)) {
	t.Helper()
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, dsn)
		})
	}
}
