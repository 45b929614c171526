package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Querier runs a query (a *sql.DB or the transaction of a Tx).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Tx is one write transaction: entity writes and schema changes. It is not
// safe for concurrent use.
type Tx struct {
	s    *Store
	ctx  context.Context
	conn *sql.Conn // the connection of tx (for an engine's own protocol, such as COPY)
	tx   *sql.Tx

	cat       *Catalog // snapshot, or a private clone once the schema changed
	dirty     bool
	exclusive bool

	counters map[string]int64 // type id -> last public id handed out
	stored   map[string]int64 // type id -> its counter row's value as this transaction last wrote it
	stmts    map[string]*sql.Stmt
	queried  map[string]bool // query texts queryRows ran once in this transaction
	now      time.Time
}

// Write runs fn in one transaction: all of it commits, or none of it.
func (s *Store) Write(ctx context.Context, fn func(tx *Tx) error) error {
	return s.write(ctx, false, fn)
}

// WriteSchema is Write for a transaction that will change the schema: on
// PostgreSQL it locks the catalog exclusively from the start, so concurrent
// schema changes queue instead of deadlocking on a lock upgrade.
func (s *Store) WriteSchema(ctx context.Context, fn func(tx *Tx) error) error {
	return s.write(ctx, true, fn)
}

func (s *Store) write(ctx context.Context, exclusive bool, fn func(tx *Tx) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer conn.Close()
	sqlTx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	s.mu.RLock()
	cat := s.cat
	s.mu.RUnlock()
	t := &Tx{s: s, ctx: ctx, conn: conn, tx: sqlTx, cat: cat, now: s.now()}
	defer func() {
		for _, st := range t.stmts {
			st.Close()
		}
		if sqlTx != nil {
			sqlTx.Rollback()
		}
	}()
	if err := t.syncCatalog(exclusive); err != nil {
		return err
	}
	t.exclusive = exclusive
	if err := fn(t); err != nil {
		return err
	}
	if err := t.flushCounters(); err != nil {
		return err
	}
	if t.dirty {
		t.cat.Version++
		doc, err := jsonMarshal(t.cat)
		if err != nil {
			return err
		}
		if _, err := t.exec("UPDATE catalog_state SET version = ?, doc = ? WHERE id = 1", t.cat.Version, doc); err != nil {
			return err
		}
		// Delivered to every listener when the transaction commits.
		if err := s.drv.notifyCatalog(t); err != nil {
			return err
		}
	}
	for _, st := range t.stmts {
		st.Close()
	}
	t.stmts = nil
	err = sqlTx.Commit()
	sqlTx = nil
	if err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	if t.dirty {
		t.cat.reindex()
		s.install(t.cat)
	}
	return nil
}

// syncCatalog locks the catalog row (PostgreSQL) and reloads a stale snapshot.
func (t *Tx) syncCatalog(exclusive bool) error {
	q := t.s.drv.lockCatalogSQL(exclusive, t.cat != nil)
	if q == "" {
		return nil
	}
	var v int64
	if err := t.tx.QueryRowContext(t.ctx, q).Scan(&v); err != nil {
		return fmt.Errorf("store: lock catalog: %w", err)
	}
	if t.cat != nil && v == t.cat.Version {
		return nil
	}
	if t.dirty {
		return Errorf(NameConcurrentSchemaOp, nil, "the schema was changed by another process; retry")
	}
	var doc string
	if err := t.tx.QueryRowContext(t.ctx, "SELECT doc FROM catalog_state WHERE id = 1").Scan(&doc); err != nil {
		return fmt.Errorf("store: reload catalog: %w", err)
	}
	c, err := decodeCatalog([]byte(doc))
	if err != nil {
		return err
	}
	t.cat = t.s.install(c)
	return nil
}

// Catalog is the catalog as this transaction sees it (including its own
// schema changes).
func (t *Tx) Catalog() *Catalog { return t.cat }

// Querier is the transaction, for running compiled queries inside it.
func (t *Tx) Querier() Querier { return t.tx }

// Context is the context of the transaction.
func (t *Tx) Context() context.Context { return t.ctx }

// Dialect is the store's dialect.
func (t *Tx) Dialect() Dialect { return t.s.dialect }

// mutable makes the catalog private to this transaction before a schema change.
func (t *Tx) mutable() error {
	if !t.exclusive {
		if err := t.syncCatalog(true); err != nil {
			return err
		}
		t.exclusive = true
	}
	if !t.dirty {
		t.cat = t.cat.Clone()
		t.dirty = true
	}
	return nil
}

// ddl runs a schema statement and drops cached statements.
func (t *Tx) ddl(q string) error {
	for _, st := range t.stmts {
		st.Close()
	}
	t.stmts = nil
	if _, err := t.tx.ExecContext(t.ctx, q); err != nil {
		return fmt.Errorf("store: ddl %q: %w", q, err)
	}
	return nil
}

// statement is one SQL text run in a transaction: a *sql.Stmt prepared
// for the transaction, or the text run as it is (unprepared).
type statement interface {
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
}

// unprepared runs its text on the transaction at each call, for an engine
// whose client keeps its own prepared statements per connection.
type unprepared struct {
	tx *sql.Tx
	q  string
}

func (u unprepared) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return u.tx.ExecContext(ctx, u.q, args...)
}

func (u unprepared) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	return u.tx.QueryContext(ctx, u.q, args...)
}

func (u unprepared) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return u.tx.QueryRowContext(ctx, u.q, args...)
}

// stmt is the statement of q (placeholders ?) in this transaction: prepared
// once a transaction where the engine wants that (driver.preparesPerTx).
func (t *Tx) stmt(q string) (statement, error) {
	if !t.s.drv.preparesPerTx() {
		return unprepared{t.tx, t.s.dialect.Rebind(q)}, nil
	}
	if st, ok := t.stmts[q]; ok {
		return st, nil
	}
	st, err := t.tx.PrepareContext(t.ctx, t.s.dialect.Rebind(q))
	if err != nil {
		return nil, fmt.Errorf("store: prepare: %w", err)
	}
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[q] = st
	return st, nil
}

// exec runs a statement with ? placeholders (cached as a prepared statement).
func (t *Tx) exec(q string, args ...any) (sql.Result, error) {
	if err := checkArgs(args); err != nil {
		return nil, err
	}
	st, err := t.stmt(q)
	if err != nil {
		return nil, err
	}
	r, err := st.ExecContext(t.ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("store: exec: %w", clientError(err))
	}
	return r, nil
}

// exists runs a query with ? placeholders and reports whether it returned a row.
func (t *Tx) exists(q string, args ...any) (bool, error) {
	st, err := t.stmt(q)
	if err != nil {
		return false, err
	}
	var one any
	err = st.QueryRowContext(t.ctx, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: query: %w", err)
	}
	return true, nil
}

// nextPublicID hands out the next public id of a type. The counter row is
// locked by the first UPDATE of the transaction and written back at commit.
func (t *Tx) nextPublicID(typeID string) (string, error) {
	if n, ok := t.counters[typeID]; ok {
		t.counters[typeID] = n + 1
		return fmt.Sprint(n + 1), nil
	}
	st, err := t.stmt("UPDATE catalog_counters SET next = next + 1 WHERE type_id = ? RETURNING next")
	if err != nil {
		return "", err
	}
	var n int64
	if err := st.QueryRowContext(t.ctx, typeID).Scan(&n); err != nil {
		return "", fmt.Errorf("store: public id counter: %w", err)
	}
	if t.counters == nil {
		t.counters = map[string]int64{}
	}
	t.counters[typeID] = n
	t.storeCounter(typeID, n)
	return fmt.Sprint(n), nil
}

// storeCounter records that the counter row of typeID holds n.
func (t *Tx) storeCounter(typeID string, n int64) {
	if t.stored == nil {
		t.stored = map[string]int64{}
	}
	t.stored[typeID] = n
}

func (t *Tx) flushCounters() error {
	for id, n := range t.counters {
		if v, ok := t.stored[id]; ok && v == n {
			continue // the row holds it already
		}
		if _, err := t.exec("UPDATE catalog_counters SET next = ? WHERE type_id = ?", n, id); err != nil {
			return err
		}
	}
	t.counters, t.stored = nil, nil
	return nil
}
