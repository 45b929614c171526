package store

import "testing"

func TestRebind(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, pg string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = $1 AND b = $2"},
		{"x = '?' AND y = ?", "x = '?' AND y = $1"},
		{"x = 'it''s?' AND y IN (?, ?)", "x = 'it''s?' AND y IN ($1, $2)"},
	}
	for _, c := range cases {
		if got := Postgres.Rebind(c.in); got != c.pg {
			t.Errorf("Postgres.Rebind(%q) = %q, want %q", c.in, got, c.pg)
		}
		if got := SQLite.Rebind(c.in); got != c.in {
			t.Errorf("SQLite.Rebind(%q) = %q", c.in, got)
		}
	}
}
