// Package teststore holds store fixtures shared by the tests of the
// packages above the store (syncer, apps, host, the examples). It is apart
// from testkit because the store's own tests import testkit.
package teststore

import (
	"context"
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
	cat, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ty := cat.Type(typeName)
	if ty == nil {
		return -1
	}
	var n int
	if err := st.DB().QueryRow("SELECT COUNT(*) FROM " + ty.Table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", typeName, err)
	}
	return n
}
