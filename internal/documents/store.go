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
// milliseconds), which the store's migrations make. Whether a secret names
// a document at all is the entity store's business (see [Handler]); Store
// only holds what was written.
type Store struct {
	db *sql.DB
	d  store.Dialect
}

// NewStore returns the documents of the store whose database and dialect
// are db and d (a database store.Open migrated).
func NewStore(_ context.Context, db *sql.DB, d store.Dialect) (*Store, error) {
	if db == nil || d == nil {
		return nil, errors.New("documents: NewStore needs a database and its dialect")
	}
	return &Store{db: db, d: d}, nil
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

// contentsChunk bounds the secrets of one query of Contents.
const contentsChunk = 500

// Contents calls fn with the stored markdown of each of the documents
// whose secrets (in lower case) are given and that have content, read
// through q: the store's database, or a write transaction's
// (store.Tx.Querier) to see what it wrote; d is the store's dialect. An
// error of fn ends the read and is returned as it is.
func Contents(ctx context.Context, q store.Querier, d store.Dialect, secrets []string, fn func(secret, content string) error) error {
	for i := 0; i < len(secrets); i += contentsChunk {
		chunk := secrets[i:min(i+contentsChunk, len(secrets))]
		args := make([]any, len(chunk))
		for j, s := range chunk {
			args[j] = s
		}
		if err := contents(ctx, q, d.Rebind(`SELECT secret, content FROM host_documents WHERE secret IN (?`+strings.Repeat(", ?", len(chunk)-1)+`)`), args, fn); err != nil {
			return err
		}
	}
	return nil
}

func contents(ctx context.Context, q store.Querier, query string, args []any, fn func(secret, content string) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("documents: read: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var secret, content string
		if err := rows.Scan(&secret, &content); err != nil {
			return fmt.Errorf("documents: read: %w", err)
		}
		if err := fn(secret, content); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("documents: read: %w", err)
	}
	return nil
}
