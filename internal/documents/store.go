package documents

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/appkitgo/appkit/internal/store"
)

// Store keeps document contents, as markdown, in the table host_documents
// (secret primary key, always a lower-case UUID; content; updated_at in Unix
// milliseconds). Whether a
// secret names a document at all is the entity store's business (see
// [Handler]); Store only holds what was written.
type Store struct {
	db *sql.DB
	d  store.Dialect
}

// schemaLockID is the PostgreSQL advisory lock key under which the host's
// tables are created, so that several host processes starting at once on one
// database do not race on CREATE TABLE IF NOT EXISTS.
const schemaLockID = 0x61707068 // "apph"

const createDocuments = `CREATE TABLE IF NOT EXISTS host_documents (
	secret TEXT PRIMARY KEY,
	content TEXT NOT NULL,
	updated_at BIGINT NOT NULL
)`

// NewStore creates the documents table if it is missing and returns the
// store over it.
func NewStore(ctx context.Context, db *sql.DB, d store.Dialect) (*Store, error) {
	if db == nil || d == nil {
		return nil, errors.New("documents: NewStore needs a database and its dialect")
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("documents: migrate: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := d.LockSchemaTx(ctx, tx, schemaLockID); err != nil {
		return nil, fmt.Errorf("documents: migrate: %w", err)
	}
	if _, err := tx.ExecContext(ctx, createDocuments); err != nil {
		return nil, fmt.Errorf("documents: migrate: %w", err)
	}
	if err := lowerSecrets(ctx, tx, d); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("documents: migrate: %w", err)
	}
	return &Store{db: db, d: d}, nil
}

// lowerSecrets rewrites secrets stored in another case (written before every
// path normalized them) to lower case; when several spellings of one secret
// were stored, the most recently written content is kept.
func lowerSecrets(ctx context.Context, tx *sql.Tx, d store.Dialect) error {
	rows, err := tx.QueryContext(ctx, `SELECT secret, updated_at FROM host_documents WHERE secret <> lower(secret)`)
	if err != nil {
		return fmt.Errorf("documents: migrate: find secrets to lower: %w", err)
	}
	type row struct {
		secret  string
		updated int64
	}
	var mixed []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.secret, &r.updated); err != nil {
			rows.Close()
			return fmt.Errorf("documents: migrate: find secrets to lower: %w", err)
		}
		mixed = append(mixed, r)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("documents: migrate: find secrets to lower: %w", err)
	}
	for _, r := range mixed {
		lower := strings.ToLower(r.secret)
		var updated int64
		err := tx.QueryRowContext(ctx, d.Rebind(`SELECT updated_at FROM host_documents WHERE secret = ?`), lower).Scan(&updated)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.ExecContext(ctx, d.Rebind(`UPDATE host_documents SET secret = ? WHERE secret = ?`), lower, r.secret)
		case err != nil:
		case r.updated > updated:
			if _, err = tx.ExecContext(ctx, d.Rebind(`DELETE FROM host_documents WHERE secret = ?`), lower); err == nil {
				_, err = tx.ExecContext(ctx, d.Rebind(`UPDATE host_documents SET secret = ? WHERE secret = ?`), lower, r.secret)
			}
		default:
			_, err = tx.ExecContext(ctx, d.Rebind(`DELETE FROM host_documents WHERE secret = ?`), r.secret)
		}
		if err != nil {
			return fmt.Errorf("documents: migrate: lower secret: %w", err)
		}
	}
	return nil
}

// storedSecret is the form a secret is stored under: a UUID in lower case.
// ok is false when secret is not a UUID in its 36-character form.
func storedSecret(secret string) (string, bool) {
	return normalSecret(secret)
}

// Get returns the stored markdown of a document; found is false when nothing
// was ever written under the secret. Secrets are UUIDs and match in any case.
func (s *Store) Get(ctx context.Context, secret string) (content string, found bool, err error) {
	secret, ok := storedSecret(secret)
	if !ok {
		return "", false, nil
	}
	err = s.db.QueryRowContext(ctx, s.d.Rebind(`SELECT content FROM host_documents WHERE secret = ?`), secret).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("documents: read: %w", err)
	}
	return content, true, nil
}

// ErrSecret reports a secret that is not a UUID in its 36-character form.
var ErrSecret = errors.New("documents: a document secret is a UUID")

// Put stores the markdown of a document, replacing what was there. The
// secret is stored in lower case; markdown holding a NUL character is
// refused with ErrNUL.
func (s *Store) Put(ctx context.Context, secret, markdown string) error {
	secret, ok := storedSecret(secret)
	if !ok {
		return ErrSecret
	}
	if strings.IndexByte(markdown, 0) >= 0 {
		return ErrNUL
	}
	q := s.d.Rebind(`INSERT INTO host_documents (secret, content, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (secret) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at`)
	if _, err := s.db.ExecContext(ctx, q, secret, markdown, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("documents: write: %w", err)
	}
	return nil
}

// Delete removes a document's content; deleting a missing one is no error.
func (s *Store) Delete(ctx context.Context, secret string) error {
	secret, ok := storedSecret(secret)
	if !ok {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, s.d.Rebind(`DELETE FROM host_documents WHERE secret = ?`), secret); err != nil {
		return fmt.Errorf("documents: delete: %w", err)
	}
	return nil
}
