package syncer_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// idsSchema has items with a parent (an item) and an owner (a person):
// relations by the targets' app ids.
const idsSchema = `{
 "item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},
  "parent":{"id":"parent","name":"Parent","type":"text","relation":{"cardinality":"many-to-one","name":"Parent","targetType":"item","targetName":"Children","targetFieldId":"id"}},
  "owner":{"id":"owner","name":"Owner","type":"text","relation":{"cardinality":"many-to-one","name":"Owner","targetType":"person","targetName":"Items","targetFieldId":"id"}}},
 "person":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`

// idsApp serves items on two pages, then persons: relations point at items
// of a later page and at persons that come after every item; p9 never comes.
func idsApp(t *testing.T) *fakeApp {
	t.Helper()
	app := newFakeApp(t, idsSchema, func(c dataCall) (int, string) {
		switch {
		case c.RequestedType == "person":
			return 200, `{"items":[{"id":"p1","name":"P1"},{"id":"p2","name":"P2"}]}`
		case string(c.Pagination) == "" || string(c.Pagination) == "null":
			return 200, `{"items":[{"id":"i1","name":"I1","parent":"i3","owner":"p1"},{"id":"i2","name":"I2","parent":"i1"}],"pagination":{"hasNext":true,"nextPageConfig":{"page":2}}}`
		default:
			return 200, `{"items":[{"id":"i3","name":"I3","owner":"p2"},{"id":"i4","name":"I4","owner":"p9"}],"pagination":{"hasNext":false}}`
		}
	})
	app.set(func(a *fakeApp) {
		a.config = `{"types":[{"id":"item","name":"Items"},{"id":"person","name":"Persons"}],"filters":[]}`
	})
	return app
}

// entityIDs reads every entity id of a store type by its app id.
func entityIDs(t *testing.T, st *store.Store, space, appType string, appIDs ...string) map[string]string {
	t.Helper()
	ids, err := syncer.EntityIDs(context.Background(), st, space, appType, appIDs)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// Entities get fresh time-ordered ids (UUIDv7), not ids derived from the
// app's; a relation to an item that has not arrived yet (later page, later
// type) points at the entity that item then becomes; one that never comes
// is cleared and reported by its app id; a second run keeps every entity's
// id.
func TestEntityIDsAndForwardRelations(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := teststore.Open(t, dsn)
		app := idsApp(t)
		rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]map[string]any{
			"i1": {"name": "I1", "parent": "i3", "owner": "p1"},
			"i2": {"name": "I2", "parent": "i1"},
			"i3": {"name": "I3", "owner": "p2"},
			"i4": {"name": "I4"},
		}
		if got := rows(t, st, "fake/item"); !reflect.DeepEqual(got, want) {
			t.Errorf("items:\n got %v\nwant %v", got, want)
		}
		if got := strings.Join(rep.Types[0].Problems, "\n"); !strings.Contains(got, `item "i4": owner: the app never sent person "p9"`) {
			t.Errorf("item problems: %q, want p9 reported", got)
		}
		items := entityIDs(t, st, "fake", "item", "i1", "i2", "i3", "i4")
		persons := entityIDs(t, st, "fake", "person", "p1", "p2")
		if len(items) != 4 || len(persons) != 2 {
			t.Fatalf("entities: items %v, persons %v", items, persons)
		}
		for _, id := range append(values(items), values(persons)...) {
			if u, err := uuid.Parse(id); err != nil || u.Version() != 7 {
				t.Errorf("entity id %s: version %v (%v), want a UUIDv7", id, u.Version(), err)
			}
		}

		rep, err = syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if got := entityIDs(t, st, "fake", "item", "i1", "i2", "i3", "i4"); !reflect.DeepEqual(got, items) {
			t.Errorf("second run: item ids %v, want %v", got, items)
		}
		if got := entityIDs(t, st, "fake", "person", "p1", "p2"); !reflect.DeepEqual(got, persons) {
			t.Errorf("second run: person ids %v, want %v", got, persons)
		}
		if got := rows(t, st, "fake/item"); !reflect.DeepEqual(got, want) {
			t.Errorf("items after the second run:\n got %v\nwant %v", got, want)
		}
		for _, tr := range rep.Types {
			if tr.Created != 0 || tr.Removed != 0 {
				t.Errorf("second run, %s: created %d, removed %d, want 0", tr.Type, tr.Created, tr.Removed)
			}
		}
	})
}

func values(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// A store written before entities were found by their app ids (ids
// derived from the app's, no index on the app id) keeps its entities:
// the next run finds them by app id, updates them in place and indexes the
// app id.
func TestEntitiesOfOlderStoresKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "old.db")
	app := idsApp(t)
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	// Make it the older store: persons (which nothing but items' owner
	// columns point at) get other ids, and no type has the app id's index.
	cat, err := st.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]string{}
	db := st.DB()
	for appID, id := range entityIDs(t, st, "fake", "person", "p1", "p2") {
		derived := uuid.NewSHA1(uuid.NameSpaceOID, []byte(appID)).String()
		old[appID] = derived
		pt, it := cat.Type("fake/person"), cat.Type("fake/item")
		for _, q := range []string{
			"UPDATE " + pt.Table + " SET id = ? WHERE id = ?",
			"UPDATE " + it.Table + " SET " + it.Field("fake.item/owner").Col + " = ? WHERE " + it.Field("fake.item/owner").Col + " = ?",
		} {
			if _, err := db.ExecContext(ctx, q, derived, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	var doc string
	if err := db.QueryRowContext(ctx, "SELECT doc FROM catalog_state WHERE id = 1").Scan(&doc); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(doc), &raw); err != nil {
		t.Fatal(err)
	}
	dropped := 0
	for _, ty := range raw["types"].([]any) {
		for _, f := range ty.(map[string]any)["fields"].([]any) {
			f := f.(map[string]any)
			if f["key"] == true {
				delete(f, "key")
				if _, err := db.ExecContext(ctx, "DROP INDEX "+cat.TypeByID(ty.(map[string]any)["id"].(string)).Table+"_"+f["col"].(string)); err != nil {
					t.Fatal(err)
				}
				dropped++
			}
		}
	}
	if dropped != 2 {
		t.Fatalf("%d indexed fields, want the app ids of the two types", dropped)
	}
	b, _ := json.Marshal(raw)
	if _, err := db.ExecContext(ctx, "UPDATE catalog_state SET doc = ?, version = version + 1 WHERE id = 1", string(b)); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st = teststore.Open(t, dsn)
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if got := entityIDs(t, st, "fake", "person", "p1", "p2"); !reflect.DeepEqual(got, old) {
		t.Errorf("person ids %v, want the older ones %v", got, old)
	}
	for _, tr := range rep.Types {
		if tr.Created != 0 || tr.Removed != 0 {
			t.Errorf("%s: created %d, removed %d, want 0", tr.Type, tr.Created, tr.Removed)
		}
	}
	if got := rows(t, st, "fake/item"); got["i1"]["owner"] != "p1" || got["i3"]["owner"] != "p2" {
		t.Errorf("owners after the run: %v", got)
	}
	cat, err = st.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fake/item", "fake/person"} {
		space, appType, _ := strings.Cut(name, "/")
		if f := cat.Type(name).Field(space + "." + appType + ".sync/app-id"); !f.Key {
			t.Errorf("%s: the app id has no index after the run", name)
		}
	}
}
