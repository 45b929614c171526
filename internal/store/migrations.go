package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The host's fixed tables (the catalog's, the documents', the users' and
// tokens', the apps service's and the data attached to entities) are made
// and changed by one ordered list of numbered migrations, after River's
// and Miniflux's: Open runs, in order, each migration a store has not run
// yet, in one transaction under one lock (PostgreSQL: an advisory lock, so
// that processes opening a database at once migrate it one after the
// other; SQLite: the write lock the transaction takes at its start), and
// records each in store_migrations (version, name, applied_at in Unix
// milliseconds). No other package creates a table: the services use the
// tables these migrations made.
//
// A migration is never edited once released: a change of the tables is a
// new migration at the end of the list (as 8 renames the tables of the
// data attached to entities). The first ones (1 to 7) are the tables as
// the services made them before the store owned them, written so that they
// adopt a store made then: CREATE ... IF NOT EXISTS, and the shapes earlier
// code gave the apps service's tables brought to the current one
// (adoptTable). A store made then has no store_migrations and runs them
// all; a fresh store runs the same list, so both end with the same tables.
//
// A store that recorded a version this code does not know was migrated by
// a newer appkit: Open refuses it rather than run on tables it does not
// know.

// migrationsTable records the migrations a store ran.
const migrationsTable = "store_migrations"

// migrationLockID is the PostgreSQL advisory lock held by the transaction
// that migrates a store.
const migrationLockID = 7361829

// migration is one numbered step of the fixed tables: its statements on
// each engine (the same text where the SQL does not differ), then data,
// when set, for what needs Go (rows read and rewritten, the engine's own
// catalog), in the same transaction.
type migration struct {
	version  int64
	name     string
	sqlite   []string
	postgres []string
	data     func(m *migrator) error
}

// migrations is the ordered list. Versions increase by one.
var migrations = []migration{
	withBoth(migration{version: 1, name: "catalog", data: bootstrapCatalog},
		"CREATE TABLE IF NOT EXISTS catalog_state (id INTEGER PRIMARY KEY, version BIGINT NOT NULL, doc TEXT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS catalog_counters (type_id TEXT PRIMARY KEY, next BIGINT NOT NULL)",
	),
	{
		version: 2, name: "sync state and reserved ids",
		sqlite: []string{
			"CREATE TABLE IF NOT EXISTS sync_state (key TEXT PRIMARY KEY, doc TEXT NOT NULL, updated_at BIGINT NOT NULL)",
			createReserved,
		},
		postgres: []string{
			`CREATE TABLE IF NOT EXISTS sync_state (key TEXT COLLATE "C" PRIMARY KEY, doc TEXT NOT NULL, updated_at BIGINT NOT NULL)`,
			createReserved,
		},
	},
	withBoth(migration{version: 3, name: "documents", data: lowerDocumentSecrets},
		`CREATE TABLE IF NOT EXISTS host_documents (
	secret TEXT PRIMARY KEY,
	content TEXT NOT NULL,
	updated_at BIGINT NOT NULL
)`),
	withBoth(migration{version: 4, name: "users, sessions and tokens"},
		`CREATE TABLE IF NOT EXISTS host_users (
		id TEXT PRIMARY KEY,
		email TEXT NOT NULL UNIQUE,
		password_hash TEXT NOT NULL,
		created_at BIGINT NOT NULL
	)`,
		`CREATE TABLE IF NOT EXISTS host_sessions (
		id_hash TEXT PRIMARY KEY,
		user_id TEXT NOT NULL REFERENCES host_users(id) ON DELETE CASCADE,
		created_at BIGINT NOT NULL,
		expires_at BIGINT NOT NULL
	)`,
		`CREATE TABLE IF NOT EXISTS host_tokens (
		id TEXT PRIMARY KEY,
		user_id TEXT NOT NULL REFERENCES host_users(id) ON DELETE CASCADE,
		name TEXT NOT NULL,
		token_hash TEXT NOT NULL UNIQUE,
		created_at BIGINT NOT NULL,
		last_used_at BIGINT
	)`,
		`CREATE INDEX IF NOT EXISTS host_tokens_user ON host_tokens (user_id)`,
		`CREATE INDEX IF NOT EXISTS host_sessions_expiry ON host_sessions (expires_at)`,
	),
	{
		version: 5, name: "data attached to entities",
		sqlite:   graphqlTables("BLOB"),
		postgres: graphqlTables("BYTEA"),
	},
	withBoth(migration{version: 6, name: "apps", data: adoptAppsTables},
		createAppsApps, createAppsAccounts, createAppsSyncs, createAppsRuns,
		`CREATE INDEX IF NOT EXISTS apps_runs_sync ON apps_runs (sync_id, seq)`,
		createAppsEvents,
		`CREATE INDEX IF NOT EXISTS apps_events_sync ON apps_events (sync_id, status, received_at)`,
		createAppsActions,
		`CREATE INDEX IF NOT EXISTS apps_actions_app ON apps_actions (app_id, started_at)`,
		createAppsOAuth,
	),
	// A sync stored when an app had one sync only (its app_id unique, no
	// space column) gets its app's space, where the sync engine keeps its
	// state and entities; then at most one sync per space.
	withBoth(migration{version: 7, name: "apps: a space per sync"},
		`UPDATE apps_syncs SET space = (SELECT a.space FROM apps_apps a WHERE a.id = apps_syncs.app_id)
 WHERE space = '' AND EXISTS (SELECT 1 FROM apps_apps a WHERE a.id = apps_syncs.app_id)`,
		`CREATE INDEX IF NOT EXISTS apps_syncs_app ON apps_syncs (app_id)`,
		`CREATE UNIQUE INDEX IF NOT EXISTS apps_syncs_space ON apps_syncs (space) WHERE space <> ''`,
	),
	// The data attached to entities is the store's (attached.go), no
	// longer the GraphQL API's: its tables are named after entities, and
	// notifications are indexed by entity too (deleting an entity deletes
	// the notifications about it).
	{
		version: 8, name: "data attached to entities: the store's",
		sqlite: []string{
			"ALTER TABLE graphql_comments RENAME TO entity_comments",
			"DROP INDEX graphql_comments_entity",
			"CREATE INDEX entity_comments_entity ON entity_comments (entity_id, created, id)",
			"ALTER TABLE graphql_files RENAME TO entity_files",
			"DROP INDEX graphql_files_entity",
			"CREATE INDEX entity_files_entity ON entity_files (entity_id, created, id)",
			"ALTER TABLE graphql_assignments RENAME TO entity_assignees",
			"ALTER TABLE graphql_creators RENAME TO entity_creators",
			"ALTER TABLE graphql_notifications RENAME TO entity_notifications",
			"DROP INDEX graphql_notifications_recipient",
			"CREATE INDEX entity_notifications_recipient ON entity_notifications (recipient, created)",
			"CREATE INDEX entity_notifications_entity ON entity_notifications (entity_id)",
		},
		postgres: []string{
			"ALTER TABLE graphql_comments RENAME TO entity_comments",
			"ALTER INDEX graphql_comments_pkey RENAME TO entity_comments_pkey",
			"ALTER INDEX graphql_comments_entity RENAME TO entity_comments_entity",
			"ALTER TABLE graphql_files RENAME TO entity_files",
			"ALTER INDEX graphql_files_pkey RENAME TO entity_files_pkey",
			"ALTER INDEX graphql_files_entity RENAME TO entity_files_entity",
			"ALTER TABLE graphql_assignments RENAME TO entity_assignees",
			"ALTER INDEX graphql_assignments_pkey RENAME TO entity_assignees_pkey",
			"ALTER TABLE graphql_creators RENAME TO entity_creators",
			"ALTER INDEX graphql_creators_pkey RENAME TO entity_creators_pkey",
			"ALTER TABLE graphql_notifications RENAME TO entity_notifications",
			"ALTER INDEX graphql_notifications_pkey RENAME TO entity_notifications_pkey",
			"ALTER INDEX graphql_notifications_recipient RENAME TO entity_notifications_recipient",
			"CREATE INDEX entity_notifications_entity ON entity_notifications (entity_id)",
		},
	},
	// An action run keeps the calls the app made to its upstream API while
	// running it, as a sync run's exchanges do (JSON; '' for none).
	{version: 9, name: "apps: upstream calls of action runs", data: addActionUpstream},
}

// withBoth is m with stmts, which read the same on both engines.
func withBoth(m migration, stmts ...string) migration {
	m.sqlite, m.postgres = stmts, stmts
	return m
}

// createReserved is the table of ids set aside ([Tx.ReserveIDs]): one row
// per scope and key.
const createReserved = `CREATE TABLE IF NOT EXISTS host_reserved_ids (
	scope TEXT NOT NULL,
	key TEXT NOT NULL,
	id TEXT NOT NULL,
	PRIMARY KEY (scope, key)
)`

// graphqlTables are the tables of the data attached to entities as the
// GraphQL API made them (blob is the engine's type of binary data).
func graphqlTables(blob string) []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS graphql_comments (id TEXT PRIMARY KEY, entity_id TEXT NOT NULL, author TEXT NOT NULL, content TEXT NOT NULL, created BIGINT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS graphql_comments_entity ON graphql_comments (entity_id, created, id)`,
		`CREATE TABLE IF NOT EXISTS graphql_files (id TEXT PRIMARY KEY, entity_id TEXT NOT NULL, name TEXT NOT NULL, content_type TEXT NOT NULL, size BIGINT NOT NULL, data ` + blob + ` NOT NULL, created BIGINT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS graphql_files_entity ON graphql_files (entity_id, created, id)`,
		`CREATE TABLE IF NOT EXISTS graphql_assignments (entity_id TEXT NOT NULL, email TEXT NOT NULL, created BIGINT NOT NULL, PRIMARY KEY (entity_id, email))`,
		`CREATE TABLE IF NOT EXISTS graphql_creators (entity_id TEXT PRIMARY KEY, email TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS graphql_notifications (id TEXT PRIMARY KEY, recipient TEXT NOT NULL, sender TEXT NOT NULL, subject TEXT NOT NULL, message TEXT NOT NULL, entity_id TEXT, entity_type TEXT, created BIGINT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS graphql_notifications_recipient ON graphql_notifications (recipient, created)`,
	}
}

// The apps service's tables as migration 6 makes them: their current
// shapes, but for apps_actions, which lacks the upstream column that
// migration 9 adds (a released migration is never edited, so
// createAppsActions stays as 6 made it).
const (
	createAppsApps = `CREATE TABLE IF NOT EXISTS apps_apps (
	id TEXT PRIMARY KEY,
	url TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL,
	space TEXT NOT NULL,
	descriptor TEXT NOT NULL,
	created_at BIGINT NOT NULL
)`
	createAppsAccounts = `CREATE TABLE IF NOT EXISTS apps_accounts (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	auth TEXT NOT NULL,
	name TEXT NOT NULL,
	sealed TEXT NOT NULL,
	created_at BIGINT NOT NULL,
	updated_at BIGINT NOT NULL
)`
	createAppsSyncs = `CREATE TABLE IF NOT EXISTS apps_syncs (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	account_id TEXT NOT NULL,
	selection TEXT NOT NULL,
	every_ms BIGINT NOT NULL,
	next_at BIGINT NOT NULL,
	webhook TEXT NOT NULL,
	webhook_types TEXT NOT NULL,
	run_id TEXT NOT NULL,
	lease_owner TEXT NOT NULL,
	lease_until BIGINT NOT NULL,
	created_at BIGINT NOT NULL,
	cancel_run TEXT NOT NULL DEFAULT '',
	cancel_reason TEXT NOT NULL DEFAULT '',
	space TEXT NOT NULL DEFAULT '',
	filter_sent TEXT NOT NULL DEFAULT ''
)`
	createAppsRuns = `CREATE TABLE IF NOT EXISTS apps_runs (
	id TEXT PRIMARY KEY,
	sync_id TEXT NOT NULL,
	seq BIGINT NOT NULL,
	trigger_kind TEXT NOT NULL,
	status TEXT NOT NULL,
	owner TEXT NOT NULL,
	attempts BIGINT NOT NULL,
	queued_at BIGINT NOT NULL,
	started_at BIGINT NOT NULL,
	ended_at BIGINT NOT NULL,
	report TEXT NOT NULL,
	error TEXT NOT NULL,
	exchanges TEXT NOT NULL
)`
	createAppsEvents = `CREATE TABLE IF NOT EXISTS apps_events (
	id TEXT PRIMARY KEY,
	sync_id TEXT NOT NULL,
	received_at BIGINT NOT NULL,
	params TEXT NOT NULL,
	payload TEXT NOT NULL,
	status TEXT NOT NULL,
	result TEXT NOT NULL,
	next_try BIGINT NOT NULL,
	sealed BIGINT NOT NULL DEFAULT 0
)`
	createAppsActions = `CREATE TABLE IF NOT EXISTS apps_actions (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	account_id TEXT NOT NULL,
	action TEXT NOT NULL,
	args TEXT NOT NULL,
	entity TEXT NOT NULL,
	status TEXT NOT NULL,
	answer_status BIGINT NOT NULL,
	answer TEXT NOT NULL,
	error TEXT NOT NULL,
	ran_by TEXT NOT NULL,
	started_at BIGINT NOT NULL,
	duration_ms BIGINT NOT NULL
)`
	createAppsOAuth = `CREATE TABLE IF NOT EXISTS apps_oauth (
	state_hash TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	auth TEXT NOT NULL,
	callback TEXT NOT NULL,
	sealed TEXT NOT NULL,
	account_id TEXT NOT NULL,
	expires_at BIGINT NOT NULL
)`
)

// earlierTable is a table of the apps service as earlier code may have
// made it, before the store's migrations: columns added since its first
// release, and a column whose UNIQUE was dropped since.
type earlierTable struct {
	table string
	// create is the table's CREATE in its current shape, with every
	// column, needed with notUnique only: an engine that cannot drop a
	// column's UNIQUE in place copies the rows into a table made by it.
	create string
	// added are the columns added since the table's first release, with
	// their declarations.
	added []column
	// notUnique is a column that was UNIQUE alone ("" for none).
	notUnique string
}

type column struct{ name, decl string }

// adoptAppsTables brings the apps service's tables of a store made before
// the store's migrations to their current shapes: apps_syncs got columns
// (a run's cancel, a space per sync, the filter sent) and lost app_id's
// uniqueness when an app could have several syncs; apps_events got sealed
// (1 for an event whose params and payload are sealed, 0 for one received
// before events were sealed, in clear). Tables in their current shape (a
// fresh store's) are left as they are.
func adoptAppsTables(m *migrator) error {
	for _, t := range []earlierTable{
		{table: "apps_syncs", create: createAppsSyncs, notUnique: "app_id", added: []column{
			{"cancel_run", "TEXT NOT NULL DEFAULT ''"},
			{"cancel_reason", "TEXT NOT NULL DEFAULT ''"},
			{"space", "TEXT NOT NULL DEFAULT ''"},
			{"filter_sent", "TEXT NOT NULL DEFAULT ''"},
		}},
		{table: "apps_events", create: createAppsEvents, added: []column{{"sealed", "BIGINT NOT NULL DEFAULT 0"}}},
	} {
		if err := m.s.drv.adoptTable(m, t); err != nil {
			return fmt.Errorf("adopt %s: %w", t.table, err)
		}
	}
	return nil
}

// addActionUpstream gives apps_actions its upstream column, where it has
// none yet (a step that may run again on a table that has it: a store whose
// apps migrations are run again, as for a store made before them).
func addActionUpstream(m *migrator) error {
	return m.s.drv.adoptTable(m, earlierTable{table: "apps_actions", added: []column{{"upstream", "TEXT NOT NULL DEFAULT ''"}}})
}

// migrator runs migrations in the migrating transaction.
type migrator struct {
	s   *Store
	ctx context.Context
	tx  *sql.Tx
}

func (m *migrator) exec(q string, args ...any) error {
	if _, err := m.tx.ExecContext(m.ctx, m.s.dialect.Rebind(q), args...); err != nil {
		return err
	}
	return nil
}

// migrate runs the migrations the store has not run, then loads the
// catalog, all in one transaction under the migration lock.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	defer tx.Rollback()
	if err := s.drv.lockMigration(ctx, tx); err != nil {
		return err
	}
	m := &migrator{s: s, ctx: ctx, tx: tx}
	if err := m.exec("CREATE TABLE IF NOT EXISTS " + migrationsTable + " (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	applied, err := m.applied()
	if err != nil {
		return err
	}
	for _, mg := range migrations {
		if applied[mg.version] {
			continue
		}
		if err := m.run(mg); err != nil {
			return fmt.Errorf("store: migration %d (%s): %w", mg.version, mg.name, err)
		}
	}
	cat, err := loadCatalog(ctx, tx)
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate commit: %w", err)
	}
	s.cat = cat
	return nil
}

// ErrNewerStore reports a store migrated by a newer appkit: it ran a
// migration this code does not know.
var ErrNewerStore = errors.New("store: the store was migrated by a newer appkit")

// applied returns the versions the store ran; a version past the last one
// known is ErrNewerStore.
func (m *migrator) applied() (map[int64]bool, error) {
	rows, err := m.tx.QueryContext(m.ctx, "SELECT version FROM "+migrationsTable)
	if err != nil {
		return nil, fmt.Errorf("store: migrate: %w", err)
	}
	defer rows.Close()
	last := migrations[len(migrations)-1].version
	out := map[int64]bool{}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("store: migrate: %w", err)
		}
		if v > last {
			return nil, fmt.Errorf("%w (it ran migration %d; this appkit knows 1 to %d)", ErrNewerStore, v, last)
		}
		out[v] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: migrate: %w", err)
	}
	return out, nil
}

// run runs one migration and records it.
func (m *migrator) run(mg migration) error {
	stmts := mg.sqlite
	if IsPostgres(m.s.dialect) {
		stmts = mg.postgres
	}
	for _, q := range stmts {
		if err := m.exec(q); err != nil {
			return fmt.Errorf("%s: %w", firstLine(q), err)
		}
	}
	if mg.data != nil {
		if err := mg.data(m); err != nil {
			return err
		}
	}
	return m.exec("INSERT INTO "+migrationsTable+" (version, name, applied_at) VALUES (?, ?, ?)", mg.version, mg.name, time.Now().UnixMilli())
}

// firstLine is the first line of a statement, for an error.
func firstLine(q string) string {
	line, _, _ := strings.Cut(q, "\n")
	return line
}

// bootstrapCatalog writes the catalog of a fresh store, which holds the
// built-in type of rich-text documents, and indexes the documents' secrets
// (the documents service looks each request's up: DocumentSecretExists).
// A store whose catalog exists keeps it.
func bootstrapCatalog(m *migrator) error {
	var n int
	if err := m.tx.QueryRowContext(m.ctx, "SELECT COUNT(*) FROM catalog_state WHERE id = 1").Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		cat := &Catalog{SchemaID: uuid.NewString(), Version: 1}
		cat.reindex()
		w := &Tx{s: m.s, ctx: m.ctx, tx: m.tx, cat: cat}
		dt := &Type{ID: uuid.NewString(), Name: DocumentType, Kind: KindBuiltin, Meta: map[string]any{}}
		dt.Fields = builtinFields(dt.Name, false)
		dt.Fields = append(dt.Fields, &Field{ID: uuid.NewString(), Name: DocumentSecret, Role: RolePrimitive, Prim: TUUID,
			Meta: map[string]any{"platform/readonly?": true}})
		if err := w.addType(dt); err != nil {
			return err
		}
		b, err := jsonMarshal(cat)
		if err != nil {
			return err
		}
		if err := m.exec("INSERT INTO catalog_state (id, version, doc) VALUES (1, ?, ?)", cat.Version, b); err != nil {
			return err
		}
	}
	cat, err := loadCatalog(m.ctx, m.tx)
	if err != nil {
		return err
	}
	dt := cat.Type(DocumentType)
	return m.exec("CREATE INDEX IF NOT EXISTS " + dt.Table + "_secret ON " + dt.Table + " (" + dt.Field(DocumentSecret).Col + ")")
}

// loadCatalog reads the catalog, frozen.
func loadCatalog(ctx context.Context, tx *sql.Tx) (*Catalog, error) {
	var doc string
	if err := tx.QueryRowContext(ctx, "SELECT doc FROM catalog_state WHERE id = 1").Scan(&doc); err != nil {
		return nil, fmt.Errorf("store: read the catalog: %w", err)
	}
	cat, err := decodeCatalog([]byte(doc))
	if err != nil {
		return nil, err
	}
	cat.frozen = true
	return cat, nil
}

// lowerDocumentSecrets rewrites the secrets of documents stored in another
// case (written before every path normalized them) to lower case; when
// several spellings of one secret were stored, the most recently written
// content is kept.
func lowerDocumentSecrets(m *migrator) error {
	rows, err := m.tx.QueryContext(m.ctx, `SELECT secret, updated_at FROM host_documents WHERE secret <> lower(secret)`)
	if err != nil {
		return err
	}
	type row struct {
		secret  string
		updated int64
	}
	var mixed []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.secret, &r.updated); err != nil {
			rows.Close()
			return err
		}
		mixed = append(mixed, r)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, r := range mixed {
		lower := strings.ToLower(r.secret)
		var updated int64
		err := m.tx.QueryRowContext(m.ctx, m.s.dialect.Rebind(`SELECT updated_at FROM host_documents WHERE secret = ?`), lower).Scan(&updated)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			err = m.exec(`UPDATE host_documents SET secret = ? WHERE secret = ?`, lower, r.secret)
		case err != nil:
		case r.updated > updated:
			if err = m.exec(`DELETE FROM host_documents WHERE secret = ?`, lower); err == nil {
				err = m.exec(`UPDATE host_documents SET secret = ? WHERE secret = ?`, lower, r.secret)
			}
		default:
			err = m.exec(`DELETE FROM host_documents WHERE secret = ?`, r.secret)
		}
		if err != nil {
			return fmt.Errorf("lower the secret of a document: %w", err)
		}
	}
	return nil
}
