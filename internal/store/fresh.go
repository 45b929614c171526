package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// notifyChannel is the PostgreSQL channel on which every catalog change is
// announced, in the transaction that makes it.
const notifyChannel = "appkit_catalog"

// Listener timings.
const (
	// listenIdle is how long the listener waits for a notification before
	// checking its connection (and the catalog version) itself.
	listenIdle = 10 * time.Second
	// listenTimeout bounds connecting and each statement of the listener.
	listenTimeout = 10 * time.Second
	// Reconnection backoff: doubled after each failure, from min to max.
	listenBackoffMin = 50 * time.Millisecond
	listenBackoffMax = 5 * time.Second
)

// notifyPayload is the notification of catalog c: its schema id (the
// database may hold the catalogs of several schemas, all on one channel) and
// its version.
func notifyPayload(c *Catalog) string {
	return c.SchemaID + " " + strconv.FormatInt(c.Version, 10)
}

// parsePayload reads a notification payload; ok is false for anything else.
func parsePayload(p string) (schemaID string, version int64, ok bool) {
	id, v, found := strings.Cut(p, " ")
	if !found || id == "" {
		return "", 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return "", 0, false
	}
	return id, n, true
}

// freshness is what keeps a PostgreSQL store's catalog current: the state of
// the listener and counters.
type freshness struct {
	// listening is true while the listener is connected, listening and
	// caught up with the database.
	listening atomic.Bool
	// announced is the highest catalog version a notification announced.
	announced atomic.Int64
	// roundTrips counts the catalog version checks made for reads.
	roundTrips atomic.Int64
	// retries counts reads run again after the catalog moved under them.
	retries atomic.Int64
	// pid is the backend process id of the listener's connection.
	pid atomic.Uint32
	// hook, when set, runs before the listener handles a notification
	// (tests hold notifications back with it).
	hook atomic.Pointer[func()]
	// connectHook, when set, runs before the listener connects (tests keep
	// it down with it).
	connectHook atomic.Pointer[func()]

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

func newFreshness() *freshness {
	ctx, cancel := context.WithCancel(context.Background())
	return &freshness{ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// current reports whether snapshot cat may be used without asking the
// database: the listener is healthy and announced no newer version.
func (f *freshness) current(cat *Catalog) bool {
	return f.listening.Load() && f.announced.Load() <= cat.Version
}

// close stops the listener and waits for it.
func (f *freshness) close() {
	f.cancel()
	<-f.done
}

// CatalogRoundTrips is the number of catalog version checks reads made
// against the database (0 on SQLite): one per read while the catalog
// listener is down, one per failed read otherwise. A metric, and what tests
// count.
func (s *Store) CatalogRoundTrips() int64 {
	if s.fresh == nil {
		return 0
	}
	return s.fresh.roundTrips.Load()
}

// CatalogListening reports whether the PostgreSQL catalog listener is
// connected and caught up, so reads take the catalog from memory (a health
// signal; always false on SQLite, whose catalog needs no listener).
func (s *Store) CatalogListening() bool {
	return s.fresh != nil && s.fresh.listening.Load()
}

// View runs fn, a read that changes nothing, with the current catalog
// snapshot. On PostgreSQL a failed fn (a store error such as an unknown type
// or field, or SQL failing on a column or table that is gone) makes View
// check the catalog version; when another process changed the catalog since
// the snapshot (its notification not handled yet), fn runs once more with
// the new catalog and that is the answer. fn must have no effect outside
// its own result, as it may run twice. Both APIs read through View.
func (s *Store) View(ctx context.Context, fn func(cat *Catalog) error) error {
	cat, err := s.Catalog(ctx)
	if err != nil {
		return err
	}
	err = fn(cat)
	if err == nil || s.fresh == nil || ctx.Err() != nil {
		return err
	}
	fresh, moved, rerr := s.recheck(ctx, cat)
	if rerr != nil || !moved {
		return err
	}
	s.fresh.retries.Add(1)
	return fn(fresh)
}

// listen runs the catalog listener until the store is closed, reconnecting
// with backoff.
func (s *Store) listen(dsn string) {
	f := s.fresh
	defer close(f.done)
	backoff := listenBackoffMin
	for {
		caughtUp := s.listenOnce(f.ctx, dsn)
		f.listening.Store(false)
		if caughtUp {
			backoff = listenBackoffMin
		}
		select {
		case <-f.ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, listenBackoffMax)
	}
}

// listenOnce connects, listens, catches up and handles notifications until
// the connection fails or ctx ends. It reports whether it got as far as
// catching up.
func (s *Store) listenOnce(ctx context.Context, dsn string) (caughtUp bool) {
	f := s.fresh
	if h := f.connectHook.Load(); h != nil {
		(*h)()
	}
	cctx, cancel := context.WithTimeout(ctx, listenTimeout)
	conn, err := pgx.Connect(cctx, dsn)
	cancel()
	if err != nil {
		return false
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn.Close(cctx)
		cancel()
	}()
	f.pid.Store(conn.PgConn().PID())
	lctx, cancel := context.WithTimeout(ctx, listenTimeout)
	_, err = conn.Exec(lctx, "LISTEN "+notifyChannel)
	cancel()
	if err != nil {
		return false
	}
	// A change committed before LISTEN took effect announced itself to
	// nobody here: read the version once now that every later one will be.
	if s.catchUp(ctx, conn) != nil {
		return false
	}
	f.listening.Store(true)
	s.mu.RLock()
	schemaID := s.cat.SchemaID
	s.mu.RUnlock()
	for {
		wctx, cancel := context.WithTimeout(ctx, listenIdle)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			return true
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed() {
				// Idle: prove the connection alive (and catch up, should
				// a notification have been lost).
				if s.catchUp(ctx, conn) != nil {
					return true
				}
				continue
			}
			return true
		}
		if h := f.hook.Load(); h != nil {
			(*h)()
		}
		id, v, ok := parsePayload(n.Payload)
		if !ok || id != schemaID {
			continue // another schema's catalog, or not ours
		}
		for {
			cur := f.announced.Load()
			if v <= cur || f.announced.CompareAndSwap(cur, v) {
				break
			}
		}
		if s.catchUp(ctx, conn) != nil {
			return true
		}
	}
}

// catchUp reads the catalog version on the listener's connection and
// installs the new catalog when it moved.
func (s *Store) catchUp(ctx context.Context, conn *pgx.Conn) error {
	s.mu.RLock()
	seen := s.cat.Version
	s.mu.RUnlock()
	ctx, cancel := context.WithTimeout(ctx, listenTimeout)
	defer cancel()
	var (
		v   int64
		doc *string
	)
	if err := conn.QueryRow(ctx, "SELECT version, CASE WHEN version <> $1 THEN doc END FROM catalog_state WHERE id = 1", seen).Scan(&v, &doc); err != nil {
		return fmt.Errorf("store: catalog listener: %w", err)
	}
	if v == seen || doc == nil {
		return nil
	}
	c, err := decodeCatalog([]byte(*doc))
	if err != nil {
		return err
	}
	s.install(c)
	return nil
}
