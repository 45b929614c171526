package sqlsync_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/sqlsync/sqlsync"
)

// backend is one database the app is tested against: its connection
// string, the table holding the demo customers, and a way to count them.
type backend struct {
	name  string
	conn  string
	table string
	count func(t *testing.T) int
	dbs   *sqlsync.Databases
}

// sqliteBackend seeds the demo database into a fresh directory.
func sqliteBackend(t *testing.T) (backend, *sqlsync.Databases) {
	dir := t.TempDir()
	path := filepath.Join(dir, sqlsync.DemoFile)
	if err := sqlsync.SeedDemo(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	return backend{name: "sqlite", conn: "sqlite:" + sqlsync.DemoFile, table: "customers", count: func(t *testing.T) int {
		return countRows(t, "sqlite", "file:"+path, "customers")
	}}, &sqlsync.Databases{SQLiteDir: dir}
}

// postgresBackend copies the demo customers into a fresh schema of the
// server in APPKIT_TEST_POSTGRES, or skips.
func postgresBackend(t *testing.T) (backend, *sqlsync.Databases) {
	dsn := os.Getenv("APPKIT_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("APPKIT_TEST_POSTGRES is not set")
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	schema := fmt.Sprintf("sqlsync_%d", time.Now().UnixNano())
	ctx := context.Background()
	for _, stmt := range []string{
		`CREATE SCHEMA ` + schema,
		`CREATE TABLE ` + schema + `.customers (id bigint PRIMARY KEY, name text NOT NULL, email text, vip boolean NOT NULL,
			since date, balance numeric(10,2), updated_at timestamptz)`,
		`CREATE SEQUENCE ` + schema + `.seq`,
		`INSERT INTO ` + schema + `.customers
			SELECT i, 'Customer ' || i, CASE WHEN i % 10 = 0 THEN NULL ELSE 'customer' || i || '@example.com' END, i % 3 = 0,
				DATE '2020-01-01' + i, (i * 137 % 10000) / 100.0, TIMESTAMPTZ '2020-01-01 00:00:00Z' + i * INTERVAL '1 day 1 minute'
			FROM generate_series(1, ` + fmt.Sprint(sqlsync.DemoCustomers) + `) AS i`,
	} {
		if _, err := admin.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`) })
	return backend{name: "postgres", conn: dsn, table: schema + ".customers", count: func(t *testing.T) int {
		return countRows(t, "pgx", dsn, schema+".customers")
	}}, &sqlsync.Databases{}
}

func countRows(t *testing.T, driver, dsn, table string) int {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func backends(t *testing.T, run func(t *testing.T, b backend, c *appkittest.Client)) {
	for name, open := range map[string]func(*testing.T) (backend, *sqlsync.Databases){"sqlite": sqliteBackend, "postgres": postgresBackend} {
		t.Run(name, func(t *testing.T) {
			b, dbs := open(t)
			b.dbs = dbs
			t.Cleanup(func() { dbs.Close() })
			c := appkittest.New(t, sqlsync.New(dbs))
			c.Account = map[string]any{sqlsync.ConnectionField: b.conn}
			run(t, b, c)
		})
	}
}

func query(b backend) string {
	return "SELECT id, name, email, vip, since, balance, updated_at FROM " + b.table + " ORDER BY id"
}

func TestSync_schemaFromColumnsAndPages(t *testing.T) {
	backends(t, func(t *testing.T, b backend, c *appkittest.Client) {
		if r := c.Validate("database"); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"name":"`) {
			t.Fatalf("validate = %d %s", r.Status, r.Body)
		}
		filter := map[string]any{"query": query(b)}
		schema := c.Schema(filter, "row")
		got := map[string]string{}
		for id, f := range schema["row"] {
			got[id] = f.Type + "/" + f.SubType
		}
		want := map[string]string{"id": "id/", "name": "text/", "email": "text/", "vip": "text/boolean", "since": "date/day",
			"balance": "number/", "updated_at": "date/"}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("field %s = %q, want %q (schema %v)", id, got[id], w, got)
			}
		}
		if schema["row"]["updated_at"].Name != "Updated at" {
			t.Errorf("updated_at is named %q", schema["row"]["updated_at"].Name)
		}
		pages := c.Sync(appkittest.Run{Type: "row", Filter: filter})
		if len(pages) != 3 {
			t.Errorf("%d pages, want 3 of at most %d rows", len(pages), sqlsync.PageSize)
		}
		items := c.SyncAll(appkittest.Run{Type: "row", Filter: filter})
		if len(items) != sqlsync.DemoCustomers {
			t.Fatalf("%d items, want %d", len(items), sqlsync.DemoCustomers)
		}
		third, tenth := items[2], items[9]
		if third["id"] != "3" || third["vip"] != "true" || third["since"] != "2020-01-04" || third["balance"] != 4.11 {
			t.Errorf("row 3 = %v", third)
		}
		if _, has := tenth["email"]; has {
			t.Errorf("row 10's NULL email was sent: %v", tenth)
		}
		if s, _ := third["updated_at"].(string); !strings.HasPrefix(s, "2020-01-0") || !strings.HasSuffix(s, "Z") {
			t.Errorf("row 3 updated_at = %v", third["updated_at"])
		}
	})
}

// Nothing but one reading statement runs, and whatever the query tries, the
// data stays as it was.
func TestSync_readOnly(t *testing.T) {
	backends(t, func(t *testing.T, b backend, c *appkittest.Client) {
		for _, tc := range []struct {
			name, query, want string
		}{
			{"delete", "DELETE FROM " + b.table, "only SELECT"},
			{"drop", "drop table " + b.table, "only SELECT"},
			{"second statement", "SELECT 1 AS id, 'x' AS name; DELETE FROM " + b.table, "more than one statement"},
			{"commented second statement", "SELECT 1 AS id, 'x' AS name; /* c */ UPDATE " + b.table + " SET name = 'x'", "more than one statement"},
			{"writing CTE", "WITH d AS (DELETE FROM " + b.table + " RETURNING id, name) SELECT id, name FROM d", "refused"},
			{"empty", " -- nothing\n", "empty"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.ValidateFilter(map[string]any{"query": tc.query}, "row")
				if r.Status != http.StatusBadRequest || !strings.Contains(r.Message(), tc.want) {
					t.Errorf("filter/validate = %d %q, want 400 with %q", r.Status, r.Message(), tc.want)
				}
			})
		}
		if b.name == "postgres" {
			seq := strings.TrimSuffix(b.table, "customers") + "seq"
			for _, q := range []string{
				"SELECT nextval('" + seq + "') AS id, 'x' AS name",
				"SELECT set_config('transaction_read_only', 'off', true) AS id, 'x' AS name",
			} {
				if r := c.ValidateFilter(map[string]any{"query": q}, "row"); r.Status != http.StatusBadRequest {
					t.Errorf("%s: filter/validate = %d %s, want 400", q, r.Status, r.Body)
				}
			}
		}
		if n := b.count(t); n != sqlsync.DemoCustomers {
			t.Errorf("%d customers after the attempts, want %d", n, sqlsync.DemoCustomers)
		}
	})
}

func TestSync_limits(t *testing.T) {
	backends(t, func(t *testing.T, b backend, c *appkittest.Client) {
		endless := "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x AS id, 'row' AS name FROM n"
		if b.name == "postgres" {
			endless = "SELECT i AS id, 'row' AS name FROM generate_series(1, 100000) AS i"
		}
		r := c.Do("POST", "/api/v1/synchronizer/data", map[string]any{"requestedType": "row", "filter": map[string]any{"query": endless},
			"pagination": map[string]any{"offset": sqlsync.MaxRows - 10}})
		if r.Status != http.StatusBadRequest || !strings.Contains(r.Message(), "more than 10000 rows") {
			t.Errorf("a query of too many rows: %d %q", r.Status, r.Message())
		}
		// A query that never ends, under a short bound of its own: the
		// answer names the bound, however fast the machine is.
		slow := "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT max(x) AS id, 'row' AS name FROM n"
		if b.name == "postgres" {
			slow = "SELECT 1 AS id, 'row' AS name FROM pg_sleep(3600)"
		}
		short := &sqlsync.Databases{SQLiteDir: b.dbs.SQLiteDir, Timeout: 500 * time.Millisecond}
		defer short.Close()
		cs := appkittest.New(t, sqlsync.New(short))
		cs.Account = c.Account
		r = cs.ValidateFilter(map[string]any{"query": slow}, "row")
		if r.Status != http.StatusBadRequest || !strings.Contains(r.Message(), "did not finish within 500ms") {
			t.Errorf("a slow query: %d %q", r.Status, r.Message())
		}
	})
}

func TestSync_columnsRefused(t *testing.T) {
	backends(t, func(t *testing.T, b backend, c *appkittest.Client) {
		for _, tc := range []struct{ query, want string }{
			{"SELECT name FROM " + b.table, "no column is named id"},
			{"SELECT id FROM " + b.table, "no column is named name"},
			{"SELECT id, name, email || '!' FROM " + b.table, "plain name with AS"},
			{"SELECT id, name, email AS name FROM " + b.table, "two columns are named \"name\""},
			{"SELECT id, name, 1 AS __syncAction FROM " + b.table, "reserved"},
			{"SELECT id, name FROM no_such_table", "refused"},
		} {
			r := c.ValidateFilter(map[string]any{"query": tc.query}, "row")
			if r.Status != http.StatusBadRequest || !strings.Contains(r.Message(), tc.want) {
				t.Errorf("%s: %d %q, want 400 with %q", tc.query, r.Status, r.Message(), tc.want)
			}
		}
		if r := c.ValidateFilter(map[string]any{"query": query(b)}, "row"); r.Status != http.StatusNoContent {
			t.Errorf("the demo query: filter/validate = %d %s", r.Status, r.Body)
		}
	})
}

func TestValidate_refused(t *testing.T) {
	_, dbs := sqliteBackend(t)
	defer dbs.Close()
	c := appkittest.New(t, sqlsync.New(dbs))
	for _, conn := range []string{"", "sqlite:missing.db", "sqlite:../demo.db", "mysql://x", "postgres://appkit:hunter22@127.0.0.1:1/db?sslmode=disable"} {
		c.Account = map[string]any{sqlsync.ConnectionField: conn}
		r := c.Validate("database")
		if r.Status != http.StatusUnauthorized {
			t.Errorf("%q: validate = %d %s, want 401", conn, r.Status, r.Body)
		}
		if strings.Contains(string(r.Body), "hunter22") {
			t.Errorf("%q: the answer shows the password: %s", conn, r.Body)
		}
	}
}

func TestParseConnection(t *testing.T) {
	for _, tc := range []struct {
		conn, want string // want: the Target's Label, or an error's text
	}{
		{"sqlite:demo.db", "SQLite demo.db"},
		{"postgres://u:p@db.example.com:5433/shop?sslmode=require", "PostgreSQL shop on db.example.com"},
		{"postgresql://u@10.0.0.1/shop", "PostgreSQL shop on 10.0.0.1"},
		{"sqlite:../etc/passwd", "not a path"},
		{"sqlite:/etc/passwd", "not a path"},
		{"sqlite:a/b.db", "not a path"},
		{"sqlite:..", "not a path"},
		{"postgres:///shop", "names no host"},
		{"postgres://u@db/shop?host=/var/run/postgresql", `may not set "host"`},
		{"postgres://u@db/shop?passfile=/root/.pgpass", `may not set "passfile"`},
		{"postgres://u@%2Fvar%2Frun/shop", "PostgreSQL URL"},
		{"host=db user=u", "want postgres://"},
		{"mysql://u@db/shop", "want postgres://"},
		{"", "empty"},
	} {
		got := ""
		tg, err := sqlsync.ParseConnection(tc.conn, "/srv/sqlite")
		if err != nil {
			got = err.Error()
		} else {
			got = tg.Label
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("ParseConnection(%q) = %q, want %q", tc.conn, got, tc.want)
		}
	}
	if _, err := sqlsync.ParseConnection("sqlite:demo.db", ""); err == nil {
		t.Error("SQLite accepted without a directory")
	}
	tg, err := sqlsync.ParseConnection("postgres://u@db.example.com/shop", "")
	if err != nil {
		t.Fatal(err)
	}
	if p := tg.Postgres.RuntimeParams; p["default_transaction_read_only"] != "on" || p["statement_timeout"] != "10000" {
		t.Errorf("runtime params %v", p)
	}
}
