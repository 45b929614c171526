package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/appkitgo/appkit/internal/apitest"
	"github.com/appkitgo/appkit/internal/store"
)

// postgresDSN is a fresh PostgreSQL schema of testkit.StoreDSNs; it skips
// the test when APPKIT_TEST_POSTGRES is not set.
func createTask(t *testing.T, st *store.Store) {
	t.Helper()
	err := st.Write(context.Background(), func(tx *store.Tx) error {
		return tx.CreateType(store.TypeSpec{Name: "A/Task", Fields: []store.FieldSpec{{Name: "A/name", Type: store.TText}}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func create(t *testing.T, st *store.Store, typ string, e map[string]any) map[string]any {
	t.Helper()
	var out map[string]any
	err := st.Write(context.Background(), func(tx *store.Tx) error {
		var err error
		out, err = tx.Create(typ, e)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A SQLite file keeps the catalog and the public-id counters across restarts.
func TestSQLiteFileReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "host.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	createTask(t, st)
	if e := create(t, st, "A/Task", map[string]any{"A/name": "one"}); e["platform/public-id"] != "1" {
		t.Fatalf("first = %v", e)
	}
	st.Close()
	st, err = store.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cat, err := st.Catalog(ctx)
	if err != nil || cat.Type("A/Task") == nil {
		t.Fatalf("catalog after reopen: %v %v", err, cat.TypeNames())
	}
	if e := create(t, st, "A/Task", map[string]any{"A/name": "two"}); e["platform/public-id"] != "2" {
		t.Fatalf("after reopen = %v", e)
	}
}

// Several host processes share one PostgreSQL database: a schema change made
// through one store is seen by the other, and a stale write reloads.
func TestPostgresTwoProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := apitest.TwoProcesses(t)
	createTask(t, a)
	// b's snapshot is stale; a write transaction reloads it.
	if e := create(t, b, "A/Task", map[string]any{"A/name": "from b"}); e["platform/public-id"] != "1" {
		t.Fatalf("create through b = %v", e)
	}
	if e := create(t, a, "A/Task", map[string]any{"A/name": "from a"}); e["platform/public-id"] != "2" {
		t.Fatalf("create through a = %v", e)
	}
	err := b.Write(ctx, func(tx *store.Tx) error {
		return tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/points", Type: store.TInt})
	})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := a.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Type("A/Task").Field("A/points") == nil {
		t.Fatal("a does not see the field b created")
	}
}

// Concurrent schema changes from two processes queue on the catalog lock:
// none fails, none is lost.
func TestPostgresConcurrentSchemaChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := apitest.TwoProcesses(t)
	stores := []*store.Store{a, b}
	createTask(t, stores[0])
	errs := make(chan error, 10)
	for i := 0; i < 2; i++ {
		go func(i int) {
			for j := 0; j < 5; j++ {
				errs <- stores[i].WriteSchema(ctx, func(tx *store.Tx) error {
					return tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: fmt.Sprintf("A/f%d_%d", i, j), Type: store.TInt})
				})
			}
		}(i)
	}
	for k := 0; k < 10; k++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	cat, err := stores[1].Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cat.Type("A/Task").Fields); n != 5+10 {
		t.Errorf("%d fields, want 15", n)
	}
}
