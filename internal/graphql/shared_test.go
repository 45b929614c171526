package graphql

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// Two host processes on one PostgreSQL database: a schema change through
// one is answered by the other's GraphQL API at once (store.View runs a
// request that failed on the old catalog again), and queries make no catalog
// round trip.
func TestTwoProcessesQuery(t *testing.T) {
	t.Parallel()
	if os.Getenv("APPKIT_TEST_POSTGRES") == "" {
		t.Skip("APPKIT_TEST_POSTGRES not set")
	}
	ctx := context.Background()
	dsn := testkit.StoreDSNs(t)["postgres"]
	stores := []*store.Store{teststore.Open(t, dsn), teststore.Open(t, dsn)}
	a, b := stores[0], New(Config{Store: stores[1]})
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
	testkit.WaitUntil(t, "b's catalog listener", stores[1].CatalogListening)
	trips := stores[1].CatalogRoundTrips()
	for range 10 {
		if got := run(t, b, "tracker", `{ findProjects { name code } }`, nil); strings.Contains(got, "errors") {
			t.Fatal(got)
		}
	}
	if got := stores[1].CatalogRoundTrips() - trips; got != 0 {
		t.Errorf("10 queries through b made %d catalog round trips, want 0", got)
	}
}
