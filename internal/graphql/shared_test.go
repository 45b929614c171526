package graphql

import (
	"context"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/apitest"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
)

// Two host processes on one PostgreSQL database: a schema change through
// one is answered by the other's GraphQL API at once (store.View runs a
// request that failed on the old catalog again), and queries make no catalog
// round trip.
func TestTwoProcessesQuery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, other := apitest.TwoProcesses(t)
	b := mustNew(t, Config{Store: other})
	trackerSchema(t, a)
	if got := run(t, b, "tracker", `{ findProjects { name } }`, nil); got != `{"data":{"findProjects":[]}}` {
		t.Fatalf("new space through b = %s", got)
	}
	if err := a.WriteSchema(ctx, func(tx *store.Tx) error {
		return tx.CreateField(store.FieldSpec{Holder: "tracker/project", Name: "tracker.project/code", Type: store.TText})
	}); err != nil {
		t.Fatal(err)
	}
	if got := run(t, b, "tracker", `{ findProjects { code } }`, nil); got != `{"data":{"findProjects":[]}}` {
		t.Fatalf("new field through b = %s", got)
	}
	testkit.WaitUntil(t, "b's catalog listener", other.CatalogListening)
	trips := other.CatalogRoundTrips()
	for range 10 {
		if got := run(t, b, "tracker", `{ findProjects { name code } }`, nil); strings.Contains(got, "errors") {
			t.Fatal(got)
		}
	}
	if got := other.CatalogRoundTrips() - trips; got != 0 {
		t.Errorf("10 queries through b made %d catalog round trips, want 0", got)
	}
}
