package apps

import (
	"context"
	"fmt"

	"github.com/appkitgo/appkit/internal/store"
)

// leaseClock is the time leases are measured with, in Unix milliseconds:
// the database's clock on PostgreSQL (hosts whose clocks disagree still
// agree on when a lease ends), this process's clock on SQLite (one process
// per file). db is the store's database or a transaction.
func (s *core) leaseClock(ctx context.Context, db store.DB) (int64, error) {
	now, ok, err := s.on(db).sharedClock(ctx)
	if err != nil {
		return 0, fmt.Errorf("read the database clock: %w", err)
	}
	if !ok {
		return ms(s.now()), nil
	}
	return now, nil
}

// leaseLive reports whether a host holds the sync now.
func (s *core) leaseLive(ctx context.Context, db store.DB, sy *Sync) (bool, error) {
	if sy.LeaseOwner == "" || sy.LeaseUntil == nil {
		return false, nil
	}
	now, err := s.leaseClock(ctx, db)
	if err != nil {
		return false, err
	}
	return ms(*sy.LeaseUntil) > now, nil
}

// cancelAsked reports whether the sync's cancel flag is set.
func (s *core) cancelAsked(ctx context.Context, id string) bool {
	flag, err := s.on(s.db).cancelFlag(ctx, id)
	return err == nil && flag != ""
}
