// Package store is the workspace host's storage: the catalog of types, fields,
// relations and enums, and its SQL backends (SQLite through modernc.org/sqlite,
// PostgreSQL through pgx), with DDL for schema changes and the entity writes.
//
// # Layout
//
// Every type is one table t_<n> with the built-in columns id (uuid text,
// primary key), public_id (text, a per-type counter), created and modified
// (BIGINT milliseconds since the epoch, UTC) and one typed column c_<n> per
// primitive field (two, c_<n>_s and c_<n>_e, for ranges). Identifiers are
// generated and kept in the catalog: no user string is ever spliced into SQL,
// and every value reaches SQL as a bound parameter.
//
// Column types: int and rank BIGINT; decimal NUMERIC on PostgreSQL and TEXT on
// SQLite (the exact text is kept; SQLite compares and sorts decimals as
// CAST(x AS REAL), i.e. with double precision); bool BOOLEAN / INTEGER 0-1;
// text, email, emoji, uuid, date (YYYY-MM-DD) and json-value TEXT; date-time
// BIGINT milliseconds, shown as ISO 8601 UTC with milliseconds and Z. Text
// columns on PostgreSQL are COLLATE "C", so text compares and sorts bytewise
// on both engines (the same rows in the same order everywhere). All entities
// created in one transaction share its creation time; the default order then
// falls back to platform/id, as the spec's default order says.
//
// Relations: a to-one field keeps the target's id in a column of its holder's
// table (StoreColumn). Its partner, to-many or to-one, reads that column from
// the other side (StoreReverse). A many-to-many pair shares a link table l_<n>
// (a, b) (StoreLink). A lone collection field gets a link table; when a to-one
// partner is added later the links move into the partner's new column.
// Single-select fields are to-one fields whose target is an enum type (options
// are rows of the enum's table); rich-text fields are to-one fields whose
// target is the built-in Collaboration~Documents/Document type: the store
// creates one document entity (with a fresh uuid secret) per rich-text field
// when an entity is created, and for existing entities when such a field is
// added. Deleting one field of a relation pair deletes its partner as well
// (a relation exists as a pair or not at all).
//
// # Catalog and several processes
//
// The catalog is one JSON document in catalog_state (with a version counter),
// loaded into an immutable in-memory snapshot. A schema change works on a
// clone inside the write transaction, runs its DDL in that same transaction and
// writes the new document with version+1; the snapshot is swapped after the
// commit. A SQLite file belongs to one host process: its snapshot is always
// current.
//
// On PostgreSQL several host processes may share a database. Writes stay
// exact: every write transaction locks the catalog row (FOR SHARE, FOR
// UPDATE for schema changes) and reloads a stale snapshot inside the
// transaction. Reads take the snapshot from memory, kept current this way:
//
//   - The transaction of every schema change also runs pg_notify on the
//     channel appkit_catalog with "<schema id> <version>" (the schema id
//     tells apart the catalogs of several schemas in one database).
//     PostgreSQL delivers it when, and only if, the transaction commits.
//   - Each Store keeps one connection of its own (not from the pool)
//     LISTENing on that channel. After LISTEN it reads the version once
//     (changes committed earlier announced themselves to nobody), then
//     reloads the catalog on each notification of its schema. Idle for 10 s,
//     it reads the version again, which proves the connection alive.
//   - Catalog answers from memory while the listener is connected and caught
//     up, and no notification announced a version newer than the snapshot;
//     otherwise (listener down, reconnecting with backoff from 50 ms to 5 s,
//     or a reload pending) it checks the version with one primary-key
//     lookup, as every read did before. CatalogRoundTrips counts those.
//   - Between another process's commit and the handling of its notification
//     (typically well under a millisecond) a read may run on the previous
//     catalog. Such a read either succeeds, as if it had run just before the
//     change (generated column and table names are never reused, so an old
//     catalog never reads the wrong column), or fails: an unknown type or
//     field, or SQL on a dropped column or table (SQLSTATE 42703, 42P01).
//     View, which both APIs read through, then checks the version and, when
//     the catalog moved, runs the read once more with the new catalog.
//   - A connection that dies without closing (a network partition) may go
//     unnoticed for up to the idle check plus the statement timeout (20 s),
//     during which reads do not see other processes' schema changes unless
//     they fail and are retried. Refresh always checks the version, for a
//     caller that must see every change committed before it.
//
// Snapshots the store installed are frozen (Catalog.Frozen): what is derived
// from one, such as the encoded schema, may be cached under its pointer.
//
// # SQLite connections
//
// A file store uses WAL, busy_timeout 5 s, foreign keys and immediate write
// transactions, with up to 4 connections (readers run beside the writer).
// "sqlite::memory:" is a private database on exactly one connection: callers
// must not hold a *sql.Rows open while running another statement on DB().
//
// Each connection of a file store is set up for bulk writes (a
// synchronization writes up to a thousand entities a transaction):
//
//   - page cache 8 MiB a connection (cache_size), so the inner pages of the
//     indexes a page of entities lands in stay in memory. Larger caches were
//     not faster on 1M-item syncs but cost about twice their size in
//     resident memory (20 MiB: 100 MiB peak instead of 78).
//   - no memory map (mmap_size 0): mapped pages count in the process's
//     resident memory, and a database of a million entities is ~300 MB.
//   - statement journals in memory (temp_store MEMORY): a multi-row upsert
//     inside a transaction keeps the pages it may have to roll back in
//     memory instead of writing them to a temporary file. The bulk insert
//     of new entities needs none: it is INSERT OR FAIL, and its caller
//     rolls the transaction back on an error.
//   - the WAL is checkpointed into the database by the commit that takes
//     it past 1000 pages (4 MiB; wal_autocheckpoint), and truncated back to
//     32 MiB (journal_size_limit) after a checkpoint that a long reader had
//     held off: the log stays bounded.
//   - synchronous=NORMAL in WAL mode: a commit writes the WAL but does not
//     fsync it; the WAL is synced at each checkpoint. A crash of the host
//     process (kill -9 included) loses nothing committed, since the
//     operating system has the WAL. A power loss or operating-system crash
//     may lose the transactions committed since the last checkpoint (about
//     4 MiB of WAL), never more, and never leaves the database
//     corrupt: it opens as of an earlier commit. A synchronization commits a
//     page and the position after it together, so it resumes from that
//     earlier position and fetches the lost pages again.
//
// # Engines
//
// What differs between SQLite and PostgreSQL inside the store (migration
// and catalog locks, change notification, column limits, bulk inserts and
// upserts, key lists) is one method each of the driver interface, with one
// implementation per engine. On PostgreSQL the bulk insert of new entities
// is one COPY a page (binary, no statement to plan); the values are checked
// before the COPY starts, so a refused value leaves the transaction usable.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	_ "modernc.org/sqlite"             // SQLite driver "sqlite"
)

// Entity ids come from a buffered random pool (far fewer reads of
// crypto/rand per created entity). uuid.EnableRandPool is not safe while
// ids are being made: it is turned on once, before anything runs.
func init() { uuid.EnableRandPool() }

// DocumentsTable holds the contents of rich-text documents (secret, a
// lower-case uuid, primary key; content, markdown; updated_at, Unix
// milliseconds). The documents service reads and writes it; the store's
// migrations create it, and the store deletes a document's content in the
// transaction that deletes the document (with its entity, its field or its
// type).
const DocumentsTable = "host_documents"

// Store is the workspace host's database: catalog plus entity tables.
type Store struct {
	db      *sql.DB
	dialect Dialect
	drv     driver // what differs between the engines

	mu  sync.RWMutex
	cat *Catalog

	// now is the clock (tests may replace it).
	now func() time.Time

	// fresh keeps the catalog current without a round trip per read
	// (PostgreSQL only; nil on SQLite).
	fresh *freshness
}

// Entity ids come from a buffered random pool (far fewer reads of
// crypto/rand per created entity). uuid.EnableRandPool must not run beside
// other uses of the package, so it runs once, at initialization (Open
// called it, and two Opens at once raced).
func init() { uuid.EnableRandPool() }

// ErrDSN reports a DSN that Open does not accept.
var ErrDSN = errors.New("store: unsupported DSN")

// Open opens the store and runs the migrations it has not run (every
// fixed table of the host is made by them; see migrations.go); it also
// renames the enum types of synchronized selects that still have the
// host's former names (<space>.<type>.<field>/options) to the workspace
// service's (<field>_<holder type>; see legacyEnumRenames). DSN forms:
// "sqlite:PATH" (file, created if missing), "sqlite::memory:" (private
// in-memory DB, for tests), "postgres://..." or "postgresql://...".
func Open(ctx context.Context, dsn string) (*Store, error) {
	var (
		db  *sql.DB
		d   Dialect
		drv driver
		pg  string
	)
	switch {
	case dsn == "sqlite::memory:":
		var err error
		db, err = sql.Open("sqlite", ":memory:?_pragma=foreign_keys(1)")
		if err != nil {
			return nil, fmt.Errorf("store: open sqlite memory: %w", err)
		}
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
		d, drv = SQLite, sqliteDriver{}
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(dsn, "sqlite:")
		if path == "" || strings.ContainsAny(path, "?#") {
			return nil, fmt.Errorf("%w: sqlite path %q is empty or holds ? or #", ErrDSN, path)
		}
		var err error
		db, err = sql.Open("sqlite", sqliteFileDSN(path))
		if err != nil {
			return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
		}
		db.SetMaxOpenConns(4)
		d, drv = SQLite, sqliteDriver{}
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		var err error
		db, err = sql.Open("pgx", dsn)
		if err != nil {
			return nil, fmt.Errorf("store: open postgres: %w", err)
		}
		db.SetMaxOpenConns(16)
		db.SetMaxIdleConns(16)
		d, drv = Postgres, postgresDriver{}
		pg = dsn
	default:
		return nil, fmt.Errorf("%w: want sqlite:PATH, sqlite::memory: or postgres://HOST/DB", ErrDSN)
	}
	s := &Store{db: db, dialect: d, drv: drv, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.renameLegacyEnums(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if pg != "" {
		s.fresh = newFreshness()
		go s.listen(pg)
	}
	return s, nil
}

// Close stops the catalog listener (PostgreSQL) and closes the database.
func (s *Store) Close() error {
	if s.fresh != nil {
		s.fresh.close()
	}
	return s.db.Close()
}

// DB returns the database (both backends through database/sql).
func (s *Store) DB() *sql.DB { return s.db }

// Dialect returns the SQL dialect of the store.
func (s *Store) Dialect() Dialect { return s.dialect }

// SetClock replaces the clock used for creation and modification dates (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// DocumentSecretExists reports whether a rich-text document with this secret
// exists, i.e. some entity's rich-text field points at a
// Collaboration~Documents/Document entity with that secret.
func (s *Store) DocumentSecretExists(ctx context.Context, secret string) (bool, error) {
	u, err := uuid.Parse(secret)
	if err != nil {
		return false, nil
	}
	cat, err := s.Catalog(ctx)
	if err != nil {
		return false, err
	}
	dt := cat.Type(DocumentType)
	sf := dt.Field(DocumentSecret)
	var one int
	err = s.db.QueryRowContext(ctx, s.dialect.Rebind(
		"SELECT 1 FROM "+dt.Table+" WHERE "+sf.Col+" = ? LIMIT 1"), u.String()).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: document secret lookup: %w", err)
	}
	return true, nil
}

// Catalog returns the current catalog snapshot. On SQLite it is the
// in-memory one. On PostgreSQL it is the in-memory one too while the catalog
// listener is connected and no announced change is pending; otherwise the
// version is checked against the database (one round trip) and the snapshot
// reloaded when another process changed it. The snapshot is immutable.
func (s *Store) Catalog(ctx context.Context) (*Catalog, error) {
	s.mu.RLock()
	cat := s.cat
	s.mu.RUnlock()
	if s.fresh == nil || s.fresh.current(cat) {
		return cat, nil
	}
	fresh, _, err := s.recheck(ctx, cat)
	return fresh, err
}

// Refresh is Catalog for a caller that must see every schema change
// committed before the call, whichever process made it: on PostgreSQL it
// always checks the version against the database (one round trip).
func (s *Store) Refresh(ctx context.Context) (*Catalog, error) {
	s.mu.RLock()
	cat := s.cat
	s.mu.RUnlock()
	if s.fresh == nil {
		return cat, nil
	}
	fresh, _, err := s.recheck(ctx, cat)
	return fresh, err
}

// recheck reads the catalog version from the database (one round trip) and,
// when it differs from seen's, the new document, which it installs. It
// reports whether the catalog moved past seen.
func (s *Store) recheck(ctx context.Context, seen *Catalog) (*Catalog, bool, error) {
	s.fresh.roundTrips.Add(1)
	var (
		v   int64
		doc sql.NullString
	)
	err := s.db.QueryRowContext(ctx, "SELECT version, CASE WHEN version <> $1 THEN doc END FROM catalog_state WHERE id = 1", seen.Version).Scan(&v, &doc)
	if err != nil {
		return nil, false, fmt.Errorf("store: catalog version: %w", err)
	}
	if v == seen.Version || !doc.Valid {
		return seen, false, nil
	}
	c, err := decodeCatalog([]byte(doc.String))
	if err != nil {
		return nil, false, err
	}
	return s.install(c), true, nil
}

// install makes c the snapshot unless one of its version or newer is
// installed already, and returns the snapshot now installed. An installed
// catalog is never changed again, and a version is installed once: the
// types and fields of a snapshot stay the ones every transaction of that
// version sees (the store's methods compare them by identity), even when
// the catalog listener decodes the version again after the writer that made
// it installed it.
func (s *Store) install(c *Catalog) *Catalog {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.frozen = true
	if s.cat == nil || c.Version > s.cat.Version {
		s.cat = c
	}
	return s.cat
}
