package store

import "strings"

// Test access to the catalog listener.

// ListenerPID is the backend pid of the catalog listener's connection.
func (s *Store) ListenerPID() uint32 { return s.fresh.pid.Load() }

// CatalogRetries is the number of reads View ran a second time.
func (s *Store) CatalogRetries() int64 { return s.fresh.retries.Load() }

// HoldNotifications makes the listener call hook before it handles each
// notification (nil removes it).
func (s *Store) HoldNotifications(hook func()) {
	if hook == nil {
		s.fresh.hook.Store(nil)
		return
	}
	s.fresh.hook.Store(&hook)
}

// HoldReconnect makes the listener call hook before each connection attempt
// (nil removes it).
func (s *Store) HoldReconnect(hook func()) {
	if hook == nil {
		s.fresh.connectHook.Store(nil)
		return
	}
	s.fresh.connectHook.Store(&hook)
}

// ExplainMatch is the engine's plan of MatchByValue's lookup of keys by the
// key field f of ty, in tx.
func (t *Tx) ExplainMatch(ty *Type, f *Field, keys []string) (string, error) {
	cond, args := t.s.drv.keysIn(f.Col, keys)
	rows, err := t.tx.QueryContext(t.ctx, t.s.dialect.Rebind("EXPLAIN SELECT id FROM "+ty.Table+" WHERE "+cond), args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		plan = append(plan, line)
	}
	return strings.Join(plan, "\n"), rows.Err()
}

// Migrations is the number of migrations (the last version).
func Migrations() int { return len(migrations) }
