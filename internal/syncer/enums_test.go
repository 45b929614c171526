package syncer_test

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// selectSchema has a single select with declared options and a workflow
// without.
const selectSchema = `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},` +
	`"state":{"id":"state","name":"State","type":"text","subType":"single-select","options":["open","closed"]},` +
	`"stage":{"id":"stage","name":"Stage","type":"text","subType":"workflow"}}}`

const selectPage = `{"items":[{"id":"1","name":"One","state":"open","stage":"todo"},` +
	`{"id":"2","name":"Two","state":"closed","stage":"done"},{"id":"3","name":"Three","state":"blocked"}]}`

// The enum types of the fields above: as the workspace service names them
// (<field>_<holder type>), and as the host named them before.
var selectEnums = map[string]string{
	"fake.item/state_fake/item": "fake.item.state/options",
	"fake.item/stage_fake/item": "fake.item.stage/options",
}

// oldOptionID is the id the host has always given an option of the enum
// it named old (<space>.<type>.<field>/options): the entities' values
// point at it, so it stays.
func oldOptionID(old, option string) string {
	return uuid.NewSHA1(uuid.MustParse("6f1b7a1e-52a4-4c1b-9a0e-3c7d2f5b8e41"), []byte("enum\x00"+old+"\x00"+option)).String()
}

// enumTypes reads the catalog's enum types: name -> options (platform/id ->
// enum/name).
func enumTypes(t *testing.T, st *store.Store) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	err := st.Write(context.Background(), func(tx *store.Tx) error {
		for _, ty := range tx.Catalog().Types {
			if ty.Kind != store.KindEnum {
				continue
			}
			opts := map[string]string{}
			rows, err := tx.Querier().QueryContext(tx.Context(), "SELECT id, "+ty.Field("enum/name").Col+" FROM "+ty.Table)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id, name string
				if err := rows.Scan(&id, &name); err != nil {
					rows.Close()
					return err
				}
				opts[id] = name
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			out[ty.Name] = opts
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkEnums fails the test unless the store's enum types are those of
// selectEnums under the name named (the new one, or the old one when old),
// each with the options of want (enum -> option names) under the ids the
// host gives them.
func checkEnums(t *testing.T, st *store.Store, old bool, want map[string][]string) {
	t.Helper()
	got := enumTypes(t, st)
	wantEnums := map[string]map[string]string{}
	for name, oldName := range selectEnums {
		opts := map[string]string{}
		for _, o := range want[name] {
			opts[oldOptionID(oldName, o)] = o
		}
		if old {
			name = oldName
		}
		wantEnums[name] = opts
	}
	if !reflect.DeepEqual(got, wantEnums) {
		t.Errorf("enum types and their options:\n got %v\nwant %v", got, wantEnums)
	}
}

// A single select's and a workflow's enum types are named as the workspace
// service names them, <field>_<holder type>; their options' ids are those
// the host always gave them.
func TestSelectEnumNamedAsTheService(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		app := newFakeApp(t, selectSchema, func(c dataCall) (int, string) { return 200, selectPage })
		st := teststore.Open(t, dsn)
		rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		checkEnums(t, st, false, map[string][]string{
			"fake.item/state_fake/item": {"open", "closed", "blocked"},
			"fake.item/stage_fake/item": {"todo", "done"},
		})
		cat, _ := st.Refresh(ctx)
		for enum := range selectEnums {
			field, holder, _ := strings.Cut(enum, "_")
			if f := cat.Type(holder).Field(field); f == nil || cat.TypeName(f) != enum {
				t.Errorf("field %s of %s: %+v", field, holder, f)
			}
		}
		if !slices.ContainsFunc(rep.SchemaChanges, func(c string) bool { return strings.Contains(c, "fake.item/state (select)") }) {
			t.Errorf("schema changes: %v", rep.SchemaChanges)
		}
		want := map[string]map[string]any{
			"1": {"name": "One", "state": "open", "stage": "todo"},
			"2": {"name": "Two", "state": "closed", "stage": "done"},
			"3": {"name": "Three", "state": "blocked"},
		}
		if got := rows(t, st, "fake/item"); !reflect.DeepEqual(got, want) {
			t.Errorf("items: %v", got)
		}
	})
}

// A store whose select enums have the host's former names
// (<space>.<type>.<field>/options), with a sync state that names them so,
// has them renamed when it opens: options (and their ids) and the entities'
// values stay. Changes applied before the next run, and the next run, use
// the renamed enums: no second enum type, no option twice.
func TestOldEnumNamesRenamed(t *testing.T) {
	t.Parallel()
	testkit.EachSharedStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		page := selectPage
		app := newFakeApp(t, selectSchema, func(c dataCall) (int, string) { return 200, page })
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
			t.Fatal(err)
		}
		// The store as the host made it before: the enums under their old
		// names, and the sync state's mapping naming them so.
		err = st.WriteSchema(ctx, func(tx *store.Tx) error {
			for name, old := range selectEnums {
				if err := tx.RenameType(name, old); err != nil {
					return err
				}
			}
			b, err := tx.SyncState("app:fake")
			if err != nil {
				return err
			}
			for name, old := range selectEnums {
				if !bytes.Contains(b, []byte(`"`+name+`"`)) {
					t.Fatalf("the sync state does not name %s: %s", name, b)
				}
				b = bytes.ReplaceAll(b, []byte(`"`+name+`"`), []byte(`"`+old+`"`))
			}
			return tx.SaveSyncState("app:fake", b)
		})
		if err != nil {
			t.Fatal(err)
		}
		options := map[string][]string{
			"fake.item/state_fake/item": {"open", "closed", "blocked"},
			"fake.item/stage_fake/item": {"todo", "done"},
		}
		checkEnums(t, st, true, options)
		want := rows(t, st, "fake/item")
		st.Close()

		// Opened again: renamed, options and values kept.
		st = teststore.Open(t, dsn)
		checkEnums(t, st, false, options)
		if got := rows(t, st, "fake/item"); !reflect.DeepEqual(got, want) {
			t.Errorf("items after the rename: %v, want %v", got, want)
		}

		// Changes between runs, with a new option.
		changes := map[string][]any{"item": {map[string]any{"id": "3", "state": "open", "stage": "review"}}}
		if _, err := syncer.ApplyChanges(ctx, st, "fake", changes, nil); err != nil {
			t.Fatal(err)
		}
		options["fake.item/stage_fake/item"] = append(options["fake.item/stage_fake/item"], "review")
		checkEnums(t, st, false, options)
		want["3"] = map[string]any{"name": "Three", "state": "open", "stage": "review"}
		if got := rows(t, st, "fake/item"); !reflect.DeepEqual(got, want) {
			t.Errorf("items after the changes: %v, want %v", got, want)
		}

		// The next run: its values, one new option, no schema change.
		page = `{"items":[{"id":"1","name":"One","state":"closed","stage":"todo"},` +
			`{"id":"2","name":"Two","state":"closed","stage":"done"},{"id":"3","name":"Three","state":"blocked","stage":"review"},` +
			`{"id":"4","name":"Four","state":"open","stage":"shipped"}]}`
		rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.SchemaChanges) != 0 {
			t.Errorf("schema changes of the next run: %v", rep.SchemaChanges)
		}
		options["fake.item/stage_fake/item"] = append(options["fake.item/stage_fake/item"], "shipped")
		checkEnums(t, st, false, options)
		want = map[string]map[string]any{
			"1": {"name": "One", "state": "closed", "stage": "todo"},
			"2": {"name": "Two", "state": "closed", "stage": "done"},
			"3": {"name": "Three", "state": "blocked", "stage": "review"},
			"4": {"name": "Four", "state": "open", "stage": "shipped"},
		}
		if got := rows(t, st, "fake/item"); !reflect.DeepEqual(got, want) {
			t.Errorf("items after the next run: %v, want %v", got, want)
		}
	})
}
