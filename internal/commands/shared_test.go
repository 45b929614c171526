package commands

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/apitest"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
)

// platform.schema/query is encoded once per catalog snapshot; a schema
// change (through this API, or inside a batch before the query) shows.
func TestSchemaQueryCached(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		first := mustJSON(t, ok(t, api, `{"command":"platform.schema/query"}`))
		c1 := api.schema.Load()
		if c1 == nil {
			t.Fatal("the schema was not cached")
		}
		if again := mustJSON(t, ok(t, api, `{"command":"platform.schema/query"}`)); again != first || api.schema.Load() != c1 {
			t.Fatal("a second query did not answer the cached schema")
		}
		if got := ok(t, api, createPlayer); got != "ok" {
			t.Fatalf("schema batch = %v", got)
		}
		if schemaType(t, api, "Cricket/Player") == nil {
			t.Fatal("the schema query does not show the new type")
		}
		if api.schema.Load() == c1 {
			t.Fatal("the cache was not replaced after the change")
		}
		// Inside a batch, after the batch's own change: built from the
		// transaction's catalog, not the cache.
		res := exec(t, api, `[{"command":"platform.command/batch","args":{"commands":[
			{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.type/create","args":{"platform/name":"Cricket/Team"}}]}},
			{"command":"platform.schema/query"}]}}]`)
		if res[0]["success"] != true || !strings.Contains(mustJSON(t, res[0]["result"]), `"Cricket/Team"`) {
			t.Fatalf("schema query inside the batch: %v", res[0])
		}
		if schemaType(t, api, "Cricket/Team") == nil {
			t.Fatal("the schema query after the batch does not show its type")
		}
	})
}

// Two host processes on one PostgreSQL database: a schema change through
// one is seen by the other's commands at once (a read that fails on the old
// catalog is run again), and reads make no catalog round trip.
func TestTwoProcessesRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sa, sb := apitest.TwoProcesses(t)
	a, b := New(sa), New(sb)
	b.Execute(ctx, []byte(`[{"command":"platform.schema/query"}]`)) // b caches the empty schema
	// Through b right away: a field only the new catalog has.
	ok(t, a, createPlayer)
	if got := mustJSON(t, ok(t, b, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Player","q/select":["Cricket/name"]}}}`)); got != "[]" {
		t.Fatalf("query through b = %s", got)
	}
	// A field whose column is gone: the answer is the new catalog's error,
	// not a failed statement.
	ok(t, a, `{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.field/delete","args":{"holder-type":"Cricket/Player","name":"Cricket/name"}}]}}`)
	if name := fails(t, b, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Player","q/select":["Cricket/name"]}}}`); name == store.NameInternal {
		t.Fatalf("query of a deleted field through b = %s", name)
	}
	ok(t, a, `{"command":"platform.entity/create","args":{"type":"Cricket/Player","entity":{"Cricket/Born":"2001-02-03"}}}`)
	testkit.WaitUntil(t, "b's schema query to show a's changes", func() bool {
		ty := schemaType(t, b, "Cricket/Player")
		return ty != nil && !strings.Contains(mustJSON(t, ty), `"Cricket/name"`)
	})
	testkit.WaitUntil(t, "b's catalog listener", sb.CatalogListening)
	trips := sb.CatalogRoundTrips()
	for range 10 {
		res := exec(t, b, `[{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Player","q/select":["Cricket/Born"]}}},{"command":"platform.schema/query"}]`)
		var rows []map[string]any
		if err := json.Unmarshal([]byte(mustJSON(t, res[0]["result"])), &rows); err != nil || len(rows) != 1 || rows[0]["Cricket/Born"] != "2001-02-03" {
			t.Fatalf("query through b: %v", res[0])
		}
	}
	if got := sb.CatalogRoundTrips() - trips; got != 0 {
		t.Errorf("20 reads through b made %d catalog round trips, want 0", got)
	}
}
