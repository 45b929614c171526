package syncer_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// deltaPageOf is a delta data page that sets items with these ids, and a
// next cursor {"p": next} when next > 0.
func deltaPageOf(next int, ids ...string) string {
	items := make([]string, len(ids))
	for i, id := range ids {
		items[i] = fmt.Sprintf(`{"id":%q,"name":"Name of %s","__syncAction":"SET"}`, id, id)
	}
	pag := `{"hasNext":false}`
	if next > 0 {
		pag = fmt.Sprintf(`{"hasNext":true,"nextPageConfig":{"p":%d}}`, next)
	}
	return fmt.Sprintf(`{"items":[%s],"pagination":%s,"synchronizationType":"delta"}`, strings.Join(items, ","), pag)
}

// storedIDs are the app ids of a store type's entities, sorted.
func storedIDs(t *testing.T, st *store.Store, typeName string) []string {
	t.Helper()
	return slices.Sorted(maps.Keys(rows(t, st, typeName)))
}

// A type whose pages are of both kinds is a delta for the run, whichever
// page came first: one delta page means the app sent changes only, so the
// entities the run did not deliver are kept (removing them, as after a
// full run, would lose data the app still has).
func TestMixedPagesMakeADelta(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		// pages are the pages of the current run, by page number.
		var pages atomic.Pointer[[]string]
		setPages := func(p ...string) { pages.Store(&p) }
		setPages(pageOf(0, "a1", "a2", "a3"))
		app := newFakeApp(t, typesSchema("a"), func(c dataCall) (int, string) {
			return 200, (*pages.Load())[cursorPage(c)-1]
		})
		app.set(func(a *fakeApp) { a.config = `{"types":[{"id":"a","name":"A"}]}` })
		st := teststore.Open(t, dsn)
		run := func(name string, want []string) {
			t.Helper()
			rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got := storedIDs(t, st, "fake/a"); !slices.Equal(got, want) {
				t.Errorf("%s: stored %v, want %v (nothing the delta did not name removed)", name, got, want)
			}
			if name == "first run" {
				return
			}
			if tr := reportOf(t, rep, "a"); tr.Mode != "delta" || tr.Removed != 0 {
				t.Errorf("%s: mode %q, %d removed; want delta, 0 removed", name, tr.Mode, tr.Removed)
			}
		}
		run("first run", []string{"a1", "a2", "a3"})
		// A full first page, then a delta page.
		setPages(pageOf(2, "a1"), deltaPageOf(0, "a4"))
		run("full page then delta page", []string{"a1", "a2", "a3", "a4"})
		// A delta first page, then a full page.
		setPages(deltaPageOf(2, "a5"), pageOf(0, "a1"))
		run("delta page then full page", []string{"a1", "a2", "a3", "a4", "a5"})
	})
}

// The end of a run removes what each full type did not deliver, however
// many delta types come before it in the run: a delta type leaves its own
// entities alone and nothing else.
func TestRemovalPastADeltaType(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		var second atomic.Bool
		app := newFakeApp(t, typesSchema("a", "b", "c"), func(c dataCall) (int, string) {
			typ := c.RequestedType
			switch {
			case !second.Load():
				return 200, pageOf(0, typ+"1", typ+"2")
			case typ == "a":
				return 200, deltaPageOf(0, "a3")
			default:
				// Full, without the second item.
				return 200, pageOf(0, typ+"1")
			}
		})
		app.set(func(a *fakeApp) {
			a.config = `{"types":[{"id":"a","name":"A"},{"id":"b","name":"B"},{"id":"c","name":"C"}]}`
		})
		st := teststore.Open(t, dsn)
		if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
			t.Fatal(err)
		}
		second.Store(true)
		rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, tr := range rep.Types {
			order = append(order, tr.Type)
		}
		if !slices.Equal(order, []string{"a", "b", "c"}) {
			t.Fatalf("the run's types are %v, want the delta type a first", order)
		}
		for typ, want := range map[string][]string{"a": {"a1", "a2", "a3"}, "b": {"b1"}, "c": {"c1"}} {
			if got := storedIDs(t, st, "fake/"+typ); !slices.Equal(got, want) {
				t.Errorf("type %s: stored %v, want %v", typ, got, want)
			}
		}
		for typ, removed := range map[string]int{"a": 0, "b": 1, "c": 1} {
			if tr := reportOf(t, rep, typ); tr.Removed != removed {
				t.Errorf("type %s (%s): %d removed, want %d", typ, tr.Mode, tr.Removed, removed)
			}
		}
	})
}

// An item whose value moved to another field is updated, not unchanged:
// the values' hash names the field of each value.
func TestUnchangedNamesTheFields(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},"note":{"id":"note","name":"Note","type":"text"}}}`
	var body atomic.Pointer[string]
	set := func(s string) { body.Store(&s) }
	app := newFakeApp(t, schema, func(c dataCall) (int, string) { return 200, *body.Load() })
	st := openStore(t)
	for _, step := range []struct {
		items                       string
		created, updated, unchanged int
	}{
		{`{"id":"x","name":"v"}`, 1, 0, 0},
		{`{"id":"x","note":"v"}`, 0, 1, 0},
		{`{"id":"x","note":"v"}`, 0, 0, 1},
		{`{"id":"x","name":"v"}`, 0, 1, 0},
	} {
		set(`{"items":[` + step.items + `],"synchronizationType":"full"}`)
		rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		tr := rep.Types[0]
		if tr.Created != step.created || tr.Updated != step.updated || tr.Unchanged != step.unchanged {
			t.Errorf("%s: created, updated, unchanged = %d, %d, %d; want %d, %d, %d", step.items,
				tr.Created, tr.Updated, tr.Unchanged, step.created, step.updated, step.unchanged)
		}
	}
}
