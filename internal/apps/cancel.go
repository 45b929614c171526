package apps

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/internal/store"
)

// errCancelled is the cause of a run's context when its run was cancelled
// (by the user, or by a change or the deletion of its sync).
var errCancelled = errors.New("the run was cancelled")

// Why a run was cancelled (kept in apps_syncs.cancel_reason until the
// holder ends the run).
const (
	cancelByUser    = "user"
	cancelByChange  = "changed"
	cancelByDeleted = "deleted"
	// cancelNoRun is the cancel_run of a request to stop the holder of a
	// sync that has no run (its deletion while it applies events).
	cancelNoRun = "-"
)

// cancelMessage is the error kept with a run cancelled for reason.
func cancelMessage(reason string) string {
	switch reason {
	case cancelByChange:
		return "cancelled: the sync was changed while it ran; it runs again with the new settings"
	case cancelByDeleted:
		return "cancelled: the sync was removed"
	}
	return "cancelled by a user"
}

// CancelSync cancels the sync's run in progress, queued or paused. A run
// that no host holds ends at once; a run that a host is running ends when
// that host learns of the cancel: at once when it is this process, else at
// its next lease renewal (within LeaseTTL/3), which reads the cancel flag
// in the sync's row. The run is answered as it is now (status cancelled,
// or still running until its holder stops); the sync is due again at its
// next scheduled time. ErrConflict when the sync has no run to cancel.
func (s *SyncService) CancelSync(ctx context.Context, syncID string) (*Run, error) {
	runID, err := s.cancelRun(ctx, syncID, cancelByUser)
	if err != nil {
		return nil, err
	}
	if runID == "" {
		return nil, fmt.Errorf("%w: the sync has no run in progress, queued or paused", ErrConflict)
	}
	return s.Run(ctx, runID)
}

// activeRun is the sync's run that is queued, running or paused ("" when
// none), read on db (the store's database or a transaction).
func (s *SyncService) activeRun(ctx context.Context, db store.DB, sy *Sync) (string, error) {
	if sy.RunID == "" {
		return "", nil
	}
	status, err := s.on(db).runStatus(ctx, sy.RunID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the run: %w", err)
	}
	if status == StatusQueued || status == StatusRunning || status == StatusPaused {
		return sy.RunID, nil
	}
	return "", nil
}

// cancelRun cancels the sync's active run for reason and returns its id
// ("" when there was none). When a host holds the sync (its lease was not
// released), the cancel flag is set for it; else the run ends here. The work
// of this process on the sync is cancelled first, so that a long write of
// its run does not hold up the flag's.
func (s *SyncService) cancelRun(ctx context.Context, syncID, reason string) (string, error) {
	sy, err := s.Sync(ctx, syncID)
	if err != nil {
		return "", err
	}
	runID, err := s.activeRun(ctx, s.db, sy)
	if err != nil || runID == "" {
		return "", err
	}
	s.held.cancelHere(syncID, reason)
	err = s.tx(ctx, func(tx *sql.Tx) error {
		sy, err := s.lockSync(ctx, tx, syncID)
		if err != nil {
			return err
		}
		if sy.RunID != runID {
			return nil // it ended meanwhile
		}
		if sy.LeaseOwner != "" {
			// Held, or its lease lapsed without a release: the holder, if
			// it still works, reads the flag at its next renewal, else the
			// next holder does when it takes the sync (the run's sync stays
			// due until then).
			return s.on(tx).setCancelFlag(ctx, syncID, runID, reason)
		}
		return s.endCancelled(ctx, tx, syncID, runID, reason)
	})
	if err != nil {
		return "", fmt.Errorf("cancel the run: %w", err)
	}
	return runID, nil
}

// endCancelled ends a run as cancelled (in tx) and clears the sync's
// cancel flag; the sync is due again at once after a change, else at its
// next scheduled time.
func (s *SyncService) endCancelled(ctx context.Context, tx *sql.Tx, syncID, runID, reason string) error {
	now := s.now()
	q := s.on(tx)
	if err := q.setRunCancelled(ctx, runID, cancelMessage(reason), now); err != nil {
		return err
	}
	every, err := q.syncEvery(ctx, syncID)
	if err != nil {
		return err
	}
	next := int64(0)
	switch {
	case reason == cancelByChange:
		next = ms(now)
	case every > 0:
		next = ms(now.Add(time.Duration(every) * time.Millisecond))
	}
	return q.endSyncRun(ctx, syncID, runID, next)
}

// finishCancel is run by the holder of a sync before it releases the
// lease: a run cancelled through the flag, or by this process, ends as
// cancelled, and the flag is cleared.
func (s *SyncService) finishCancel(ctx context.Context, syncID, localReason string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		runID, flag, reason, err := s.on(tx).lockHeldCancelFlag(ctx, syncID, s.cfg.HostID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // removed, or taken over
		}
		if err != nil {
			return err
		}
		if flag == "" && localReason == "" {
			return nil
		}
		if reason == "" {
			reason = localReason
		}
		if runID != "" && (flag == runID || localReason != "") {
			return s.endCancelled(ctx, tx, syncID, runID, reason)
		}
		return s.on(tx).clearCancelFlag(ctx, syncID)
	})
}

// stopHolder makes the host that holds the sync stop (its run cancelled
// for reason) and waits until no host holds it: it returns false when a
// host still held it after LeaseTTL and a margin (or ctx ended).
func (s *SyncService) stopHolder(ctx context.Context, syncID, reason string) (bool, error) {
	if _, err := s.cancelRun(ctx, syncID, reason); err != nil {
		return false, err
	}
	done := s.held.cancelHere(syncID, reason)
	sy, err := s.Sync(ctx, syncID)
	if err != nil {
		return false, err
	}
	if live, err := s.leaseLive(ctx, s.db, sy); err != nil || !live {
		return !live, err
	}
	if done == nil {
		// Another host: it reads the flag at its next renewal.
		if err := s.on(s.db).setStopFlag(ctx, syncID, reason); err != nil {
			return false, fmt.Errorf("stop the sync's holder: %w", err)
		}
	}
	wait := time.NewTimer(s.cfg.LeaseTTL + 5*time.Second)
	defer wait.Stop()
	poll := time.NewTicker(min(s.cfg.Poll, s.cfg.LeaseTTL/3))
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-wait.C:
			return false, nil
		case <-done:
			done = nil
		case <-poll.C:
		}
		sy, err := s.Sync(ctx, syncID)
		if err != nil {
			return false, err
		}
		if live, err := s.leaseLive(ctx, s.db, sy); err != nil || !live {
			return !live, err
		}
	}
}
