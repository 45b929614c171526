package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/internal/store"
)

// Errors callers match with errors.Is.
var (
	// ErrNotFound: no such app, account, sync or run.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: a request that cannot be accepted (the message says why).
	ErrInvalid = errors.New("invalid request")
	// ErrConflict: the request conflicts with what is stored (an app
	// registered twice, a space that another sync uses).
	ErrConflict = errors.New("conflict")
	// ErrUnreachable: the app did not answer (the message says how).
	ErrUnreachable = errors.New("the app did not answer")
)

// syncsTable is the index of apps_syncs' CREATE in migrations.
const syncsTable = 2

// migrations create the service's tables; CREATE ... IF NOT EXISTS runs on
// both engines (under an advisory lock on PostgreSQL).
var migrations = []string{
	`CREATE TABLE IF NOT EXISTS apps_apps (
	id TEXT PRIMARY KEY,
	url TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL,
	space TEXT NOT NULL,
	descriptor TEXT NOT NULL,
	created_at BIGINT NOT NULL
)`,
	`CREATE TABLE IF NOT EXISTS apps_accounts (
	id TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	auth TEXT NOT NULL,
	name TEXT NOT NULL,
	sealed TEXT NOT NULL,
	created_at BIGINT NOT NULL,
	updated_at BIGINT NOT NULL
)`,
	`CREATE TABLE IF NOT EXISTS apps_syncs (
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
)`,
	`CREATE TABLE IF NOT EXISTS apps_runs (
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
)`,
	`CREATE INDEX IF NOT EXISTS apps_runs_sync ON apps_runs (sync_id, seq)`,
	`CREATE TABLE IF NOT EXISTS apps_events (
	id TEXT PRIMARY KEY,
	sync_id TEXT NOT NULL,
	received_at BIGINT NOT NULL,
	params TEXT NOT NULL,
	payload TEXT NOT NULL,
	status TEXT NOT NULL,
	result TEXT NOT NULL,
	next_try BIGINT NOT NULL,
	sealed BIGINT NOT NULL DEFAULT 0
)`,
	`CREATE INDEX IF NOT EXISTS apps_events_sync ON apps_events (sync_id, status, received_at)`,
	`CREATE TABLE IF NOT EXISTS apps_actions (
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
)`,
	`CREATE INDEX IF NOT EXISTS apps_actions_app ON apps_actions (app_id, started_at)`,
	`CREATE TABLE IF NOT EXISTS apps_oauth (
	state_hash TEXT PRIMARY KEY,
	app_id TEXT NOT NULL,
	auth TEXT NOT NULL,
	callback TEXT NOT NULL,
	sealed TEXT NOT NULL,
	account_id TEXT NOT NULL,
	expires_at BIGINT NOT NULL
)`,
}

// addedColumns are columns added to tables after their first release: a
// table created before lacks them and gets them from ALTER TABLE.
var addedColumns = []struct{ table, column, decl string }{
	{"apps_syncs", "cancel_run", "TEXT NOT NULL DEFAULT ''"},
	{"apps_syncs", "cancel_reason", "TEXT NOT NULL DEFAULT ''"},
	{"apps_syncs", "space", "TEXT NOT NULL DEFAULT ''"},
	{"apps_syncs", "filter_sent", "TEXT NOT NULL DEFAULT ''"},
	// sealed is 1 for an event whose params and payload are sealed (0: an
	// event received before events were sealed, in clear).
	{"apps_events", "sealed", "BIGINT NOT NULL DEFAULT 0"},
}

// syncsColumns are the columns of apps_syncs, in the order of its CREATE.
const syncsColumns = "id, app_id, account_id, selection, every_ms, next_at, webhook, webhook_types, run_id, lease_owner, lease_until, created_at, cancel_run, cancel_reason, space, filter_sent"

// afterColumns run once the columns exist: a sync stored when an app had
// one sync only (its app_id unique, no space column) gets its app's space,
// where the engine keeps its state and entities; then at most one sync per
// space.
var afterColumns = []string{
	`UPDATE apps_syncs SET space = (SELECT a.space FROM apps_apps a WHERE a.id = apps_syncs.app_id)
 WHERE space = '' AND EXISTS (SELECT 1 FROM apps_apps a WHERE a.id = apps_syncs.app_id)`,
	`CREATE INDEX IF NOT EXISTS apps_syncs_app ON apps_syncs (app_id)`,
	`CREATE UNIQUE INDEX IF NOT EXISTS apps_syncs_space ON apps_syncs (space) WHERE space <> ''`,
}

// migrateLockID is the PostgreSQL advisory lock held while the tables are
// created, so that processes starting at once do not race on the CREATEs.
const migrateLockID = 0x61707073

func (s *core) migrate(ctx context.Context) error {
	// The lock (none on SQLite: one process per file) holds a connection
	// of its own; the tables' connection is released before the engine's
	// state is created (an in-memory SQLite database has one connection).
	unlock, err := s.d.LockSchema(ctx, s.db, migrateLockID)
	if err != nil {
		return fmt.Errorf("apps: migrate: %w", err)
	}
	defer unlock()
	if err := s.createTables(ctx); err != nil {
		return err
	}
	return s.createEngineState(ctx)
}

// createTables creates the tables (migrate holds the migration lock).
func (s *core) createTables(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("apps: migrate: %w", err)
	}
	defer conn.Close()
	for _, q := range migrations {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("apps: migrate: %w", err)
		}
	}
	for _, c := range addedColumns {
		// Outside a transaction, a failed probe leaves nothing to roll back.
		if _, err := conn.ExecContext(ctx, "SELECT "+c.column+" FROM "+c.table+" WHERE 1 = 0"); err == nil {
			continue
		}
		if _, err := conn.ExecContext(ctx, "ALTER TABLE "+c.table+" ADD COLUMN "+c.column+" "+c.decl); err != nil {
			return fmt.Errorf("apps: migrate: add %s.%s: %w", c.table, c.column, err)
		}
	}
	if err := s.manySyncsPerApp(ctx, conn); err != nil {
		return fmt.Errorf("apps: migrate: %w", err)
	}
	for _, q := range afterColumns {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("apps: migrate: %w", err)
		}
	}
	return nil
}

// manySyncsPerApp drops the uniqueness of apps_syncs.app_id that a store
// made when an app had one sync only (the Dialect copies the table into one
// made by the current CREATE where the constraint cannot be dropped).
func (s *core) manySyncsPerApp(ctx context.Context, conn *sql.Conn) error {
	return s.d.DropColumnUnique(ctx, conn, "apps_syncs", "app_id", migrations[syncsTable], syncsColumns)
}

// createEngineState makes sure the engine's state table exists. The engine
// creates it on first use, in the run's transaction; on PostgreSQL two
// first runs at once race on that CREATE (a unique violation in pg_type).
// Created at start, under the lock, it exists before any run.
func (s *core) createEngineState(ctx context.Context) error {
	if err := s.st.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.SyncState("apps:probe")
		return err
	}); err != nil {
		return fmt.Errorf("apps: migrate: %w", err)
	}
	return nil
}

func (s *core) q(query string) string { return s.d.Rebind(query) }

func (s *core) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.q(query), args...)
}

// tx runs fn in one transaction.
func (s *core) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("apps: begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("apps: commit: %w", err)
	}
	return nil
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) *time.Time {
	if v <= 0 {
		return nil
	}
	t := time.UnixMilli(v).UTC()
	return &t
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

type rowScanner interface{ Scan(dest ...any) error }

// scanAll reads every row with scan (an empty list when there are none)
// and closes rows.
func scanAll[T any](rows *sql.Rows, scan func(rowScanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
