// Package teststore holds store fixtures shared by the tests of the
// packages above the store (syncer, apps, host, the examples). It is apart
// from testkit because the store's own tests import testkit.
package teststore

import (
	"context"
	"slices"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

// Open opens the store at dsn (one of testkit.StoreDSNs, or a file) and
// closes it when the test ends.
func Open(t testing.TB, dsn string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open the store %s: %v", dsn, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Count returns the number of entities of the store type typeName (such as
// "tracker/task"), or -1 when the catalog has no such type.
func Count(t testing.TB, st *store.Store, typeName string) int {
	t.Helper()
	table, ok := tableOf(t, st, typeName)
	if !ok {
		return -1
	}
	var n int
	if err := st.DB().QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", typeName, err)
	}
	return n
}

// IDs returns the sorted ids of the entities of the store type typeName,
// or nil when the catalog has no such type.
func IDs(t testing.TB, st *store.Store, typeName string) []string {
	t.Helper()
	table, ok := tableOf(t, st, typeName)
	if !ok {
		return nil
	}
	rows, err := st.DB().Query("SELECT id FROM " + table)
	if err != nil {
		t.Fatalf("ids of %s: %v", typeName, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatalf("ids of %s: %v", typeName, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("ids of %s: %v", typeName, err)
	}
	slices.Sort(ids)
	return ids
}

// tableOf is the table of the store type typeName (false when the catalog
// has no such type).
func tableOf(t testing.TB, st *store.Store, typeName string) (string, bool) {
	t.Helper()
	cat, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ty := cat.Type(typeName)
	if ty == nil {
		return "", false
	}
	return ty.Table, true
}
