package documents

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Dialect is the part of the store's SQL dialect this package needs; the
// store's Dialect value satisfies it.
type Dialect interface {
	// Name is "sqlite" or "postgres".
	Name() string
	// Rebind turns ? placeholders into the dialect's form.
	Rebind(query string) string
}

// Store keeps document contents, as markdown, in the table host_documents
// (secret primary key, content, updated_at in Unix milliseconds). Whether a
// secret names a document at all is the entity store's business (see
// [Handler]); Store only holds what was written.
type Store struct {
	db *sql.DB
	d  Dialect
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
func NewStore(ctx context.Context, db *sql.DB, d Dialect) (*Store, error) {
	if db == nil || d == nil {
		return nil, errors.New("documents: NewStore needs a database and its dialect")
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("documents: migrate: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if d.Name() == "postgres" {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLockID)); err != nil {
			return nil, fmt.Errorf("documents: migrate: lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, createDocuments); err != nil {
		return nil, fmt.Errorf("documents: migrate: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("documents: migrate: %w", err)
	}
	return &Store{db: db, d: d}, nil
}

// Get returns the stored markdown of a document; found is false when nothing
// was ever written under the secret.
func (s *Store) Get(ctx context.Context, secret string) (content string, found bool, err error) {
	err = s.db.QueryRowContext(ctx, s.d.Rebind(`SELECT content FROM host_documents WHERE secret = ?`), secret).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("documents: read: %w", err)
	}
	return content, true, nil
}

// Put stores the markdown of a document, replacing what was there.
func (s *Store) Put(ctx context.Context, secret, markdown string) error {
	q := s.d.Rebind(`INSERT INTO host_documents (secret, content, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (secret) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at`)
	if _, err := s.db.ExecContext(ctx, q, secret, markdown, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("documents: write: %w", err)
	}
	return nil
}

// Delete removes a document's content; deleting a missing one is no error.
func (s *Store) Delete(ctx context.Context, secret string) error {
	if _, err := s.db.ExecContext(ctx, s.d.Rebind(`DELETE FROM host_documents WHERE secret = ?`), secret); err != nil {
		return fmt.Errorf("documents: delete: %w", err)
	}
	return nil
}
