package auth

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
)

type testDB struct {
	name string
	db   *sql.DB
	d    store.Dialect
}

// testDBs opens a fresh SQLite database, and a fresh PostgreSQL schema when
// APPKIT_TEST_POSTGRES is set.
func testDBs(t *testing.T) []testDB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "auth.db")
	lite, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	out := []testDB{{"sqlite", lite, store.SQLite}}
	dsn, ok := testkit.StoreDSNs(t)["postgres"] // a fresh schema
	if !ok {
		return out
	}
	pg, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	return append(out, testDB{"postgres", pg, store.Postgres})
}

func newTestService(t *testing.T, tdb testDB, now func() time.Time) *Service {
	t.Helper()
	s, err := New(context.Background(), tdb.db, tdb.d, Options{PasswordCost: 4, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
