package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// Every connection of a SQLite file store runs with the settings the
// package doc promises: WAL with synchronous=NORMAL, an 8 MiB page cache,
// statement journals in memory, no memory map, a WAL checkpointed every
// 1000 pages and truncated back to 32 MiB.
func TestSQLiteFileSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := teststore.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "s.db"))
	want := []struct {
		pragma string
		value  string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "1"}, // NORMAL
		{"cache_size", "-8192"},
		{"temp_store", "2"}, // MEMORY
		{"mmap_size", "0"},
		{"wal_autocheckpoint", "1000"},
		{"journal_size_limit", "33554432"},
		{"foreign_keys", "1"},
		{"busy_timeout", "5000"},
	}
	// Two connections at once: the settings are per connection.
	for i := range 2 {
		conn, err := st.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, w := range want {
			var got string
			if err := conn.QueryRowContext(ctx, "PRAGMA "+w.pragma).Scan(&got); err != nil {
				t.Fatalf("connection %d: PRAGMA %s: %v", i, w.pragma, err)
			}
			if got != w.value {
				t.Errorf("connection %d: %s = %s, want %s", i, w.pragma, got, w.value)
			}
		}
	}
}
