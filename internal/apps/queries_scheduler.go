package apps

import (
	"context"
	"strings"
)

// The scheduler's statements: claiming and leasing syncs (apps_syncs, with
// apps_events for the waiting events), starting and ending runs
// (apps_runs) and their cancel flags.

// Leases.

// sharedClock reads the database's clock in Unix milliseconds; ok is false
// (and nothing is read) where the engine has no shared clock (SQLite).
func (q queries) sharedClock(ctx context.Context) (now int64, ok bool, err error) {
	clock := q.d.SharedClockSQL()
	if clock == "" {
		return 0, false, nil
	}
	if err := q.db.QueryRowContext(ctx, clock).Scan(&now); err != nil {
		return 0, false, err
	}
	return now, true, nil
}

// claimFilter is what claim looks for: a sync of kind, none of those in
// except, of no app in full, those of apps in running last (claimDue).
type claimFilter struct {
	kind                  claimKind
	except, full, running []string
}

// inList is " AND col NOT IN (?, ...)" (or IN) for ids, its values added
// to args; "" when there are none.
func inList(col string, not bool, ids []string, args *[]any) string {
	if len(ids) == 0 {
		return ""
	}
	for _, id := range ids {
		*args = append(*args, id)
	}
	op := " IN "
	if not {
		op = " NOT IN "
	}
	return " AND " + col + op + "(?" + strings.Repeat(", ?", len(ids)-1) + ")"
}

// claimQuery is the query of the sync to claim (without the engine's row
// locking) and its arguments: claimDue takes a sync whose lease ended at
// leaseNow and whose run is due at now or whose webhook events wait,
// claimEvents one whose events wait, the one waiting longest first.
func claimQuery(f claimFilter, now, leaseNow int64) (string, []any) {
	const waiting = `EXISTS (SELECT 1 FROM apps_events e WHERE e.sync_id = apps_syncs.id AND e.status = 'pending' AND e.next_try <= ?)`
	var q string
	var args []any
	switch f.kind {
	case claimEvents:
		args = []any{leaseNow, now}
		q = `SELECT id, app_id FROM apps_syncs WHERE lease_until < ? AND ` + waiting + inList("id", true, f.except, &args) + `
 ORDER BY (SELECT MIN(e.received_at) FROM apps_events e WHERE e.sync_id = apps_syncs.id AND e.status = 'pending'), id LIMIT 1`
	default:
		args = []any{leaseNow, now, now}
		q = `SELECT id, app_id FROM apps_syncs WHERE lease_until < ? AND ((next_at > 0 AND next_at <= ?) OR ` + waiting + `)` +
			inList("id", true, f.except, &args) + inList("app_id", true, f.full, &args)
		order := ""
		if len(f.running) > 0 {
			order = "CASE WHEN app_id" + strings.TrimPrefix(inList("", false, f.running, &args), " AND ") + " THEN 1 ELSE 0 END, "
		}
		q += "\n ORDER BY " + order + "next_at, id LIMIT 1"
	}
	return q, args
}

// syncToClaim returns the sync to claim and its app, read without locking;
// sql.ErrNoRows when none is waiting.
func (q queries) syncToClaim(ctx context.Context, f claimFilter, now, leaseNow int64) (id, app string, err error) {
	query, args := claimQuery(f, now, leaseNow)
	err = q.row(ctx, query, args...).Scan(&id, &app)
	return id, app, err
}

// lockSyncToClaim is syncToClaim with the row locked for the claim where
// the engine locks rows (skipping those other hosts claim), in a
// transaction.
func (q queries) lockSyncToClaim(ctx context.Context, f claimFilter, now, leaseNow int64) (id, app string, err error) {
	query, args := claimQuery(f, now, leaseNow)
	err = q.row(ctx, query+q.d.ClaimRows(), args...).Scan(&id, &app)
	return id, app, err
}

// setLease gives the sync's lease to owner until until.
func (q queries) setLease(ctx context.Context, syncID, owner string, until int64) error {
	_, err := q.exec(ctx, `UPDATE apps_syncs SET lease_owner = ?, lease_until = ? WHERE id = ?`, owner, until, syncID)
	return err
}

// renewLease extends owner's lease of the sync until until; held is false
// when owner no longer holds it (or the count of rows is unknown).
func (q queries) renewLease(ctx context.Context, syncID, owner string, until int64) (held bool, err error) {
	res, err := q.exec(ctx, `UPDATE apps_syncs SET lease_until = ? WHERE id = ? AND lease_owner = ?`, until, syncID, owner)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n != 0, nil
}

// releaseLease ends owner's lease of the sync (nothing when another holds
// it).
func (q queries) releaseLease(ctx context.Context, syncID, owner string) error {
	_, err := q.exec(ctx, `UPDATE apps_syncs SET lease_owner = '', lease_until = 0 WHERE id = ? AND lease_owner = ?`, syncID, owner)
	return err
}

// Runs.

// runStatus returns a run's status; sql.ErrNoRows when there is no such
// run.
func (q queries) runStatus(ctx context.Context, runID string) (status string, err error) {
	err = q.row(ctx, `SELECT status FROM apps_runs WHERE id = ?`, runID).Scan(&status)
	return status, err
}

// runReport returns a run's report as stored (JSON, "" when none).
func (q queries) runReport(ctx context.Context, runID string) (report string, err error) {
	err = q.row(ctx, `SELECT report FROM apps_runs WHERE id = ?`, runID).Scan(&report)
	return report, err
}

// startRunAttempt marks a run as running on owner for one more attempt,
// started at now unless it had started.
func (q queries) startRunAttempt(ctx context.Context, runID, owner string, now int64) error {
	_, err := q.exec(ctx, `UPDATE apps_runs SET status = ?, owner = ?, attempts = attempts + 1,
 started_at = CASE WHEN started_at = 0 THEN ? ELSE started_at END WHERE id = ?`, StatusRunning, owner, now, runID)
	return err
}

// setRunExchanges replaces a run's exchanges (JSON).
func (q queries) setRunExchanges(ctx context.Context, runID, exchanges string) error {
	_, err := q.exec(ctx, `UPDATE apps_runs SET exchanges = ? WHERE id = ?`, exchanges, runID)
	return err
}

// setRunEnded records a run's outcome, ended at ended on owner: its status,
// report, error message and exchanges (JSON, "" when none).
func (q queries) setRunEnded(ctx context.Context, runID, owner, status string, ended int64, report, msg, exchanges string) error {
	_, err := q.exec(ctx, `UPDATE apps_runs SET status = ?, ended_at = ?, report = ?, error = ?, exchanges = ?, owner = ? WHERE id = ?`,
		status, ended, report, msg, exchanges, owner, runID)
	return err
}

// setRunCancelled ends a run as cancelled at ended with msg, when it is
// still queued, running or paused.
func (q queries) setRunCancelled(ctx context.Context, runID, msg string, ended int64) error {
	_, err := q.exec(ctx, `UPDATE apps_runs SET status = ?, ended_at = ?, error = ? WHERE id = ? AND status IN (?, ?, ?)`,
		StatusCancelled, ended, msg, runID, StatusQueued, StatusRunning, StatusPaused)
	return err
}

// The syncs' runs.

// setSyncRun makes runID the sync's run.
func (q queries) setSyncRun(ctx context.Context, syncID, runID string) error {
	_, err := q.exec(ctx, `UPDATE apps_syncs SET run_id = ? WHERE id = ?`, runID, syncID)
	return err
}

// setSyncFilterSent keeps the filter (JSON) the sync's last run sent.
func (q queries) setSyncFilterSent(ctx context.Context, syncID, filter string) error {
	_, err := q.exec(ctx, `UPDATE apps_syncs SET filter_sent = ? WHERE id = ?`, filter, syncID)
	return err
}

// setHeldSyncNext sets the sync's next time and run (runID, "" for none)
// when owner holds its lease.
func (q queries) setHeldSyncNext(ctx context.Context, syncID, owner string, next int64, runID string) error {
	_, err := q.exec(ctx, `UPDATE apps_syncs SET next_at = ?, run_id = ? WHERE id = ? AND lease_owner = ?`, next, runID, syncID, owner)
	return err
}

// syncEvery returns the sync's period in milliseconds (0: not scheduled).
func (q queries) syncEvery(ctx context.Context, syncID string) (every int64, err error) {
	err = q.row(ctx, `SELECT every_ms FROM apps_syncs WHERE id = ?`, syncID).Scan(&every)
	return every, err
}

// Cancel flags.

// cancelFlag returns the sync's cancel flag (the run to cancel, "" when
// none).
func (q queries) cancelFlag(ctx context.Context, syncID string) (flag string, err error) {
	err = q.row(ctx, `SELECT cancel_run FROM apps_syncs WHERE id = ?`, syncID).Scan(&flag)
	return flag, err
}

// lockHeldCancelFlag returns the sync's run, cancel flag and reason, the
// row locked where the engine locks rows, when owner holds its lease;
// sql.ErrNoRows when the sync is gone or another holds it.
func (q queries) lockHeldCancelFlag(ctx context.Context, syncID, owner string) (runID, flag, reason string, err error) {
	err = q.row(ctx, `SELECT run_id, cancel_run, cancel_reason FROM apps_syncs WHERE id = ? AND lease_owner = ?`+q.d.LockRows(), syncID, owner).
		Scan(&runID, &flag, &reason)
	return runID, flag, reason, err
}

// setCancelFlag asks the sync's holder to cancel runID for reason.
func (q queries) setCancelFlag(ctx context.Context, syncID, runID, reason string) error {
	_, err := q.exec(ctx, `UPDATE apps_syncs SET cancel_run = ?, cancel_reason = ? WHERE id = ?`, runID, reason, syncID)
	return err
}

// setStopFlag asks the sync's holder to stop for reason: the flag is
// cancelNoRun unless a run's cancel was asked already (kept).
func (q queries) setStopFlag(ctx context.Context, syncID, reason string) error {
	_, err := q.exec(ctx, `UPDATE apps_syncs SET cancel_run = CASE WHEN cancel_run = '' THEN ? ELSE cancel_run END, cancel_reason = ? WHERE id = ?`,
		cancelNoRun, reason, syncID)
	return err
}

// clearCancelFlag clears the sync's cancel flag and reason.
func (q queries) clearCancelFlag(ctx context.Context, syncID string) error {
	_, err := q.exec(ctx, `UPDATE apps_syncs SET cancel_run = '', cancel_reason = '' WHERE id = ?`, syncID)
	return err
}

// endSyncRun clears the sync's run (when it is still runID) and its cancel
// flag, and sets its next time.
func (q queries) endSyncRun(ctx context.Context, syncID, runID string, next int64) error {
	_, err := q.exec(ctx, `UPDATE apps_syncs SET run_id = '', next_at = ?, cancel_run = '', cancel_reason = '' WHERE id = ? AND run_id = ?`, next, syncID, runID)
	return err
}
