package apps

// Syncs, their runs as the sync service and webhooks read and write them, and webhook events (apps_syncs, apps_runs, apps_events).

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/internal/store"
)

// Syncs.

const syncCols = "id, app_id, account_id, selection, every_ms, next_at, webhook, webhook_types, run_id, lease_owner, lease_until, created_at, space, filter_sent"

// scanSync reads a sync row (syncCols).
func scanSync(r store.RowScanner) (*Sync, error) {
	var sy Sync
	var sel, webhook, wtypes, sent string
	var every, next, until, created int64
	if err := r.Scan(&sy.ID, &sy.AppID, &sy.AccountID, &sel, &every, &next, &webhook, &wtypes, &sy.RunID, &sy.LeaseOwner, &until, &created, &sy.Space, &sent); err != nil {
		return nil, err
	}
	if sent != "" {
		_ = json.Unmarshal([]byte(sent), &sy.sent)
	}
	sy.selection = sel
	var doc selectionDoc
	if err := json.Unmarshal([]byte(sel), &doc); err != nil {
		return nil, fmt.Errorf("decode the selection: %w", err)
	}
	sy.Types, sy.Filter = doc.Types, doc.Filter
	if sy.Types == nil {
		sy.Types = []string{}
	}
	if every > 0 {
		sy.Every = FormatEvery(time.Duration(every) * time.Millisecond)
	}
	sy.NextAt, sy.CreatedAt = fromMS(next), time.UnixMilli(created).UTC()
	if webhook != "" {
		sy.Webhook = json.RawMessage(webhook)
	}
	if wtypes != "" {
		_ = json.Unmarshal([]byte(wtypes), &sy.WebhookTypes)
	}
	if sy.LeaseOwner != "" {
		sy.LeaseUntil = fromMS(until)
	}
	return &sy, nil
}

// insertSync adds sy (its id, app, account, types, filter and space) on
// the schedule every (0: on demand only), created and due at now, with
// no webhook, run or lease.
func (q queries) insertSync(ctx context.Context, sy *Sync, every time.Duration, now time.Time) error {
	_, err := q.exec(ctx, `INSERT INTO apps_syncs (id, app_id, account_id, selection, every_ms, next_at, webhook, webhook_types, run_id, lease_owner, lease_until, created_at, space)
VALUES (?, ?, ?, ?, ?, ?, '', '', '', '', 0, ?, ?)`, sy.ID, sy.AppID, sy.AccountID, mustJSON(selectionDoc{sy.Types, sy.Filter}), every.Milliseconds(), ms(now), ms(now), sy.Space)
	return err
}

// syncByID returns a sync.
func (q queries) syncByID(ctx context.Context, id string) (*Sync, error) {
	return scanSync(q.row(ctx, "SELECT "+syncCols+" FROM apps_syncs WHERE id = ?", id))
}

// syncForUpdate returns a sync, its row locked until the transaction q
// runs on ends (the dialect's LockRows).
func (q queries) syncForUpdate(ctx context.Context, id string) (*Sync, error) {
	return scanSync(q.row(ctx, "SELECT "+syncCols+" FROM apps_syncs WHERE id = ?"+q.d.LockRows(), id))
}

// listSyncs returns the syncs of an app (every sync when appID is empty),
// oldest first.
func (q queries) listSyncs(ctx context.Context, appID string) ([]*Sync, error) {
	query := "SELECT " + syncCols + " FROM apps_syncs"
	var args []any
	if appID != "" {
		query += " WHERE app_id = ?"
		args = append(args, appID)
	}
	rows, err := q.rows(ctx, query+" ORDER BY created_at, id", args...)
	if err != nil {
		return nil, err
	}
	return store.ScanAll(rows, scanSync)
}

// syncChange is what UpdateSync writes over a sync.
type syncChange struct {
	// accountID and selection (the types and filter as stored) are always
	// written.
	accountID, selection string
	// setEvery changes the schedule to every (0: on demand only, not
	// scheduled); a sync due later than dueBy, or not scheduled, is then
	// due at dueBy.
	setEvery bool
	every    time.Duration
	dueBy    time.Time
	// clearSent forgets the filter the last run sent.
	clearSent bool
}

// updateSyncChange writes c over a sync whose account and selection are
// still readAccount and readSelection; updated is false when they are not
// (nothing is written then).
func (q queries) updateSyncChange(ctx context.Context, id, readAccount, readSelection string, c syncChange) (updated bool, err error) {
	set, args := "account_id = ?, selection = ?", []any{c.accountID, c.selection}
	switch {
	case !c.setEvery:
	case c.every == 0:
		set += ", every_ms = 0, next_at = 0"
	default:
		next := ms(c.dueBy)
		set += ", every_ms = ?, next_at = CASE WHEN next_at = 0 OR next_at > ? THEN ? ELSE next_at END"
		args = append(args, c.every.Milliseconds(), next, next)
	}
	if c.clearSent {
		set += ", filter_sent = ''"
	}
	res, err := q.exec(ctx, "UPDATE apps_syncs SET "+set+" WHERE id = ? AND account_id = ? AND selection = ?", append(args, id, readAccount, readSelection)...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// setSyncNextAt makes a sync due at next.
func (q queries) setSyncNextAt(ctx context.Context, syncID string, next time.Time) error {
	_, err := q.exec(ctx, "UPDATE apps_syncs SET next_at = ? WHERE id = ?", ms(next), syncID)
	return err
}

// setSyncRunNext sets a sync's run (queued) and makes it due at next.
func (q queries) setSyncRunNext(ctx context.Context, syncID, runID string, next time.Time) error {
	_, err := q.exec(ctx, "UPDATE apps_syncs SET run_id = ?, next_at = ? WHERE id = ?", runID, ms(next), syncID)
	return err
}

// setSyncWebhook stores the webhook object (JSON) installed for a sync
// and the types it was installed for.
func (q queries) setSyncWebhook(ctx context.Context, syncID, webhook string, types []string) error {
	_, err := q.exec(ctx, "UPDATE apps_syncs SET webhook = ?, webhook_types = ? WHERE id = ?", webhook, mustJSON(types), syncID)
	return err
}

// deleteSyncWithHistory removes a sync's events, its runs and the sync,
// in that order.
func (q queries) deleteSyncWithHistory(ctx context.Context, syncID string) error {
	for _, query := range []string{
		"DELETE FROM apps_events WHERE sync_id = ?",
		"DELETE FROM apps_runs WHERE sync_id = ?",
		"DELETE FROM apps_syncs WHERE id = ?",
	} {
		if _, err := q.exec(ctx, query, syncID); err != nil {
			return err
		}
	}
	return nil
}

// Runs.

// runByID returns a run with its exchanges.
func (q queries) runByID(ctx context.Context, id string) (*Run, error) {
	return scanRun(q.row(ctx, "SELECT "+runCols+" FROM apps_runs WHERE id = ?", id), true)
}

// runsOfSync returns a sync's latest limit runs, newest first, without
// their exchanges.
func (q queries) runsOfSync(ctx context.Context, syncID string, limit int) ([]*Run, error) {
	rows, err := q.rows(ctx, "SELECT "+runCols+" FROM apps_runs WHERE sync_id = ? ORDER BY seq DESC LIMIT ?", syncID, limit)
	if err != nil {
		return nil, err
	}
	return store.ScanAll(rows, func(r store.RowScanner) (*Run, error) { return scanRun(r, false) })
}

// setRunReport replaces a run's report (JSON).
func (q queries) setRunReport(ctx context.Context, runID, report string) error {
	_, err := q.exec(ctx, "UPDATE apps_runs SET report = ? WHERE id = ?", report, runID)
	return err
}

// endWebhookRun records how a webhook run ended: its status, end time,
// report, error message and exchanges.
func (q queries) endWebhookRun(ctx context.Context, runID, status string, ended time.Time, report *RunReport, errMsg string, exchanges []Exchange) error {
	_, err := q.exec(ctx, "UPDATE apps_runs SET status = ?, ended_at = ?, report = ?, error = ?, exchanges = ? WHERE id = ?",
		status, ms(ended), mustJSON(report), errMsg, mustJSON(exchanges), runID)
	return err
}

// Events.

// pendingEvent is a webhook event waiting to be applied, its params and
// payload as stored (sealed unless sealed is 0).
type pendingEvent struct {
	id, params, payload string
	sealed              int64
}

// eventReceived reports whether a sync has an event of this id.
func (q queries) eventReceived(ctx context.Context, id, syncID string) (bool, error) {
	var n int
	err := q.row(ctx, "SELECT COUNT(*) FROM apps_events WHERE id = ? AND sync_id = ?", id, syncID).Scan(&n)
	return n > 0, err
}

// insertEvent records a pending event of a sync received at received,
// its params and payload sealed; inserted is false when an event of this
// id was recorded before (nothing changes then).
func (q queries) insertEvent(ctx context.Context, id, syncID string, received time.Time, sealedParams, sealedPayload string) (inserted bool, err error) {
	res, err := q.exec(ctx, `INSERT INTO apps_events (id, sync_id, received_at, params, payload, status, result, next_try, sealed)
VALUES (?, ?, ?, ?, ?, 'pending', '', 0, 1) ON CONFLICT (id) DO NOTHING`, id, syncID, ms(received), sealedParams, sealedPayload)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n != 0, nil
}

// pendingEvents returns a sync's first limit pending events due at now, in
// the order received.
func (q queries) pendingEvents(ctx context.Context, syncID string, now time.Time, limit int) ([]pendingEvent, error) {
	rows, err := q.rows(ctx, "SELECT id, params, payload, sealed FROM apps_events WHERE sync_id = ? AND status = 'pending' AND next_try <= ? ORDER BY received_at, id LIMIT ?", syncID, ms(now), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var evs []pendingEvent
	for rows.Next() {
		var e pendingEvent
		if err := rows.Scan(&e.id, &e.params, &e.payload, &e.sealed); err != nil {
			return nil, err
		}
		evs = append(evs, e)
	}
	return evs, rows.Err()
}

// refuseEvent marks an event refused, result saying why.
func (q queries) refuseEvent(ctx context.Context, id, result string) error {
	_, err := q.exec(ctx, "UPDATE apps_events SET status = 'refused', result = ? WHERE id = ?", result, id)
	return err
}

// delayPendingEvents makes a sync's pending events due again at next.
func (q queries) delayPendingEvents(ctx context.Context, syncID string, next time.Time) error {
	_, err := q.exec(ctx, "UPDATE apps_events SET next_try = ? WHERE sync_id = ? AND status = 'pending'", ms(next), syncID)
	return err
}

// markEventApplied marks a pending event applied in tx, the store's
// transaction that applies its changes.
func markEventApplied(tx *store.Tx, id string) error {
	rows, err := tx.Querier().QueryContext(tx.Context(), tx.Dialect().Rebind("UPDATE apps_events SET status = 'applied' WHERE id = ? AND status = 'pending'"), id)
	if err != nil {
		return err
	}
	return rows.Close()
}
