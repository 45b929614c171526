package syncer_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// An item written again with the values it had is counted unchanged, one
// whose values changed (a scalar, a relation, a rich text) updated; an item
// of a type synchronized before the hash field existed counts as updated
// once, then unchanged.
func TestUnchangedItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},` +
		`"body":{"id":"body","name":"Body","type":"text","subType":"md"},` +
		`"parent":{"id":"parent","name":"Parent","type":"text","relation":{"cardinality":"many-to-one","name":"Parent","targetType":"item","targetName":"Children","targetFieldId":"id"}}}}`
	pages := []string{
		`{"items":[{"id":"a","name":"A","body":"x"},{"id":"b","name":"B","parent":"a"},{"id":"c","name":"C"}]}`,
		`{"items":[{"id":"a","name":"A","body":"x"},{"id":"b","name":"B","parent":"a"},{"id":"c","name":"C"}]}`,
		`{"items":[{"id":"a","name":"A","body":"y"},{"id":"b","name":"B","parent":"c"},{"id":"c","name":"C2"},{"id":"d","name":"D"}]}`,
		`{"items":[{"id":"a","name":"A","body":"y"},{"id":"b","name":"B","parent":"c"},{"id":"c","name":"C2"},{"id":"d","name":"D"}]}`,
	}
	var run atomic.Int32
	app := newFakeApp(t, schema, func(c dataCall) (int, string) { return 200, pages[run.Load()] })
	st := openStore(t)
	type counts struct{ created, updated, unchanged int }
	// syncOnce runs the app once and checks the item counts of its type.
	syncOnce := func(run string, want counts) {
		t.Helper()
		rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
		if err != nil {
			t.Fatalf("%s: %v", run, err)
		}
		tr := rep.Types[0]
		if got := (counts{tr.Created, tr.Updated, tr.Unchanged}); got != want {
			t.Errorf("%s: created, updated, unchanged = %v, want %v", run, got, want)
		}
	}
	for i, want := range []counts{{3, 0, 0}, {0, 0, 3}, {1, 3, 0}, {0, 0, 4}} {
		run.Store(int32(i))
		syncOnce(fmt.Sprintf("run %d", i), want)
	}
	// A type of an older store has no hash field: it is added, and every
	// item counts as updated once.
	if err := st.Write(ctx, func(tx *store.Tx) error {
		return tx.DeleteField("fake/item", "fake.item.sync/hash", true)
	}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []counts{{0, 4, 0}, {0, 0, 4}} {
		syncOnce(fmt.Sprintf("run %d after the hash field was dropped", i), want)
	}
}
