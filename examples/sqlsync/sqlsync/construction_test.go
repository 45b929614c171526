package sqlsync

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/appkitgo/appkit/appkit"
)

// demoDB opens the seeded demo database the way the app does.
func demoDB(t *testing.T) (*Databases, *DB, string) {
	t.Helper()
	dir := t.TempDir()
	if err := SeedDemo(context.Background(), filepath.Join(dir, DemoFile)); err != nil {
		t.Fatal(err)
	}
	dbs := &Databases{SQLiteDir: dir}
	t.Cleanup(func() { dbs.Close() })
	db, err := dbs.Open(context.Background(), "sqlite:"+DemoFile)
	if err != nil {
		t.Fatal(err)
	}
	return dbs, db, dir
}

func countCustomers(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.db.QueryRowContext(context.Background(), "SELECT count(*) FROM customers").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Without CheckStatement, a text of several statements never runs its
// second: SQLite's tokenizer finds the statement's end, whatever the
// quoting tricks (the [a'] identifier fooled the old lexer).
func TestRun_sqliteOneStatementByConstruction(t *testing.T) {
	t.Parallel()
	_, db, dir := demoDB(t)
	copyPath := filepath.Join(dir, "copy.db")
	for _, q := range []string{
		"SELECT 1 AS id, 'x' AS name; COMMIT; VACUUM INTO '" + copyPath + "'",
		"SELECT 1 AS [a'], 'x' AS name, 2 AS id; COMMIT; VACUUM INTO '" + copyPath + "'; --'",
		"SELECT 1 AS id, 'x' AS name) AS s; COMMIT; VACUUM INTO '" + copyPath + "'; SELECT * FROM (SELECT 1",
		"SELECT 1 AS id, 'x' AS name /* ; */; COMMIT; PRAGMA query_only=0; ATTACH 'file:" + copyPath + "?mode=rwc' AS w; CREATE TABLE w.t(x)",
	} {
		err := db.run(context.Background(), q, func([]resultColumn, *sql.Rows) error { return nil })
		var he *appkit.Error
		if !errors.As(err, &he) || !strings.Contains(err.Error(), "more than one statement") {
			t.Errorf("%q: %v, want a 400 naming more than one statement", q, err)
		}
	}
	if _, err := os.Stat(copyPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a second statement ran: %s exists (%v)", copyPath, err)
	}
	if n := countCustomers(t, db); n != DemoCustomers {
		t.Errorf("%d customers, want %d", n, DemoCustomers)
	}
	// A ';' inside strings, identifiers and comments is no statement end.
	q := "SELECT 1 AS id, ';' AS name, 'a;b' AS [note] /* ; */ -- ;\n"
	if err := db.run(context.Background(), q, func([]resultColumn, *sql.Rows) error { return nil }); err != nil {
		t.Errorf("%q: %v", q, err)
	}
}

// No statement on the app's SQLite connections can attach a file, so none
// gets a second, writable handle on the served database or creates one.
func TestConn_sqliteRefusesAttach(t *testing.T) {
	t.Parallel()
	_, db, dir := demoDB(t)
	conn, err := db.conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, target := range []string{filepath.Join(dir, "new.db"), filepath.Join(dir, DemoFile)} {
		_, err := conn.ExecContext(context.Background(), "ATTACH DATABASE 'file:"+target+"?mode=rwc' AS w")
		if err == nil {
			t.Errorf("ATTACH %s succeeded", target)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ATTACH created a file (%v)", err)
	}
	if _, err := conn.ExecContext(context.Background(), "DELETE FROM customers"); err == nil {
		t.Error("a DELETE on the read-only connection succeeded")
	}
}

// On PostgreSQL the server itself refuses a text of several commands: the
// app never uses the simple protocol.
func TestRun_postgresOneStatementByConstruction(t *testing.T) {
	t.Parallel()
	dsn := os.Getenv("APPKIT_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("APPKIT_TEST_POSTGRES is not set")
	}
	dbs := &Databases{}
	defer dbs.Close()
	db, err := dbs.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	// A ')' that closes the app's SELECT around the query, and E'\'' (which
	// fooled the old lexer: the ';' after it looked quoted).
	q := `SELECT 1 AS id, E'\'' AS name) AS s; SELECT pg_advisory_lock(42); SELECT * FROM (SELECT 1`
	err = db.run(context.Background(), q, func([]resultColumn, *sql.Rows) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "multiple commands") {
		t.Errorf("%q: %v, want the server's refusal of multiple commands", q, err)
	}
}

// A value far over MaxCellBytes is cut in the database: the app never
// reads it whole. (On SQLite a stored value stays under MaxValueBytes:
// one over it is refused, TestQuery_valueBoundSQLite.)
func TestPage_bigValueCutInTheQuery(t *testing.T) {
	const bound = 1 << 20 // the app's allocations for one row of two values of ~1 MiB (SQLite) or 4 MiB (PostgreSQL)
	big := map[string]string{
		"sqlite":   "SELECT 1 AS id, 'n' AS name, big, blob FROM bigvalues",
		"postgres": "SELECT 1 AS id, 'n' AS name, repeat('x', 4194304) AS big, decode(repeat('ff', 4194304), 'hex') AS blob",
	}
	conns := map[string]string{"postgres": os.Getenv("APPKIT_TEST_POSTGRES")}
	dbs, _, dir := demoDB(t)
	conns["sqlite"] = "sqlite:" + DemoFile
	// The values are stored (computed once here, outside the app's query
	// timeout): the query only reads them.
	rw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DemoFile))
	if err != nil {
		t.Fatal(err)
	}
	_, err = rw.ExecContext(context.Background(), "CREATE TABLE bigvalues (big TEXT, blob BLOB); INSERT INTO bigvalues VALUES (hex(zeroblob(500000)), randomblob(1000000))")
	rw.Close()
	if err != nil {
		t.Fatal(err)
	}
	for engine, q := range big {
		t.Run(engine, func(t *testing.T) {
			if conns[engine] == "" {
				t.Skip("APPKIT_TEST_POSTGRES is not set")
			}
			acc := appkit.Account{ConnectionField: conns[engine]}
			if _, err := page(context.Background(), dbs, acc, "SELECT 1 AS id, 'warm' AS name", 0); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p, err := page(context.Background(), dbs, acc, q, 0)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Items) != 1 {
				t.Fatalf("%d items", len(p.Items))
			}
			for _, f := range []string{"big", "blob"} {
				s, _ := p.Items[0][f].(string)
				if len(s) > MaxCellBytes || !strings.HasSuffix(s, "…") {
					t.Errorf("%s: %d bytes, want at most %d ending in …", f, len(s), MaxCellBytes)
				}
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > bound {
				t.Errorf("reading one row of two big values allocated %d KiB in the app: the values were read whole", alloc>>10)
			}
		})
	}
}
