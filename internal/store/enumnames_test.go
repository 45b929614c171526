package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
)

// Ids of the options of the old-named enum below.
const (
	optOpen   = "0b8f6f0e-8a43-4f2c-9b1d-4c1b7a0e5d21"
	optClosed = "7d2c1f4a-3e5b-4a6c-8d9e-0f1a2b3c4d5e"
)

// makeOldEnums makes, through the store's API, what the host's sync engine
// made of a single select before enum types were named as the workspace
// service names them: the enum gh.issue.state/options of the field
// gh.issue/state of type gh/issue, two options and an entity holding one.
// Beside it: enums that are not a select's under that old name (one ending
// in /options that no field of the right name uses, one of another name,
// and one of a field whose name does not match its enum's).
func makeOldEnums(t *testing.T, st *store.Store) (entityID string) {
	t.Helper()
	writeSchema(t, st, func(tx *store.Tx) error {
		for _, e := range []string{"gh.issue.state/options", "gh.issue.orphan/options", "gh/colors", "gh.issue.kind/options"} {
			if err := tx.CreateEnum(e); err != nil {
				return err
			}
		}
		return tx.CreateType(store.TypeSpec{Name: "gh/issue", Fields: []store.FieldSpec{
			{Name: "gh.issue/title", Type: store.TText},
			{Name: "gh.issue/state", Type: "gh.issue.state/options"},
			{Name: "gh.issue/color", Type: "gh/colors"},
			{Name: "gh.issue/type", Type: "gh.issue.kind/options"},
		}})
	})
	write(t, st, func(tx *store.Tx) error {
		cat := tx.Catalog()
		if err := tx.EnsureEnumOptions(cat.Type("gh.issue.state/options"), map[string]string{optOpen: "open", optClosed: "closed"}); err != nil {
			return err
		}
		e, err := tx.Create("gh/issue", map[string]any{"gh.issue/title": "one", "gh.issue/state": map[string]any{"platform/id": optClosed}})
		entityID, _ = e["platform/id"].(string)
		return err
	})
	return entityID
}

// A store whose select enums have the host's former names
// (<space>.<type>.<field>/options) has them renamed to the service's
// (<field>_<holder type>) when it opens: the same type (id, options with
// their ids and ranks, the entities' values), in one schema change however
// many processes open the store at once, and never again after.
func TestOldEnumNamesRenamedOnOpen(t *testing.T) {
	t.Parallel()
	testkit.EachSharedStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		id := makeOldEnums(t, st)
		before, _ := st.Refresh(ctx)
		old := before.Type("gh.issue.state/options")
		oldOptions := enumOptions(t, st, old.Name)
		st.Close()

		// Two processes open the store at once.
		opened := make(chan *store.Store, 2)
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				s, err := store.Open(ctx, dsn)
				errs <- err
				opened <- s
			}()
		}
		var stores []*store.Store
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatalf("open: %v", err)
			}
			s := <-opened
			stores = append(stores, s)
			t.Cleanup(func() { s.Close() })
		}
		for _, s := range stores {
			cat, err := s.Refresh(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if cat.Version != before.Version+1 {
				t.Errorf("catalog version %d after the opens, want %d (one schema change)", cat.Version, before.Version+1)
			}
			renamed := cat.Type("gh.issue/state_gh/issue")
			if renamed == nil || renamed.ID != old.ID || renamed.Kind != store.KindEnum || cat.Type(old.Name) != nil {
				t.Fatalf("types after the opens: %v", cat.TypeNames())
			}
			if f := cat.Type("gh/issue").Field("gh.issue/state"); cat.Target(f) != renamed {
				t.Errorf("gh.issue/state is of type %s", cat.TypeName(f))
			}
			// The others keep their names.
			for _, name := range []string{"gh.issue.orphan/options", "gh/colors", "gh.issue.kind/options"} {
				if cat.Type(name) == nil {
					t.Errorf("enum %s was renamed: %v", name, cat.TypeNames())
				}
			}
		}
		st = stores[0]
		if got := enumOptions(t, st, "gh.issue/state_gh/issue"); !equalOptions(got, oldOptions) || len(got) != 2 {
			t.Errorf("options after the rename: %v, want %v", got, oldOptions)
		}
		var e map[string]any
		write(t, st, func(tx *store.Tx) error {
			e, err = tx.Read(tx.Catalog().Type("gh/issue"), id)
			return err
		})
		if ref, _ := e["gh.issue/state"].(map[string]any); ref["platform/id"] != optClosed {
			t.Errorf("the entity's state after the rename: %v", e["gh.issue/state"])
		}
		// The renamed enum works: a new option, a new entity.
		write(t, st, func(tx *store.Tx) error {
			if err := tx.EnsureEnumOptions(tx.Catalog().Type("gh.issue/state_gh/issue"), map[string]string{optOpen: "open"}); err != nil {
				return err
			}
			_, err := tx.Create("gh/issue", map[string]any{"gh.issue/title": "two", "gh.issue/state": map[string]any{"platform/id": optOpen}})
			return err
		})

		// Opened again, the store changes nothing.
		for _, s := range stores {
			s.Close()
		}
		again, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer again.Close()
		cat, err := again.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if cat.Version != before.Version+1 || cat.Type("gh.issue/state_gh/issue") == nil {
			t.Errorf("opened again: version %d (want %d), types %v", cat.Version, before.Version+1, cat.TypeNames())
		}
	})
}

// enumOptions reads an enum's options: platform/id -> enum/name and rank.
func enumOptions(t *testing.T, st *store.Store, enum string) map[string][2]any {
	t.Helper()
	out := map[string][2]any{}
	cat, err := st.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ty := cat.Type(enum)
	if ty == nil {
		t.Fatalf("no enum %s in %v", enum, cat.TypeNames())
	}
	rows, err := st.DB().Query("SELECT id, " + ty.Field("enum/name").Col + ", " + ty.Field("platform/rank").Col + " FROM " + ty.Table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		var rank int64
		if err := rows.Scan(&id, &name, &rank); err != nil {
			t.Fatal(err)
		}
		out[id] = [2]any{name, rank}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func equalOptions(a, b map[string][2]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// An enum type's name may be as long as a field name and a type name joined
// by "_" (the service's name of a select's enum); other names stay bounded
// at 200.
func TestEnumNameOfLongNames(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		field := "a/" + strings.Repeat("f", 198)
		holder := "a/" + strings.Repeat("t", 198)
		name := field + "_" + holder
		writeSchema(t, st, func(tx *store.Tx) error {
			if err := tx.CreateEnum(name); err != nil {
				return err
			}
			if err := tx.CreateEnum("a/short"); err != nil {
				return err
			}
			return tx.RenameType("a/short", strings.Replace(name, "_", "-", 1))
		})
		for what, err := range map[string]error{
			"a longer enum": st.WriteSchema(context.Background(), func(tx *store.Tx) error { return tx.CreateEnum(name + "x") }),
			"a long type": st.WriteSchema(context.Background(), func(tx *store.Tx) error {
				return tx.CreateType(store.TypeSpec{Name: holder + "x"})
			}),
			"a type renamed long": st.WriteSchema(context.Background(), func(tx *store.Tx) error {
				if err := tx.CreateType(store.TypeSpec{Name: "a/type"}); err != nil {
					return err
				}
				return tx.RenameType("a/type", name)
			}),
		} {
			wantError(t, what, err, store.NameInvalidName)
		}
	})
}
