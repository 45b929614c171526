package apps

import (
	"context"
	"database/sql"
	"fmt"
)

// queryRower is a *sql.DB or *sql.Tx.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// leaseClock is the time leases are measured with, in Unix milliseconds:
// the database's clock on PostgreSQL (hosts whose clocks disagree still
// agree on when a lease ends), this process's clock on SQLite (one process
// per file).
func (s *core) leaseClock(ctx context.Context, q queryRower) (int64, error) {
	clock := s.d.SharedClockSQL()
	if clock == "" {
		return ms(s.now()), nil
	}
	var now int64
	if err := q.QueryRowContext(ctx, clock).Scan(&now); err != nil {
		return 0, fmt.Errorf("read the database clock: %w", err)
	}
	return now, nil
}

// leaseLive reports whether a host holds the sync now.
func (s *core) leaseLive(ctx context.Context, q queryRower, sy *Sync) (bool, error) {
	if sy.LeaseOwner == "" || sy.LeaseUntil == nil {
		return false, nil
	}
	now, err := s.leaseClock(ctx, q)
	if err != nil {
		return false, err
	}
	return ms(*sy.LeaseUntil) > now, nil
}

// forUpdate locks the selected rows where the engine locks rows.
func (s *core) forUpdate() string { return s.d.LockRows() }

// cancelAsked reports whether the sync's cancel flag is set.
func (s *core) cancelAsked(ctx context.Context, id string) bool {
	var flag string
	err := s.db.QueryRowContext(ctx, s.q("SELECT cancel_run FROM apps_syncs WHERE id = ?"), id).Scan(&flag)
	return err == nil && flag != ""
}
