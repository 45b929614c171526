package store

import (
	"context"
	"database/sql"
	"testing"
)

// Statements rebinds ? for the engine on the database and in a
// transaction alike (PostgreSQL refuses ? placeholders: a statement not
// rebound fails there).
func TestStatements(t *testing.T) {
	eachEngine(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		on := func(db DB) Statements { return Statements{DB: db, Dialect: s.Dialect()} }
		if _, err := on(s.DB()).Exec(ctx, "CREATE TABLE stmt_probe (id BIGINT PRIMARY KEY, name TEXT NOT NULL)"); err != nil {
			t.Fatal(err)
		}
		tx, err := s.DB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for id, name := range map[int64]string{1: "one", 2: "two", 3: "three"} {
			if _, err := on(tx).Exec(ctx, "INSERT INTO stmt_probe (id, name) VALUES (?, ?)", id, name); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		var name string
		if err := on(s.DB()).Row(ctx, "SELECT name FROM stmt_probe WHERE id = ? AND name <> ?", 2, "").Scan(&name); err != nil || name != "two" {
			t.Fatalf("Row: %q, %v", name, err)
		}
		rows, err := on(s.DB()).Rows(ctx, "SELECT name FROM stmt_probe WHERE id >= ? AND id <= ? ORDER BY id", 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		names, err := ScanAll(rows, func(r RowScanner) (string, error) {
			var n string
			err := r.Scan(&n)
			return n, err
		})
		if err != nil || len(names) != 2 || names[0] != "two" || names[1] != "three" {
			t.Fatalf("Rows: %v, %v", names, err)
		}
		if err := on(s.DB()).Row(ctx, "SELECT name FROM stmt_probe WHERE id = ?", 9).Scan(&name); err != sql.ErrNoRows {
			t.Fatalf("no row: %v, want sql.ErrNoRows", err)
		}
	})
}
