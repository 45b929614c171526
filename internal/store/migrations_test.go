package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
)

// The fixtures in testdata are stores made by the code before the store
// owned the host's tables (commit d91fbe6, see testdata/README.md): a
// host with the apps service synchronized the tracker app (3 projects, 4
// tasks), a user and API tokens were made, a space notes got a note with a
// rich-text body, and GraphQL commented, assigned, attached a PDF, created
// and notified. legacyRows are the rows each fixed table held.
var legacyRows = map[string]int{
	"apps_apps": 1, "apps_accounts": 1, "apps_syncs": 1, "apps_runs": 1,
	"host_users": 2, "host_tokens": 2, "host_documents": 9, "sync_state": 1,
	"entity_comments": 2, "entity_files": 1, "entity_assignees": 2, "entity_creators": 1, "entity_notifications": 1, // graphql_* before

}

// legacyUpperSecret is a document stored under an upper-case secret, as
// before secrets were normalized: the migration of the documents lowers it.
const legacyUpperSecret = "0B8F3F8E-5D55-4F43-9C39-5D0B1A7C2F10"

// A SQLite store made before the store's migrations opens, is migrated,
// keeps its data, and ends with the tables of a fresh store.
func TestMigrateLegacySQLite(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "legacy_sqlite.db"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "legacy.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	checkLegacyMigrated(t, "sqlite:"+path, "sqlite:"+filepath.Join(dir, "fresh.db"))
}

// A PostgreSQL store made before the store's migrations (a pg_dump of one,
// restored into a fresh schema) opens, is migrated, keeps its data, and
// ends with the tables of a fresh store.
func TestMigrateLegacyPostgres(t *testing.T) {
	t.Parallel()
	dsn := testkit.PostgresDSN(t)
	dump, err := os.ReadFile(filepath.Join("testdata", "legacy_postgres.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(dump)); err != nil { // one simple-protocol query: every statement
		t.Fatalf("restore the dump: %v", err)
	}
	checkLegacyMigrated(t, dsn, testkit.PostgresDSN(t))
}

// checkLegacyMigrated opens the legacy store at dsn twice, checks its data
// and compares its tables with those of a fresh store at freshDSN.
func checkLegacyMigrated(t *testing.T, dsn, freshDSN string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open the legacy store: %v", err)
	}
	defer st.Close()
	for table, want := range legacyRows {
		if got := countRows(t, st.DB(), table); got != want {
			t.Errorf("%s: %d rows, want %d", table, got, want)
		}
	}
	for typ, want := range map[string]int{"tracker/project": 3, "tracker/task": 4, "notes/note": 1} {
		if got := countEntities(t, st, typ); got != want {
			t.Errorf("%s: %d entities, want %d", typ, got, want)
		}
	}
	var content string
	if err := st.DB().QueryRow(st.Dialect().Rebind("SELECT content FROM host_documents WHERE secret = ?"), strings.ToLower(legacyUpperSecret)).Scan(&content); err != nil || content != "an old upper-case secret" {
		t.Errorf("the document of an upper-case secret: %q %v", content, err)
	}
	note := noteBody(t, st)
	if ok, err := st.DocumentSecretExists(ctx, note); err != nil || !ok {
		t.Errorf("the note's body %s: %v %v", note, ok, err)
	}
	applied := appliedMigrations(t, st.DB())
	if len(applied) != store.Migrations() {
		t.Errorf("migrations recorded: %v, want %d", applied, store.Migrations())
	}

	fresh, err := store.Open(ctx, freshDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if got, want := schemaOf(t, st), schemaOf(t, fresh); !slices.Equal(got, want) {
		t.Errorf("the migrated store's tables differ from a fresh store's:\n%s", lineDiff(got, want))
	}

	// Opened again, nothing runs again.
	st.Close()
	again, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open the migrated store again: %v", err)
	}
	defer again.Close()
	if got := appliedMigrations(t, again.DB()); !slices.Equal(got, applied) {
		t.Errorf("opened again: %v, want %v", got, applied)
	}
}

// noteBody is the secret of the body of the note of the legacy stores.
func noteBody(t *testing.T, st *store.Store) string {
	t.Helper()
	ctx := context.Background()
	cat, err := st.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nt, dt := cat.Type("notes/note"), cat.Type(store.DocumentType)
	var secret string
	q := "SELECT d." + dt.Field(store.DocumentSecret).Col + " FROM " + nt.Table + " n JOIN " + dt.Table + " d ON d.id = n." + nt.Field("notes.note/body").Col
	if err := st.DB().QueryRow(q).Scan(&secret); err != nil {
		t.Fatalf("the note's body: %v", err)
	}
	return secret
}

// Processes opening one PostgreSQL store at once all succeed: the first
// migrates it, the others wait for its lock and find nothing left to do.
// Each Open is a process's (its own pool, connections and lock). (A SQLite
// file belongs to one process.)
func TestMigrateConcurrentOpens(t *testing.T) {
	t.Parallel()
	dsn := testkit.PostgresDSN(t)
	{
		const n = 4
		ctx := context.Background()
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, n)
		stores := make([]*store.Store, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				stores[i], errs[i] = store.Open(ctx, dsn)
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("open %d: %v", i, err)
				continue
			}
			defer stores[i].Close()
		}
		if t.Failed() {
			return
		}
		if got := appliedMigrations(t, stores[0].DB()); len(got) != store.Migrations() {
			t.Errorf("migrations recorded: %v, want each of %d once", got, store.Migrations())
		}
		schemas := map[string]bool{}
		for _, st := range stores {
			cat, err := st.Refresh(ctx)
			if err != nil {
				t.Fatal(err)
			}
			schemas[cat.SchemaID] = true
		}
		if len(schemas) != 1 {
			t.Errorf("%d catalogs, want one", len(schemas))
		}
	}
}

// A store migrated by a newer appkit (a version this code does not know)
// is refused.
func TestMigrateRefusesNewerStore(t *testing.T) {
	t.Parallel()
	testkit.EachSharedStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.DB().Exec(st.Dialect().Rebind("INSERT INTO store_migrations (version, name, applied_at) VALUES (?, 'from the future', 0)"), store.Migrations()+1); err != nil {
			t.Fatal(err)
		}
		st.Close()
		if st, err := store.Open(ctx, dsn); !errors.Is(err, store.ErrNewerStore) {
			if err == nil {
				st.Close()
			}
			t.Fatalf("open a newer store: %v, want ErrNewerStore", err)
		}
	})
}

// The apps service's tables in the shapes earlier code gave them (an
// apps_syncs with app_id unique and without the columns added since, an
// apps_events without sealed) are brought to the current shapes: the
// columns added with their defaults, app_id no longer unique, the sync in
// its app's space; the tables end as a fresh store's.
func TestMigrateAdoptsEarlierAppsTables(t *testing.T) {
	t.Parallel()
	testkit.EachSharedStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := rawDB(t, dsn)
		for _, q := range []string{
			`CREATE TABLE apps_apps (id TEXT PRIMARY KEY, url TEXT NOT NULL UNIQUE, name TEXT NOT NULL, space TEXT NOT NULL, descriptor TEXT NOT NULL, created_at BIGINT NOT NULL)`,
			`CREATE TABLE apps_syncs (id TEXT PRIMARY KEY, app_id TEXT NOT NULL UNIQUE, account_id TEXT NOT NULL,
selection TEXT NOT NULL, every_ms BIGINT NOT NULL, next_at BIGINT NOT NULL, webhook TEXT NOT NULL, webhook_types TEXT NOT NULL,
run_id TEXT NOT NULL, lease_owner TEXT NOT NULL, lease_until BIGINT NOT NULL, created_at BIGINT NOT NULL)`,
			`CREATE TABLE apps_events (id TEXT PRIMARY KEY, sync_id TEXT NOT NULL, received_at BIGINT NOT NULL, params TEXT NOT NULL,
payload TEXT NOT NULL, status TEXT NOT NULL, result TEXT NOT NULL, next_try BIGINT NOT NULL)`,
			`INSERT INTO apps_apps VALUES ('a1', 'http://app', 'App', 'tracker', '{}', 1)`,
			`INSERT INTO apps_syncs VALUES ('s1', 'a1', 'c1', '{}', 0, 0, '', '', '', '', 0, 1)`,
			`INSERT INTO apps_events VALUES ('e1', 's1', 1, '{}', '{}', 'done', '', 0)`,
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer st.Close()
		var cancel, reason, space, filter string
		if err := st.DB().QueryRow("SELECT cancel_run, cancel_reason, space, filter_sent FROM apps_syncs WHERE id = 's1'").Scan(&cancel, &reason, &space, &filter); err != nil ||
			cancel != "" || reason != "" || space != "tracker" || filter != "" {
			t.Errorf("the sync: %q %q %q %q %v", cancel, reason, space, filter, err)
		}
		var sealed int64
		if err := st.DB().QueryRow("SELECT sealed FROM apps_events WHERE id = 'e1'").Scan(&sealed); err != nil || sealed != 0 {
			t.Errorf("the event: sealed %d %v", sealed, err)
		}
		if _, err := st.DB().Exec(`INSERT INTO apps_syncs (id, app_id, account_id, selection, every_ms, next_at, webhook, webhook_types, run_id, lease_owner, lease_until, created_at, space)
VALUES ('s2', 'a1', 'c1', '{}', 0, 0, '', '', '', '', 0, 1, 'tracker-2')`); err != nil {
			t.Errorf("a second sync of the app: %v", err)
		}
		fresh := freshStore(t, dsn)
		if got, want := schemaOf(t, st), schemaOf(t, fresh); !slices.Equal(got, want) {
			t.Errorf("the adopted tables differ from a fresh store's:\n%s", lineDiff(got, want))
		}
	})
}

// Documents stored under secrets in another case before secrets were
// normalized are renamed to lower case; of two spellings the newer
// content wins.
func TestMigrateLowersDocumentSecrets(t *testing.T) {
	t.Parallel()
	testkit.EachSharedStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := rawDB(t, dsn)
		a, b := "0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10", "1b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10"
		if _, err := db.ExecContext(ctx, `CREATE TABLE host_documents (secret TEXT PRIMARY KEY, content TEXT NOT NULL, updated_at BIGINT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			secret, content string
			at              int64
		}{
			{strings.ToUpper(a), "a only upper", 1},
			{b, "b old lower", 1},
			{strings.ToUpper(b), "b newer upper", 2},
		} {
			if _, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO host_documents (secret, content, updated_at) VALUES ('%s', '%s', %d)", r.secret, r.content, r.at)); err != nil {
				t.Fatal(err)
			}
		}
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for secret, want := range map[string]string{a: "a only upper", b: "b newer upper"} {
			var got string
			if err := st.DB().QueryRow(st.Dialect().Rebind("SELECT content FROM host_documents WHERE secret = ?"), secret).Scan(&got); err != nil || got != want {
				t.Errorf("%s: %q %v, want %q", secret, got, err, want)
			}
		}
		if n := countRows(t, st.DB(), "host_documents"); n != 2 {
			t.Errorf("%d documents, want 2", n)
		}
	})
}

// rawDB opens the database of dsn (a SQLite file or a PostgreSQL schema)
// without the store, closed when the test ends.
func rawDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	driver, name := "pgx", dsn
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		driver, name = "sqlite", path
	}
	db, err := sql.Open(driver, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// freshStore opens a fresh store of dsn's engine, closed when the test
// ends.
func freshStore(t *testing.T, dsn string) *store.Store {
	t.Helper()
	fresh := "sqlite:" + filepath.Join(t.TempDir(), "fresh.db")
	if !strings.HasPrefix(dsn, "sqlite:") {
		fresh = testkit.PostgresDSN(t)
	}
	st, err := store.Open(context.Background(), fresh)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func countRows(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

func countEntities(t *testing.T, st *store.Store, typ string) int {
	t.Helper()
	cat, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ty := cat.Type(typ)
	if ty == nil {
		t.Fatalf("no type %s", typ)
	}
	return countRows(t, st.DB(), ty.Table)
}

// appliedMigrations lists the recorded migrations as "version name at".
func appliedMigrations(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT version, name, applied_at FROM store_migrations ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v, at int64
		var name string
		if err := rows.Scan(&v, &name, &at); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d %s %d", v, name, at))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// entityTable matches the tables of entity types and their links (and
// their indexes), which hold what the catalog made, not the fixed tables.
var entityTable = regexp.MustCompile(`^[tl]_[0-9]+`)

// schemaOf describes the store's fixed tables, one sorted line per column,
// index and constraint, from the engine's own catalog: the table of the
// built-in document type is named <documents>, the other entity tables
// are left out.
func schemaOf(t *testing.T, st *store.Store) []string {
	t.Helper()
	cat, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	docs := cat.Type(store.DocumentType).Table
	var queries []string
	if store.IsPostgres(st.Dialect()) {
		queries = []string{
			`SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' null=' || is_nullable || ' default=' || COALESCE(column_default, '') || ' collation=' || COALESCE(collation_name, '')
			 FROM information_schema.columns WHERE table_schema = current_schema()`,
			`SELECT 'index ' || tablename || ' ' || indexname || ' ' || replace(indexdef, current_schema() || '.', '') FROM pg_indexes WHERE schemaname = current_schema()`,
			`SELECT 'constraint ' || c.conrelid::regclass::text || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid) FROM pg_constraint c
			 JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = current_schema()`,
		}
	} else {
		queries = []string{
			`SELECT 'column ' || m.name || '.' || p.name || ' ' || p.type || ' notnull=' || p."notnull" || ' default=' || COALESCE(p.dflt_value, '') || ' pk=' || p.pk
			 FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'`,
			`SELECT 'index ' || m.tbl_name || ' ' || m.name || ' unique=' || il."unique" || ' ' || il.origin || ' partial=' || il.partial || ' (' ||
			   (SELECT group_concat(ii.name, ', ') FROM pragma_index_info(m.name) ii) || ') ' || COALESCE(m.sql, '')
			 FROM sqlite_master m JOIN pragma_index_list(m.tbl_name) il ON il.name = m.name WHERE m.type = 'index'`,
			`SELECT 'constraint ' || m.name || ' references ' || f."table" || '(' || f."to" || ') on delete ' || f.on_delete
			 FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`,
		}
	}
	var out []string
	for _, q := range queries {
		rows, err := st.DB().Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			line = strings.Join(strings.Fields(line), " ")
			kind, rest, _ := strings.Cut(line, " ")
			if strings.HasPrefix(rest, docs+".") || strings.HasPrefix(rest, docs+" ") {
				rest = "<documents>" + strings.TrimPrefix(rest, docs)
				line = kind + " " + strings.ReplaceAll(rest, docs, "<documents>")
			} else if entityTable.MatchString(rest) {
				continue
			}
			out = append(out, line)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	slices.Sort(out)
	return out
}

// lineDiff lists the lines only in got (-) and only in want (+).
func lineDiff(got, want []string) string {
	var b strings.Builder
	for _, l := range got {
		if !slices.Contains(want, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range want {
		if !slices.Contains(got, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
