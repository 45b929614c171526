package auth

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
)

type testDB struct {
	name string
	db   *sql.DB
	d    store.Dialect
}

// testDBs opens a fresh SQLite store, and a fresh PostgreSQL schema's when
// APPKIT_TEST_POSTGRES is set (the store's migrations make the tables).
func testDBs(t *testing.T) []testDB {
	t.Helper()
	dsns := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "auth.db")}
	if dsn, ok := testkit.StoreDSNs(t)["postgres"]; ok { // a fresh schema
		dsns["postgres"] = dsn
	}
	var out []testDB
	for _, name := range []string{"sqlite", "postgres"} {
		dsn, ok := dsns[name]
		if !ok {
			continue
		}
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		out = append(out, testDB{name, st.DB(), st.Dialect()})
	}
	return out
}

func newTestService(t *testing.T, tdb testDB, now func() time.Time) *Service {
	t.Helper()
	s, err := New(context.Background(), tdb.db, tdb.d, Options{PasswordCost: 4, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
