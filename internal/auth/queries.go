package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/internal/store"
)

// The fixed SQL of the service, one small typed function per statement,
// over the tables the store's migrations make (host_users, host_sessions,
// host_tokens). Times are Unix milliseconds; the functions return the
// database's errors as they are (sql.ErrNoRows where a row is missing)
// unless they say otherwise, and their callers say what failed.

// queries are the service's statements, run on the store's database or
// one of its transactions.
type queries struct{ store.Statements }

// on returns the service's statements run on db (s.db or a transaction).
func (s *Service) on(db store.DB) queries {
	return queries{store.Statements{DB: db, Dialect: s.d}}
}

// Users.

const userColumns = `id, email, created_at`

// insertUser adds u with its password hash.
func (q queries) insertUser(ctx context.Context, u User, hash string) error {
	_, err := q.Exec(ctx, `INSERT INTO host_users (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)`,
		u.ID, u.Email, hash, u.Created.UnixMilli())
	return err
}

// scanUser reads a user row (userColumns).
func scanUser(r store.RowScanner) (User, error) {
	var u User
	var created int64
	if err := r.Scan(&u.ID, &u.Email, &created); err != nil {
		return User{}, err
	}
	u.Created = time.UnixMilli(created).UTC()
	return u, nil
}

// oneUser reads the user a query of one row answered; ErrNotFound when
// there is none.
func oneUser(row *sql.Row) (User, error) {
	u, err := scanUser(row)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: read user: %w", err)
	}
	return u, nil
}

// userByEmail returns the user of a (normalized) e-mail; ErrNotFound
// when there is none.
func (q queries) userByEmail(ctx context.Context, email string) (User, error) {
	return oneUser(q.Row(ctx, `SELECT `+userColumns+` FROM host_users WHERE email = ?`, email))
}

// userByID returns a user; ErrNotFound when there is none.
func (q queries) userByID(ctx context.Context, id string) (User, error) {
	return oneUser(q.Row(ctx, `SELECT `+userColumns+` FROM host_users WHERE id = ?`, id))
}

// oldestUser returns the first user created; ErrNotFound when there is
// none.
func (q queries) oldestUser(ctx context.Context) (User, error) {
	return oneUser(q.Row(ctx, `SELECT `+userColumns+` FROM host_users ORDER BY created_at, id LIMIT 1`))
}

// userWithHash returns the user of a (normalized) e-mail and its password
// hash; sql.ErrNoRows when there is none.
func (q queries) userWithHash(ctx context.Context, email string) (u User, hash string, err error) {
	var created int64
	err = q.Row(ctx, `SELECT `+userColumns+`, password_hash FROM host_users WHERE email = ?`, email).
		Scan(&u.ID, &u.Email, &created, &hash)
	if err != nil {
		return User{}, "", err
	}
	u.Created = time.UnixMilli(created).UTC()
	return u, hash, nil
}

// passwordHash returns a user's password hash; sql.ErrNoRows when there
// is no such user.
func (q queries) passwordHash(ctx context.Context, userID string) (hash string, err error) {
	err = q.Row(ctx, `SELECT password_hash FROM host_users WHERE id = ?`, userID).Scan(&hash)
	return hash, err
}

// setPasswordHash replaces a user's password hash.
func (q queries) setPasswordHash(ctx context.Context, userID, hash string) error {
	_, err := q.Exec(ctx, `UPDATE host_users SET password_hash = ? WHERE id = ?`, hash, userID)
	return err
}

// usersBut returns every user but keep, oldest first.
func (q queries) usersBut(ctx context.Context, keep string) ([]User, error) {
	rows, err := q.Rows(ctx, `SELECT `+userColumns+` FROM host_users WHERE id <> ? ORDER BY created_at, id`, keep)
	if err != nil {
		return nil, err
	}
	return store.ScanAll(rows, scanUser)
}

// deleteUsersBut removes every user but keep, with their sessions and
// tokens.
func (q queries) deleteUsersBut(ctx context.Context, keep string) error {
	for _, query := range []string{
		`DELETE FROM host_sessions WHERE user_id <> ?`,
		`DELETE FROM host_tokens WHERE user_id <> ?`,
		`DELETE FROM host_users WHERE id <> ?`,
	} {
		if _, err := q.Exec(ctx, query, keep); err != nil {
			return err
		}
	}
	return nil
}

// Sessions.

// deleteExpiredSessions removes the sessions expired at now.
func (q queries) deleteExpiredSessions(ctx context.Context, now int64) error {
	_, err := q.Exec(ctx, `DELETE FROM host_sessions WHERE expires_at <= ?`, now)
	return err
}

// insertSession adds a session by the hash of its id.
func (q queries) insertSession(ctx context.Context, idHash, userID string, created, expires int64) error {
	_, err := q.Exec(ctx, `INSERT INTO host_sessions (id_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		idHash, userID, created, expires)
	return err
}

// sessionUser returns the user of the session whose id hashes to idHash
// and that is live at now; ErrNotFound when there is none.
func (q queries) sessionUser(ctx context.Context, idHash string, now int64) (User, error) {
	return oneUser(q.Row(ctx, `SELECT u.id, u.email, u.created_at FROM host_sessions s
		JOIN host_users u ON u.id = s.user_id WHERE s.id_hash = ? AND s.expires_at > ?`, idHash, now))
}

// deleteSession removes the session whose id hashes to idHash.
func (q queries) deleteSession(ctx context.Context, idHash string) error {
	_, err := q.Exec(ctx, `DELETE FROM host_sessions WHERE id_hash = ?`, idHash)
	return err
}

// deleteSessionsOf removes a user's sessions but the one whose id hashes
// to keepHash ("" keeps none) and returns how many.
func (q queries) deleteSessionsOf(ctx context.Context, userID, keepHash string) (int64, error) {
	query, args := `DELETE FROM host_sessions WHERE user_id = ?`, []any{userID}
	if keepHash != "" {
		query, args = query+` AND id_hash <> ?`, append(args, keepHash)
	}
	res, err := q.Exec(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// Tokens.

const tokenColumns = `id, user_id, name, created_at, last_used_at`

// insertToken adds t by the hash of its value.
func (q queries) insertToken(ctx context.Context, t Token, hash string) error {
	_, err := q.Exec(ctx, `INSERT INTO host_tokens (id, user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?, ?)`,
		t.ID, t.UserID, t.Name, hash, t.Created.UnixMilli())
	return err
}

// scanToken reads a token row (tokenColumns).
func scanToken(row store.RowScanner) (Token, error) {
	var t Token
	var created int64
	var last sql.NullInt64
	if err := row.Scan(&t.ID, &t.UserID, &t.Name, &created, &last); err != nil {
		return Token{}, err
	}
	t.Created = time.UnixMilli(created).UTC()
	t.LastUsed = lastUsed(last)
	return t, nil
}

func lastUsed(last sql.NullInt64) *time.Time {
	if !last.Valid {
		return nil
	}
	lu := time.UnixMilli(last.Int64).UTC()
	return &lu
}

// tokenByHash returns the token whose value hashes to hash; sql.ErrNoRows
// when there is none.
func (q queries) tokenByHash(ctx context.Context, hash string) (Token, error) {
	return scanToken(q.Row(ctx, `SELECT `+tokenColumns+` FROM host_tokens WHERE token_hash = ?`, hash))
}

// tokensOf returns a user's tokens, oldest first.
func (q queries) tokensOf(ctx context.Context, userID string) ([]Token, error) {
	rows, err := q.Rows(ctx, `SELECT `+tokenColumns+` FROM host_tokens WHERE user_id = ? ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, err
	}
	return store.ScanAll(rows, scanToken)
}

// deleteToken removes a user's token and returns how many rows went (0
// or 1).
func (q queries) deleteToken(ctx context.Context, userID, tokenID string) (int64, error) {
	res, err := q.Exec(ctx, `DELETE FROM host_tokens WHERE id = ? AND user_id = ?`, tokenID, userID)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return -1, nil // unknown: not reported as missing
	}
	return n, nil
}

// tokenWithUser returns the token whose value hashes to hash and its
// user; sql.ErrNoRows when there is none.
func (q queries) tokenWithUser(ctx context.Context, hash string) (User, Token, error) {
	var u User
	var t Token
	var uCreated, tCreated int64
	var last sql.NullInt64
	err := q.Row(ctx, `SELECT t.id, t.user_id, t.name, t.created_at, t.last_used_at, u.email, u.created_at
		FROM host_tokens t JOIN host_users u ON u.id = t.user_id WHERE t.token_hash = ?`, hash).
		Scan(&t.ID, &t.UserID, &t.Name, &tCreated, &last, &u.Email, &uCreated)
	if err != nil {
		return User{}, Token{}, err
	}
	u.ID = t.UserID
	u.Created = time.UnixMilli(uCreated).UTC()
	t.Created = time.UnixMilli(tCreated).UTC()
	t.LastUsed = lastUsed(last)
	return u, t, nil
}

// touchToken records when a token was last used.
func (q queries) touchToken(ctx context.Context, tokenID string, at int64) error {
	_, err := q.Exec(ctx, `UPDATE host_tokens SET last_used_at = ? WHERE id = ?`, at, tokenID)
	return err
}
