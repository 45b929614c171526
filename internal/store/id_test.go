package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/appkitgo/appkit/internal/store"
)

// Entities the store creates get time-ordered (version 7) ids, so that one
// created after another sorts after it; their rich-text documents too. A
// document's secret grants access and stays random (version 4).
func TestCreatedIDsAreTimeOrdered(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		createType(t, st, "I/T", []store.FieldSpec{{Name: "I/name", Type: store.TText}, {Name: "I/body", Type: store.DocumentType}})
		var ids []string
		write(t, st, func(tx *store.Tx) error {
			for range 50 {
				e, err := tx.Create("I/T", map[string]any{"I/name": "x"})
				if err != nil {
					return err
				}
				ids = append(ids, e["platform/id"].(string))
			}
			cat := tx.Catalog()
			ty := cat.Type("I/T")
			secrets, err := tx.DocumentSecrets(ty, ty.Field("I/body"), ids)
			if err != nil || len(secrets) != len(ids) {
				t.Fatalf("secrets %v, %v", secrets, err)
			}
			for _, s := range secrets {
				if v := uuid.MustParse(s).Version(); v != 4 {
					t.Errorf("document secret %s is version %d, want a random (4) uuid", s, v)
				}
			}
			return nil
		})
		for i, id := range ids {
			u, err := uuid.Parse(id)
			if err != nil || u.String() != id || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
				t.Fatalf("id %q: %v, version %d, want a canonical version 7 uuid", id, err, u.Version())
			}
			if i > 0 && id <= ids[i-1] {
				t.Errorf("id %d %s does not sort after %s", i, id, ids[i-1])
			}
		}
		docs, err := st.DB().QueryContext(ctx, "SELECT id FROM "+mustType(t, st, store.DocumentType).Table)
		if err != nil {
			t.Fatal(err)
		}
		defer docs.Close()
		n := 0
		for docs.Next() {
			var id string
			if err := docs.Scan(&id); err != nil {
				t.Fatal(err)
			}
			if v := uuid.MustParse(id).Version(); v != 7 {
				t.Errorf("document entity id %s is version %d, want 7", id, v)
			}
			n++
		}
		if n != len(ids) {
			t.Errorf("%d document entities, want %d", n, len(ids))
		}
	})
}

func mustType(t *testing.T, st *store.Store, name string) *store.Type {
	t.Helper()
	cat, err := st.Catalog(context.Background())
	if err != nil || cat.Type(name) == nil {
		t.Fatalf("type %s: %v", name, err)
	}
	return cat.Type(name)
}

// Public ids stay consecutive and unique when bulk writes (which move the
// counter by a page at once) and single creates mix, within a transaction
// and across transactions.
func TestPublicIDsAcrossBulkAndCreate(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store.Store) {
		createType(t, st, "C/T", []store.FieldSpec{{Name: "C/name", Type: store.TText}})
		var ids []string
		bulk := func(tx *store.Tx, n int) error {
			ty := tx.Catalog().Type("C/T")
			rows := make([]store.BulkRow, n)
			for i := range rows {
				rows[i] = store.BulkRow{ID: uuid.NewString(), Values: []any{"b"}}
				ids = append(ids, rows[i].ID)
			}
			_, err := tx.BulkWrite(ty, []*store.Field{ty.Field("C/name")}, rows, nil)
			return err
		}
		create := func(tx *store.Tx) error {
			e, err := tx.Create("C/T", map[string]any{"C/name": "c"})
			if err == nil {
				ids = append(ids, e["platform/id"].(string))
			}
			return err
		}
		for _, steps := range [][]func(tx *store.Tx) error{
			{func(tx *store.Tx) error { return bulk(tx, 3) }},
			{create, func(tx *store.Tx) error { return bulk(tx, 2) }},
			{func(tx *store.Tx) error { return bulk(tx, 2) }, create},
			{create},
			{func(tx *store.Tx) error { return bulk(tx, 1) }},
		} {
			write(t, st, func(tx *store.Tx) error {
				for _, s := range steps {
					if err := s(tx); err != nil {
						return err
					}
				}
				return nil
			})
		}
		write(t, st, func(tx *store.Tx) error {
			ty := tx.Catalog().Type("C/T")
			for i, id := range ids {
				e, err := tx.Read(ty, id)
				if err != nil {
					return err
				}
				if want := fmt.Sprint(i + 1); e["platform/public-id"] != want {
					t.Errorf("entity %d: public id %v, want %s", i, e["platform/public-id"], want)
				}
			}
			return nil
		})
	})
}
