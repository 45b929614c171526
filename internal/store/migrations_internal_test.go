package store

import "testing"

// The migrations are numbered 1, 2, 3, ... in order, each named once and
// doing something on both engines.
func TestMigrationsNumbered(t *testing.T) {
	names := map[string]bool{}
	for i, m := range migrations {
		if m.version != int64(i+1) {
			t.Errorf("migration %d (%s) has version %d", i+1, m.name, m.version)
		}
		if m.name == "" || names[m.name] {
			t.Errorf("migration %d: name %q empty or used twice", m.version, m.name)
		}
		names[m.name] = true
		if m.data == nil && (len(m.sqlite) == 0 || len(m.postgres) == 0) {
			t.Errorf("migration %d (%s) does nothing on an engine", m.version, m.name)
		}
	}
}
