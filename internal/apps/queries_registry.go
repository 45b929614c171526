package apps

// The registry's statements: apps_apps, apps_accounts, apps_oauth, apps_actions (an app's deletion), a space's owners in apps_syncs.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
)

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
	return scanApp(q.row(ctx, `SELECT `+appCols+` FROM apps_apps WHERE id = ?`, id))
}

// apps returns every app, oldest first. A failed query is wrapped "list
// apps"; a row that does not decode fails as scanApp says.
func (q queries) apps(ctx context.Context) ([]*App, error) {
	rows, err := q.rows(ctx, `SELECT `+appCols+` FROM apps_apps ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list apps: %w", err)
	}
	return store.ScanAll(rows, scanApp)
}

// appAtURL returns the id, space and creation time of the app registered
// at u; sql.ErrNoRows when there is none.
func (q queries) appAtURL(ctx context.Context, u string) (id, space string, created time.Time, err error) {
	var createdMS int64
	err = q.row(ctx, `SELECT id, space, created_at FROM apps_apps WHERE url = ?`, u).Scan(&id, &space, &createdMS)
	return id, space, time.UnixMilli(createdMS).UTC(), err
}

// appSpaceAtURL returns the id and space of the app registered at u;
// sql.ErrNoRows when there is none.
func (q queries) appSpaceAtURL(ctx context.Context, u string) (id, space string, err error) {
	err = q.row(ctx, `SELECT id, space FROM apps_apps WHERE url = ?`, u).Scan(&id, &space)
	return id, space, err
}

// countAppsAtURL counts the apps registered at u.
func (q queries) countAppsAtURL(ctx context.Context, u string) (n int, err error) {
	err = q.row(ctx, `SELECT COUNT(*) FROM apps_apps WHERE url = ?`, u).Scan(&n)
	return n, err
}

// insertApp adds a (its ID, URL, Name, Space, Descriptor and CreatedAt).
func (q queries) insertApp(ctx context.Context, a *App) error {
	_, err := q.exec(ctx, `INSERT INTO apps_apps (id, url, name, space, descriptor, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		a.ID, a.URL, a.Name, a.Space, mustJSON(a.Descriptor), ms(a.CreatedAt))
	return err
}

// updateApp rewrites the name, space and descriptor of the app a.ID.
func (q queries) updateApp(ctx context.Context, a *App) error {
	_, err := q.exec(ctx, `UPDATE apps_apps SET name = ?, space = ?, descriptor = ? WHERE id = ?`,
		a.Name, a.Space, mustJSON(a.Descriptor), a.ID)
	return err
}

// setAppURLOfSpace moves the app whose space is space to the address u;
// moved counts the apps moved (0 when the driver cannot say).
func (q queries) setAppURLOfSpace(ctx context.Context, u, space string) (moved int64, err error) {
	res, err := q.exec(ctx, `UPDATE apps_apps SET url = ? WHERE space = ?`, u, space)
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
		if _, err := q.exec(ctx, query, id); err != nil {
			return err
		}
	}
	return nil
}

// Owners of a space.

// countSpaceOwners counts the syncs whose space is space and the apps
// other than appID whose own space it is.
func (q queries) countSpaceOwners(ctx context.Context, space, appID string) (n int, err error) {
	err = q.row(ctx, `SELECT (SELECT COUNT(*) FROM apps_syncs WHERE space = ?) + (SELECT COUNT(*) FROM apps_apps WHERE space = ? AND id <> ?)`,
		space, space, appID).Scan(&n)
	return n, err
}

// otherAppOfSpace returns the address of an app other than appID whose
// own space is space; sql.ErrNoRows when there is none.
func (q queries) otherAppOfSpace(ctx context.Context, space, appID string) (url string, err error) {
	err = q.row(ctx, `SELECT url FROM apps_apps WHERE space = ? AND id <> ?`, space, appID).Scan(&url)
	return url, err
}

// firstOtherAppOfSpace is otherAppOfSpace for the oldest such app.
func (q queries) firstOtherAppOfSpace(ctx context.Context, space, appID string) (url string, err error) {
	err = q.row(ctx, `SELECT url FROM apps_apps WHERE space = ? AND id <> ? ORDER BY created_at, id LIMIT 1`, space, appID).Scan(&url)
	return url, err
}

// otherAppSyncOfSpace returns the id of a sync of an app other than appID
// that owns space; sql.ErrNoRows when there is none.
func (q queries) otherAppSyncOfSpace(ctx context.Context, space, appID string) (syncID string, err error) {
	err = q.row(ctx, `SELECT id FROM apps_syncs WHERE space = ? AND app_id <> ?`, space, appID).Scan(&syncID)
	return syncID, err
}

// firstSyncOfSpace returns the oldest sync that owns space and its app;
// sql.ErrNoRows when there is none.
func (q queries) firstSyncOfSpace(ctx context.Context, space string) (syncID, appID string, err error) {
	err = q.row(ctx, `SELECT id, app_id FROM apps_syncs WHERE space = ? ORDER BY created_at, id LIMIT 1`, space).Scan(&syncID, &appID)
	return syncID, appID, err
}

// Accounts.

const accountCols = "id, app_id, auth, name, sealed, created_at, updated_at"

// account returns an account (without its Fields) and its sealed fields;
// sql.ErrNoRows when there is none.
func (q queries) account(ctx context.Context, id string) (acc Account, sealed string, err error) {
	var created, updated int64
	err = q.row(ctx, `SELECT `+accountCols+` FROM apps_accounts WHERE id = ?`, id).
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
	return idList(q.rows(ctx, query+` ORDER BY created_at, id`, args...))
}

// insertAccount adds acc (its ID, AppID, Auth, Name, CreatedAt and
// UpdatedAt) with its sealed fields.
func (q queries) insertAccount(ctx context.Context, acc *Account, sealed string) error {
	_, err := q.exec(ctx, `INSERT INTO apps_accounts (id, app_id, auth, name, sealed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
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
	_, err := q.exec(ctx, query+` WHERE id = ?`, append(args, id)...)
	return err
}

// deleteAccount removes an account.
func (q queries) deleteAccount(ctx context.Context, id string) error {
	_, err := q.exec(ctx, `DELETE FROM apps_accounts WHERE id = ?`, id)
	return err
}

// syncsOfAccount returns the ids of the syncs that use an account; a
// failed query is wrapped as idList says.
func (q queries) syncsOfAccount(ctx context.Context, accountID string) ([]string, error) {
	return idList(q.rows(ctx, `SELECT id FROM apps_syncs WHERE account_id = ?`, accountID))
}

// ids runs query, whose one column is an id, and returns the ids (for the
// tests; the service's statements have functions of their own).
func (s *core) ids(ctx context.Context, query string, args ...any) ([]string, error) {
	return idList(s.on(s.db).rows(ctx, query, args...))
}

// idList reads the ids a query of one column answered: a failed query is
// wrapped "apps", a failed read is returned as it is.
func idList(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, fmt.Errorf("apps: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
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
	_, err := q.exec(ctx, `DELETE FROM apps_oauth WHERE expires_at < ?`, ms(now))
	return err
}

// insertOAuth adds a set-up under the hash of its state.
func (q queries) insertOAuth(ctx context.Context, stateHash string, o oauthSetup) error {
	_, err := q.exec(ctx, `INSERT INTO apps_oauth (state_hash, app_id, auth, callback, sealed, account_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		stateHash, o.appID, o.auth, o.callback, o.sealed, o.accountID, o.expires)
	return err
}

// lockOAuth returns the set-up under the hash of a state, its row locked
// where the engine locks rows; sql.ErrNoRows when there is none.
func (q queries) lockOAuth(ctx context.Context, stateHash string) (o oauthSetup, err error) {
	err = q.row(ctx, `SELECT app_id, auth, callback, sealed, account_id, expires_at FROM apps_oauth WHERE state_hash = ?`+q.d.LockRows(), stateHash).
		Scan(&o.appID, &o.auth, &o.callback, &o.sealed, &o.accountID, &o.expires)
	return o, err
}

// deleteOAuth removes the set-up under the hash of a state.
func (q queries) deleteOAuth(ctx context.Context, stateHash string) error {
	_, err := q.exec(ctx, `DELETE FROM apps_oauth WHERE state_hash = ?`, stateHash)
	return err
}
