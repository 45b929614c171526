package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Errors callers match with errors.Is.
var (
	// ErrNotFound: no such app, account, sync or run.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: a request that cannot be accepted (the message says why).
	ErrInvalid = errors.New("invalid request")
	// ErrConflict: the request conflicts with what is stored (an app
	// registered twice, a space that another sync uses).
	ErrConflict = errors.New("conflict")
	// ErrUnreachable: the app did not answer (the message says how).
	ErrUnreachable = errors.New("the app did not answer")
)

// tx runs fn in one transaction.
func (s *core) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("apps: begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("apps: commit: %w", err)
	}
	return nil
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) *time.Time {
	if v <= 0 {
		return nil
	}
	t := time.UnixMilli(v).UTC()
	return &t
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// The bounds of a history's list (Runs, ActionRuns): at most maxListed
// entries, defaultListed when the limit asked for is none or too large.
const (
	defaultListed = 50
	maxListed     = 1000
)

// listLimit is the number of entries a list asked for with limit shows.
func listLimit(limit int) int {
	if limit <= 0 || limit > maxListed {
		return defaultListed
	}
	return limit
}
