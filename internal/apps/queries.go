package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
)

// The fixed SQL of the service, one small typed function per statement,
// over the tables the store's migrations make (apps_apps, apps_accounts,
// apps_oauth, apps_actions, apps_syncs, apps_runs, apps_events). Service
// files hold the logic and call these; no other file of the package writes
// SQL. Times are stored as Unix milliseconds: a function takes a
// time.Time, or an int64 of milliseconds where its caller works in them
// (lease times read from the database's clock, times computed from a
// sync's schedule). The functions return the database's errors as they
// are (sql.ErrNoRows where a row is missing) unless they say otherwise,
// and their callers say what failed.

// queries are the service's statements, run on the store's database or
// one of its transactions.
type queries struct{ store.Statements }

// on returns the service's statements run on db (s.db or a transaction).
func (s *core) on(db store.DB) queries {
	return queries{store.Statements{DB: db, Dialect: s.d}}
}

// ---- The registry's statements: apps_apps, apps_accounts, apps_oauth,
// apps_actions (an app's deletion), a space's owners in apps_syncs.

// Apps.

const appCols = "id, url, name, space, descriptor, created_at"

// scanApp reads an app row (appCols).
func scanApp(r store.RowScanner) (*App, error) {
	var a App
	var desc string
	var created int64
	if err := r.Scan(&a.ID, &a.URL, &a.Name, &a.Space, &desc, &created); err != nil {
		return nil, err
	}
	a.CreatedAt = time.UnixMilli(created).UTC()
	a.Descriptor = &protocol.Descriptor{}
	if err := json.Unmarshal([]byte(desc), a.Descriptor); err != nil {
		return nil, fmt.Errorf("decode the stored descriptor: %w", err)
	}
	return &a, nil
}

// app returns an app; sql.ErrNoRows when there is none.
func (q queries) app(ctx context.Context, id string) (*App, error) {
	return scanApp(q.Row(ctx, `SELECT `+appCols+` FROM apps_apps WHERE id = ?`, id))
}

// apps returns every app, oldest first. A failed query is wrapped "list
// apps"; a row that does not decode fails as scanApp says.
func (q queries) apps(ctx context.Context) ([]*App, error) {
	rows, err := q.Rows(ctx, `SELECT `+appCols+` FROM apps_apps ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list apps: %w", err)
	}
	return store.ScanAll(rows, scanApp)
}

// appAtURL returns the id, space and creation time of the app registered
// at u; sql.ErrNoRows when there is none.
func (q queries) appAtURL(ctx context.Context, u string) (id, space string, created time.Time, err error) {
	var createdMS int64
	err = q.Row(ctx, `SELECT id, space, created_at FROM apps_apps WHERE url = ?`, u).Scan(&id, &space, &createdMS)
	return id, space, time.UnixMilli(createdMS).UTC(), err
}

// appSpaceAtURL returns the id and space of the app registered at u;
// sql.ErrNoRows when there is none.
func (q queries) appSpaceAtURL(ctx context.Context, u string) (id, space string, err error) {
	err = q.Row(ctx, `SELECT id, space FROM apps_apps WHERE url = ?`, u).Scan(&id, &space)
	return id, space, err
}

// countAppsAtURL counts the apps registered at u.
func (q queries) countAppsAtURL(ctx context.Context, u string) (n int, err error) {
	err = q.Row(ctx, `SELECT COUNT(*) FROM apps_apps WHERE url = ?`, u).Scan(&n)
	return n, err
}

// insertApp adds a (its ID, URL, Name, Space, Descriptor and CreatedAt).
func (q queries) insertApp(ctx context.Context, a *App) error {
	_, err := q.Exec(ctx, `INSERT INTO apps_apps (id, url, name, space, descriptor, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		a.ID, a.URL, a.Name, a.Space, mustJSON(a.Descriptor), ms(a.CreatedAt))
	return err
}

// updateApp rewrites the name, space and descriptor of the app a.ID.
func (q queries) updateApp(ctx context.Context, a *App) error {
	_, err := q.Exec(ctx, `UPDATE apps_apps SET name = ?, space = ?, descriptor = ? WHERE id = ?`,
		a.Name, a.Space, mustJSON(a.Descriptor), a.ID)
	return err
}

// setAppURLOfSpace moves the app whose space is space to the address u;
// moved counts the apps moved (0 when the driver cannot say).
func (q queries) setAppURLOfSpace(ctx context.Context, u, space string) (moved int64, err error) {
	res, err := q.Exec(ctx, `UPDATE apps_apps SET url = ? WHERE space = ?`, u, space)
	if err != nil {
		return 0, err
	}
	moved, _ = res.RowsAffected()
	return moved, nil
}

// deleteApp removes an app with its accounts, OAuth set-ups and action
// history, in that order (its syncs are removed before, by DeleteSync).
func (q queries) deleteApp(ctx context.Context, id string) error {
	for _, query := range []string{
		`DELETE FROM apps_accounts WHERE app_id = ?`,
		`DELETE FROM apps_oauth WHERE app_id = ?`,
		`DELETE FROM apps_actions WHERE app_id = ?`,
		`DELETE FROM apps_apps WHERE id = ?`,
	} {
		if _, err := q.Exec(ctx, query, id); err != nil {
			return err
		}
	}
	return nil
}

// Owners of a space.

// countSpaceOwners counts the syncs whose space is space and the apps
// other than appID whose own space it is.
func (q queries) countSpaceOwners(ctx context.Context, space, appID string) (n int, err error) {
	err = q.Row(ctx, `SELECT (SELECT COUNT(*) FROM apps_syncs WHERE space = ?) + (SELECT COUNT(*) FROM apps_apps WHERE space = ? AND id <> ?)`,
		space, space, appID).Scan(&n)
	return n, err
}

// firstOtherAppOfSpace returns the address of the oldest app other than
// appID whose own space is space; sql.ErrNoRows when there is none.
func (q queries) firstOtherAppOfSpace(ctx context.Context, space, appID string) (url string, err error) {
	err = q.Row(ctx, `SELECT url FROM apps_apps WHERE space = ? AND id <> ? ORDER BY created_at, id LIMIT 1`, space, appID).Scan(&url)
	return url, err
}

// otherAppSyncOfSpace returns the id of a sync of an app other than appID
// that owns space; sql.ErrNoRows when there is none.
func (q queries) otherAppSyncOfSpace(ctx context.Context, space, appID string) (syncID string, err error) {
	err = q.Row(ctx, `SELECT id FROM apps_syncs WHERE space = ? AND app_id <> ?`, space, appID).Scan(&syncID)
	return syncID, err
}

// firstSyncOfSpace returns the oldest sync that owns space and its app;
// sql.ErrNoRows when there is none.
func (q queries) firstSyncOfSpace(ctx context.Context, space string) (syncID, appID string, err error) {
	err = q.Row(ctx, `SELECT id, app_id FROM apps_syncs WHERE space = ? ORDER BY created_at, id LIMIT 1`, space).Scan(&syncID, &appID)
	return syncID, appID, err
}

// Accounts.

const accountCols = "id, app_id, auth, name, sealed, created_at, updated_at"

// account returns an account (without its Fields) and its sealed fields;
// sql.ErrNoRows when there is none.
func (q queries) account(ctx context.Context, id string) (acc Account, sealed string, err error) {
	var created, updated int64
	err = q.Row(ctx, `SELECT `+accountCols+` FROM apps_accounts WHERE id = ?`, id).
		Scan(&acc.ID, &acc.AppID, &acc.Auth, &acc.Name, &sealed, &created, &updated)
	if err != nil {
		return Account{}, "", err
	}
	acc.CreatedAt, acc.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return acc, sealed, nil
}

// accountIDs returns the ids of the accounts, of the app appID when it is
// not empty, oldest first; a failed query is wrapped as idList says.
func (q queries) accountIDs(ctx context.Context, appID string) ([]string, error) {
	query := `SELECT id FROM apps_accounts`
	var args []any
	if appID != "" {
		query += ` WHERE app_id = ?`
		args = append(args, appID)
	}
	return idList(q.Rows(ctx, query+` ORDER BY created_at, id`, args...))
}

// insertAccount adds acc (its ID, AppID, Auth, Name, CreatedAt and
// UpdatedAt) with its sealed fields.
func (q queries) insertAccount(ctx context.Context, acc *Account, sealed string) error {
	_, err := q.Exec(ctx, `INSERT INTO apps_accounts (id, app_id, auth, name, sealed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		acc.ID, acc.AppID, acc.Auth, acc.Name, sealed, ms(acc.CreatedAt), ms(acc.UpdatedAt))
	return err
}

// setAccount rewrites an account's sealed fields, its update time and,
// unless name is empty, its name.
func (q queries) setAccount(ctx context.Context, id, sealed string, updated time.Time, name string) error {
	query := `UPDATE apps_accounts SET sealed = ?, updated_at = ?`
	args := []any{sealed, ms(updated)}
	if name != "" {
		query += `, name = ?`
		args = append(args, name)
	}
	_, err := q.Exec(ctx, query+` WHERE id = ?`, append(args, id)...)
	return err
}

// deleteAccount removes an account.
func (q queries) deleteAccount(ctx context.Context, id string) error {
	_, err := q.Exec(ctx, `DELETE FROM apps_accounts WHERE id = ?`, id)
	return err
}

// syncsOfAccount returns the ids of the syncs that use an account; a
// failed query is wrapped as idList says.
func (q queries) syncsOfAccount(ctx context.Context, accountID string) ([]string, error) {
	return idList(q.Rows(ctx, `SELECT id FROM apps_syncs WHERE account_id = ?`, accountID))
}

// idList reads the ids a query of one column answered: a failed query is
// wrapped "apps", a failed read is returned as it is.
func idList(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, fmt.Errorf("apps: %w", err)
	}
	return store.ScanAll(rows, func(r store.RowScanner) (string, error) {
		var id string
		err := r.Scan(&id)
		return id, err
	})
}

// OAuth set-ups.

// oauthSetup is a started OAuth set-up as apps_oauth keeps it, under the
// hash of its state.
type oauthSetup struct {
	appID, auth, callback string
	// sealed is the sealed secret of an OAuth 1 set-up (its request
	// token); accountID the account reconnected ("" for a new one).
	sealed, accountID string
	// expires is when the set-up ends, in Unix milliseconds.
	expires int64
}

// deleteExpiredOAuth removes the set-ups expired at now.
func (q queries) deleteExpiredOAuth(ctx context.Context, now time.Time) error {
	_, err := q.Exec(ctx, `DELETE FROM apps_oauth WHERE expires_at < ?`, ms(now))
	return err
}

// insertOAuth adds a set-up under the hash of its state.
func (q queries) insertOAuth(ctx context.Context, stateHash string, o oauthSetup) error {
	_, err := q.Exec(ctx, `INSERT INTO apps_oauth (state_hash, app_id, auth, callback, sealed, account_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		stateHash, o.appID, o.auth, o.callback, o.sealed, o.accountID, o.expires)
	return err
}

// lockOAuth returns the set-up under the hash of a state, its row locked
// where the engine locks rows; sql.ErrNoRows when there is none.
func (q queries) lockOAuth(ctx context.Context, stateHash string) (o oauthSetup, err error) {
	err = q.Row(ctx, `SELECT app_id, auth, callback, sealed, account_id, expires_at FROM apps_oauth WHERE state_hash = ?`+q.Dialect.LockRows(), stateHash).
		Scan(&o.appID, &o.auth, &o.callback, &o.sealed, &o.accountID, &o.expires)
	return o, err
}

// deleteOAuth removes the set-up under the hash of a state.
func (q queries) deleteOAuth(ctx context.Context, stateHash string) error {
	_, err := q.Exec(ctx, `DELETE FROM apps_oauth WHERE state_hash = ?`, stateHash)
	return err
}

// ---- Syncs, their runs as the sync service and webhooks read and write
// them, and webhook events (apps_syncs, apps_runs, apps_events).

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
	_, err := q.Exec(ctx, `INSERT INTO apps_syncs (id, app_id, account_id, selection, every_ms, next_at, webhook, webhook_types, run_id, lease_owner, lease_until, created_at, space)
VALUES (?, ?, ?, ?, ?, ?, '', '', '', '', 0, ?, ?)`, sy.ID, sy.AppID, sy.AccountID, mustJSON(selectionDoc{sy.Types, sy.Filter}), every.Milliseconds(), ms(now), ms(now), sy.Space)
	return err
}

// syncByID returns a sync.
func (q queries) syncByID(ctx context.Context, id string) (*Sync, error) {
	return scanSync(q.Row(ctx, "SELECT "+syncCols+" FROM apps_syncs WHERE id = ?", id))
}

// syncForUpdate returns a sync, its row locked until the transaction q
// runs on ends (the dialect's LockRows).
func (q queries) syncForUpdate(ctx context.Context, id string) (*Sync, error) {
	return scanSync(q.Row(ctx, "SELECT "+syncCols+" FROM apps_syncs WHERE id = ?"+q.Dialect.LockRows(), id))
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
	rows, err := q.Rows(ctx, query+" ORDER BY created_at, id", args...)
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
	res, err := q.Exec(ctx, "UPDATE apps_syncs SET "+set+" WHERE id = ? AND account_id = ? AND selection = ?", append(args, id, readAccount, readSelection)...)
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
	_, err := q.Exec(ctx, "UPDATE apps_syncs SET next_at = ? WHERE id = ?", ms(next), syncID)
	return err
}

// setSyncRunNext sets a sync's run (queued) and makes it due at next.
func (q queries) setSyncRunNext(ctx context.Context, syncID, runID string, next time.Time) error {
	_, err := q.Exec(ctx, "UPDATE apps_syncs SET run_id = ?, next_at = ? WHERE id = ?", runID, ms(next), syncID)
	return err
}

// setSyncWebhook stores the webhook object (JSON) installed for a sync
// and the types it was installed for.
func (q queries) setSyncWebhook(ctx context.Context, syncID, webhook string, types []string) error {
	_, err := q.Exec(ctx, "UPDATE apps_syncs SET webhook = ?, webhook_types = ? WHERE id = ?", webhook, mustJSON(types), syncID)
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
		if _, err := q.Exec(ctx, query, syncID); err != nil {
			return err
		}
	}
	return nil
}

// Runs.

// runByID returns a run with its exchanges.
func (q queries) runByID(ctx context.Context, id string) (*Run, error) {
	return scanRun(q.Row(ctx, "SELECT "+runCols+" FROM apps_runs WHERE id = ?", id), true)
}

// runsOfSync returns a sync's latest limit runs, newest first, without
// their exchanges.
func (q queries) runsOfSync(ctx context.Context, syncID string, limit int) ([]*Run, error) {
	rows, err := q.Rows(ctx, "SELECT "+runCols+" FROM apps_runs WHERE sync_id = ? ORDER BY seq DESC LIMIT ?", syncID, limit)
	if err != nil {
		return nil, err
	}
	return store.ScanAll(rows, func(r store.RowScanner) (*Run, error) { return scanRun(r, false) })
}

// setRunReport replaces a run's report (JSON).
func (q queries) setRunReport(ctx context.Context, runID, report string) error {
	_, err := q.Exec(ctx, "UPDATE apps_runs SET report = ? WHERE id = ?", report, runID)
	return err
}

// endWebhookRun records how a webhook run ended: its status, end time,
// report, error message and exchanges.
func (q queries) endWebhookRun(ctx context.Context, runID, status string, ended time.Time, report *RunReport, errMsg string, exchanges []Exchange) error {
	_, err := q.Exec(ctx, "UPDATE apps_runs SET status = ?, ended_at = ?, report = ?, error = ?, exchanges = ? WHERE id = ?",
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
	err := q.Row(ctx, "SELECT COUNT(*) FROM apps_events WHERE id = ? AND sync_id = ?", id, syncID).Scan(&n)
	return n > 0, err
}

// insertEvent records a pending event of a sync received at received,
// its params and payload sealed; inserted is false when an event of this
// id was recorded before (nothing changes then).
func (q queries) insertEvent(ctx context.Context, id, syncID string, received time.Time, sealedParams, sealedPayload string) (inserted bool, err error) {
	res, err := q.Exec(ctx, `INSERT INTO apps_events (id, sync_id, received_at, params, payload, status, result, next_try, sealed)
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
	rows, err := q.Rows(ctx, "SELECT id, params, payload, sealed FROM apps_events WHERE sync_id = ? AND status = 'pending' AND next_try <= ? ORDER BY received_at, id LIMIT ?", syncID, ms(now), limit)
	if err != nil {
		return nil, err
	}
	return store.ScanAll(rows, func(r store.RowScanner) (pendingEvent, error) {
		var e pendingEvent
		err := r.Scan(&e.id, &e.params, &e.payload, &e.sealed)
		return e, err
	})
}

// refuseEvent marks an event refused, result saying why.
func (q queries) refuseEvent(ctx context.Context, id, result string) error {
	_, err := q.Exec(ctx, "UPDATE apps_events SET status = 'refused', result = ? WHERE id = ?", result, id)
	return err
}

// delayPendingEvents makes a sync's pending events due again at next.
func (q queries) delayPendingEvents(ctx context.Context, syncID string, next time.Time) error {
	_, err := q.Exec(ctx, "UPDATE apps_events SET next_try = ? WHERE sync_id = ? AND status = 'pending'", ms(next), syncID)
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

// ---- The scheduler's statements: claiming and leasing syncs (apps_syncs, with
// apps_events for the waiting events), starting and ending runs
// (apps_runs) and their cancel flags.

// Leases.

// sharedClock reads the database's clock in Unix milliseconds; ok is false
// (and nothing is read) where the engine has no shared clock (SQLite).
func (q queries) sharedClock(ctx context.Context) (now int64, ok bool, err error) {
	clock := q.Dialect.SharedClockSQL()
	if clock == "" {
		return 0, false, nil
	}
	if err := q.DB.QueryRowContext(ctx, clock).Scan(&now); err != nil {
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
	err = q.Row(ctx, query, args...).Scan(&id, &app)
	return id, app, err
}

// lockSyncToClaim is syncToClaim with the row locked for the claim where
// the engine locks rows (skipping those other hosts claim), in a
// transaction.
func (q queries) lockSyncToClaim(ctx context.Context, f claimFilter, now, leaseNow int64) (id, app string, err error) {
	query, args := claimQuery(f, now, leaseNow)
	err = q.Row(ctx, query+q.Dialect.ClaimRows(), args...).Scan(&id, &app)
	return id, app, err
}

// setLease gives the sync's lease to owner until until.
func (q queries) setLease(ctx context.Context, syncID, owner string, until int64) error {
	_, err := q.Exec(ctx, `UPDATE apps_syncs SET lease_owner = ?, lease_until = ? WHERE id = ?`, owner, until, syncID)
	return err
}

// renewLease extends owner's lease of the sync until until; held is false
// when owner no longer holds it (or the count of rows is unknown).
func (q queries) renewLease(ctx context.Context, syncID, owner string, until int64) (held bool, err error) {
	res, err := q.Exec(ctx, `UPDATE apps_syncs SET lease_until = ? WHERE id = ? AND lease_owner = ?`, until, syncID, owner)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n != 0, nil
}

// releaseLease ends owner's lease of the sync (nothing when another holds
// it).
func (q queries) releaseLease(ctx context.Context, syncID, owner string) error {
	_, err := q.Exec(ctx, `UPDATE apps_syncs SET lease_owner = '', lease_until = 0 WHERE id = ? AND lease_owner = ?`, syncID, owner)
	return err
}

// Runs.

// runReport returns a run's report as stored (JSON, "" when none).
func (q queries) runReport(ctx context.Context, runID string) (report string, err error) {
	err = q.Row(ctx, `SELECT report FROM apps_runs WHERE id = ?`, runID).Scan(&report)
	return report, err
}

// startRunAttempt marks a run as running on owner for one more attempt,
// started at now unless it had started.
func (q queries) startRunAttempt(ctx context.Context, runID, owner string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE apps_runs SET status = ?, owner = ?, attempts = attempts + 1,
 started_at = CASE WHEN started_at = 0 THEN ? ELSE started_at END WHERE id = ?`, StatusRunning, owner, ms(now), runID)
	return err
}

// setRunExchanges replaces a run's exchanges (JSON).
func (q queries) setRunExchanges(ctx context.Context, runID, exchanges string) error {
	_, err := q.Exec(ctx, `UPDATE apps_runs SET exchanges = ? WHERE id = ?`, exchanges, runID)
	return err
}

// setRunEnded records a run's outcome, ended at ended on owner: its status,
// report, error message and exchanges (JSON, "" when none).
func (q queries) setRunEnded(ctx context.Context, runID, owner, status string, ended time.Time, report, msg, exchanges string) error {
	_, err := q.Exec(ctx, `UPDATE apps_runs SET status = ?, ended_at = ?, report = ?, error = ?, exchanges = ?, owner = ? WHERE id = ?`,
		status, ms(ended), report, msg, exchanges, owner, runID)
	return err
}

// setRunCancelled ends a run as cancelled at ended with msg, when it is
// still queued, running or paused.
func (q queries) setRunCancelled(ctx context.Context, runID, msg string, ended time.Time) error {
	_, err := q.Exec(ctx, `UPDATE apps_runs SET status = ?, ended_at = ?, error = ? WHERE id = ? AND status IN (?, ?, ?)`,
		StatusCancelled, ms(ended), msg, runID, StatusQueued, StatusRunning, StatusPaused)
	return err
}

// The syncs' runs.

// setSyncRun makes runID the sync's run.
func (q queries) setSyncRun(ctx context.Context, syncID, runID string) error {
	_, err := q.Exec(ctx, `UPDATE apps_syncs SET run_id = ? WHERE id = ?`, runID, syncID)
	return err
}

// setSyncFilterSent keeps the filter (JSON) the sync's last run sent.
func (q queries) setSyncFilterSent(ctx context.Context, syncID, filter string) error {
	_, err := q.Exec(ctx, `UPDATE apps_syncs SET filter_sent = ? WHERE id = ?`, filter, syncID)
	return err
}

// setHeldSyncNext sets the sync's next time and run (runID, "" for none)
// when owner holds its lease.
func (q queries) setHeldSyncNext(ctx context.Context, syncID, owner string, next int64, runID string) error {
	_, err := q.Exec(ctx, `UPDATE apps_syncs SET next_at = ?, run_id = ? WHERE id = ? AND lease_owner = ?`, next, runID, syncID, owner)
	return err
}

// syncEvery returns the sync's period in milliseconds (0: not scheduled).
func (q queries) syncEvery(ctx context.Context, syncID string) (every int64, err error) {
	err = q.Row(ctx, `SELECT every_ms FROM apps_syncs WHERE id = ?`, syncID).Scan(&every)
	return every, err
}

// Cancel flags.

// cancelFlag returns the sync's cancel flag (the run to cancel, "" when
// none).
func (q queries) cancelFlag(ctx context.Context, syncID string) (flag string, err error) {
	err = q.Row(ctx, `SELECT cancel_run FROM apps_syncs WHERE id = ?`, syncID).Scan(&flag)
	return flag, err
}

// lockHeldCancelFlag returns the sync's run, cancel flag and reason, the
// row locked where the engine locks rows, when owner holds its lease;
// sql.ErrNoRows when the sync is gone or another holds it.
func (q queries) lockHeldCancelFlag(ctx context.Context, syncID, owner string) (runID, flag, reason string, err error) {
	err = q.Row(ctx, `SELECT run_id, cancel_run, cancel_reason FROM apps_syncs WHERE id = ? AND lease_owner = ?`+q.Dialect.LockRows(), syncID, owner).
		Scan(&runID, &flag, &reason)
	return runID, flag, reason, err
}

// setCancelFlag asks the sync's holder to cancel runID for reason.
func (q queries) setCancelFlag(ctx context.Context, syncID, runID, reason string) error {
	_, err := q.Exec(ctx, `UPDATE apps_syncs SET cancel_run = ?, cancel_reason = ? WHERE id = ?`, runID, reason, syncID)
	return err
}

// setStopFlag asks the sync's holder to stop for reason: the flag is
// cancelNoRun unless a run's cancel was asked already (kept).
func (q queries) setStopFlag(ctx context.Context, syncID, reason string) error {
	_, err := q.Exec(ctx, `UPDATE apps_syncs SET cancel_run = CASE WHEN cancel_run = '' THEN ? ELSE cancel_run END, cancel_reason = ? WHERE id = ?`,
		cancelNoRun, reason, syncID)
	return err
}

// clearCancelFlag clears the sync's cancel flag and reason.
func (q queries) clearCancelFlag(ctx context.Context, syncID string) error {
	_, err := q.Exec(ctx, `UPDATE apps_syncs SET cancel_run = '', cancel_reason = '' WHERE id = ?`, syncID)
	return err
}

// endSyncRun clears the sync's run (when it is still runID) and its cancel
// flag, and sets its next time.
func (q queries) endSyncRun(ctx context.Context, syncID, runID string, next int64) error {
	_, err := q.Exec(ctx, `UPDATE apps_syncs SET run_id = '', next_at = ?, cancel_run = '', cancel_reason = '' WHERE id = ? AND run_id = ?`, next, syncID, runID)
	return err
}

// ---- The history's statements: the runs of the syncs (apps_runs, with the
// handled events it prunes from apps_events), the action runs
// (apps_actions) and the reads of the Observer and the scheduler's state.

// Runs.

const runCols = "id, sync_id, seq, trigger_kind, status, owner, attempts, queued_at, started_at, ended_at, report, error, exchanges"

// scanRun reads a run row (runCols); its exchanges only withExchanges.
func scanRun(r store.RowScanner, withExchanges bool) (*Run, error) {
	var run Run
	var queued, started, ended int64
	var report, exchanges string
	if err := r.Scan(&run.ID, &run.SyncID, &run.Seq, &run.Trigger, &run.Status, &run.Owner, &run.Attempts, &queued, &started, &ended, &report, &run.Error, &exchanges); err != nil {
		return nil, err
	}
	run.QueuedAt, run.StartedAt, run.EndedAt = fromMS(queued), fromMS(started), fromMS(ended)
	if started > 0 && ended >= started {
		run.DurationMS = ended - started
	}
	if report != "" {
		run.Report = &RunReport{}
		if err := json.Unmarshal([]byte(report), run.Report); err != nil {
			return nil, fmt.Errorf("decode the run report: %w", err)
		}
	}
	if withExchanges && exchanges != "" {
		if err := json.Unmarshal([]byte(exchanges), &run.Exchanges); err != nil {
			return nil, fmt.Errorf("decode the exchanges: %w", err)
		}
	}
	return &run, nil
}

// nextRunSeq is the seq of a sync's next run: one past its latest, 1 for
// its first.
func (q queries) nextRunSeq(ctx context.Context, syncID string) (seq int64, err error) {
	err = q.Row(ctx, "SELECT COALESCE(MAX(seq), 0) + 1 FROM apps_runs WHERE sync_id = ?", syncID).Scan(&seq)
	return seq, err
}

// insertRun adds r (its ID, SyncID, Seq, Trigger, Status, Owner,
// Attempts, QueuedAt and StartedAt, nil: 0) to the history, not ended and
// with no report, error or exchanges.
func (q queries) insertRun(ctx context.Context, r *Run) error {
	_, err := q.Exec(ctx, "INSERT INTO apps_runs ("+runCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, '', '', '')",
		r.ID, r.SyncID, r.Seq, r.Trigger, r.Status, r.Owner, r.Attempts, msOrZero(r.QueuedAt), msOrZero(r.StartedAt))
	return err
}

// msOrZero is ms(*t), 0 for nil (as fromMS reads it back).
func msOrZero(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return ms(*t)
}

// runStatus returns a run's status; sql.ErrNoRows when there is no such
// run.
func (q queries) runStatus(ctx context.Context, runID string) (status string, err error) {
	err = q.Row(ctx, "SELECT status FROM apps_runs WHERE id = ?", runID).Scan(&status)
	return status, err
}

// dropOldExchanges empties the exchanges of a sync's runs but its latest
// keep.
func (q queries) dropOldExchanges(ctx context.Context, syncID string, keep int) error {
	_, err := q.Exec(ctx, `UPDATE apps_runs SET exchanges = '' WHERE sync_id = ? AND exchanges <> ''
 AND seq <= (SELECT MAX(seq) FROM apps_runs WHERE sync_id = ?) - ?`, syncID, syncID, keep)
	return err
}

// deleteOldRuns removes a sync's runs but its latest keep.
func (q queries) deleteOldRuns(ctx context.Context, syncID string, keep int) error {
	_, err := q.Exec(ctx, `DELETE FROM apps_runs WHERE sync_id = ? AND seq <= (SELECT MAX(seq) FROM apps_runs WHERE sync_id = ?) - ?`,
		syncID, syncID, keep)
	return err
}

// deleteHandledEvents removes a sync's events no longer pending received
// before before.
func (q queries) deleteHandledEvents(ctx context.Context, syncID string, before time.Time) error {
	_, err := q.Exec(ctx, "DELETE FROM apps_events WHERE sync_id = ? AND status <> 'pending' AND received_at < ?", syncID, ms(before))
	return err
}

// endedRun is what the Observer is told of a run beside its new report.
type endedRun struct {
	// trigger is the run's trigger; space its app's space.
	trigger, space string
	// started is its first start (zero: none).
	started time.Time
	// report is the report its row holds (an earlier attempt's; "": none).
	report string
}

// endedRunOf reads a run with its app's space for the Observer;
// sql.ErrNoRows when there is no such run.
func (q queries) endedRunOf(ctx context.Context, runID string) (endedRun, error) {
	var r endedRun
	var started int64
	err := q.Row(ctx, `SELECT r.trigger_kind, r.started_at, r.report, a.space FROM apps_runs r
 JOIN apps_syncs y ON y.id = r.sync_id JOIN apps_apps a ON a.id = y.app_id WHERE r.id = ?`, runID).Scan(&r.trigger, &started, &r.report, &r.space)
	if err != nil {
		return endedRun{}, err
	}
	if started > 0 {
		r.started = time.UnixMilli(started)
	}
	return r, nil
}

// schedulerState counts, over every host, the runs queued, running and
// paused, and the syncs due at now that no host holds.
func (q queries) schedulerState(ctx context.Context, now time.Time) (SchedulerState, error) {
	var st SchedulerState
	at := ms(now)
	err := q.Row(ctx, `SELECT
 (SELECT COUNT(*) FROM apps_runs WHERE status = ?), (SELECT COUNT(*) FROM apps_runs WHERE status = ?),
 (SELECT COUNT(*) FROM apps_runs WHERE status = ?),
 (SELECT COUNT(*) FROM apps_syncs WHERE next_at > 0 AND next_at <= ? AND lease_until < ?)`,
		StatusQueued, StatusRunning, StatusPaused, at, at).Scan(&st.Queued, &st.Running, &st.Paused, &st.Due)
	return st, err
}

// Action runs.

const actionRunCols = "id, app_id, account_id, action, args, entity, status, answer_status, answer, error, ran_by, started_at, duration_ms, upstream"

// insertActionRun adds r to its app's action history, its arguments and
// entity (nil: "") encoded; upstream is its UpstreamReport encoded, ""
// when the action was not called.
func (q queries) insertActionRun(ctx context.Context, r *ActionRun, upstream string) error {
	entity := ""
	if r.Entity != nil {
		entity = mustJSON(r.Entity)
	}
	_, err := q.Exec(ctx, `INSERT INTO apps_actions (`+actionRunCols+`)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, r.App, r.Account, r.Action, mustJSON(r.Args), entity, r.Status, r.AnswerStatus, r.Answer,
		r.Error, r.RanBy, ms(r.StartedAt), r.DurationMS, upstream)
	return err
}

// trimActionRuns removes an app's action runs but its latest keep.
func (q queries) trimActionRuns(ctx context.Context, appID string, keep int) error {
	_, err := q.Exec(ctx, `DELETE FROM apps_actions WHERE app_id = ? AND id NOT IN
 (SELECT id FROM apps_actions WHERE app_id = ? ORDER BY started_at DESC, id DESC LIMIT ?)`, appID, appID, keep)
	return err
}

// actionRunsOfApp returns an app's latest limit action runs, newest first.
func (q queries) actionRunsOfApp(ctx context.Context, appID string, limit int) ([]*ActionRun, error) {
	rows, err := q.Rows(ctx, `SELECT `+actionRunCols+`
 FROM apps_actions WHERE app_id = ? ORDER BY started_at DESC, id DESC LIMIT ?`, appID, limit)
	if err != nil {
		return nil, err
	}
	return store.ScanAll(rows, scanActionRun)
}

// scanActionRun reads a row of apps_actions (actionRunCols).
func scanActionRun(row store.RowScanner) (*ActionRun, error) {
	var r ActionRun
	var args, entity, upstream string
	var started int64
	if err := row.Scan(&r.ID, &r.App, &r.Account, &r.Action, &args, &entity, &r.Status, &r.AnswerStatus, &r.Answer, &r.Error, &r.RanBy, &started, &r.DurationMS, &upstream); err != nil {
		return nil, err
	}
	if upstream != "" {
		if err := json.Unmarshal([]byte(upstream), &r.UpstreamReport); err != nil {
			return nil, fmt.Errorf("decode an action run's upstream calls: %w", err)
		}
	}
	if err := json.Unmarshal([]byte(args), &r.Args); err != nil {
		return nil, fmt.Errorf("decode an action run's arguments: %w", err)
	}
	if entity != "" {
		r.Entity = &EntityRef{}
		if err := json.Unmarshal([]byte(entity), r.Entity); err != nil {
			return nil, fmt.Errorf("decode an action run's entity: %w", err)
		}
	}
	r.StartedAt = time.UnixMilli(started).UTC()
	return &r, nil
}
