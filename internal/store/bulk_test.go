package store_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/appkitgo/appkit/internal/store"
)

// The bulk path writes what Create and Update would: public ids in order,
// creation dates, a document per rich-text field, ranges, to-one relations
// (checked later: dangling ones are cleared and returned), enum options,
// links; updates leave unnamed fields alone.
func TestBulkWrites(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		err := st.WriteSchema(ctx, func(tx *store.Tx) error {
			if err := tx.CreateType(store.TypeSpec{Name: "B/P", Fields: []store.FieldSpec{{Name: "B/name", Type: store.TText}}}); err != nil {
				return err
			}
			if err := tx.CreateEnum("B/state"); err != nil {
				return err
			}
			return tx.CreateType(store.TypeSpec{Name: "B/T", Fields: []store.FieldSpec{
				{Name: "B/name", Type: store.TText}, {Name: "B/n", Type: store.TInt}, {Name: "B/span", Type: store.TDateRange},
				{Name: "B/body", Type: store.DocumentType}, {Name: "B/state", Type: "B/state"},
				{Name: "B/p", Type: "B/P"}, {Name: "B/ps", Type: "B/P", Meta: map[string]any{"platform/collection?": true}},
			}})
		})
		if err != nil {
			t.Fatal(err)
		}
		p1, t1, t2, open, todo := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
		var secret string
		write(t, st, func(tx *store.Tx) error {
			cat := tx.Catalog()
			pt, tt := cat.Type("B/P"), cat.Type("B/T")
			if _, err := tx.BulkUpsert(pt, []*store.Field{pt.Field("B/name")}, []store.BulkRow{{ID: p1, Values: []any{"P1"}}}); err != nil {
				return err
			}
			if err := tx.EnsureEnumOptions(cat.Type("B/state"), map[string]string{todo: "todo"}); err != nil {
				return err
			}
			fields := []*store.Field{tt.Field("B/name"), tt.Field("B/n"), tt.Field("B/span"), tt.Field("B/state"), tt.Field("B/p")}
			created, err := tx.BulkUpsert(tt, fields, []store.BulkRow{
				{ID: t1, Values: []any{"one", int64(1), [2]any{"2024-01-01", "2024-01-02"}, todo, p1}},
				{ID: t2, Values: []any{"two", nil, nil, nil, open}}, // open: no such P
			})
			if err != nil || !reflect.DeepEqual(created, []bool{true, true}) {
				t.Fatalf("created %v, %v", created, err)
			}
			// An update of one field leaves the others alone.
			created, err = tx.BulkUpsert(tt, []*store.Field{tt.Field("B/n")}, []store.BulkRow{{ID: t1, Values: []any{int64(5)}}})
			if err != nil || !reflect.DeepEqual(created, []bool{false}) {
				t.Fatalf("update: %v, %v", created, err)
			}
			if err := tx.SetLinks(tt.Field("B/ps"), map[string][]string{t1: {p1, open}}); err != nil {
				return err
			}
			e, err := tx.Read(tt, t1)
			if err != nil {
				return err
			}
			want := map[string]any{"B/name": "one", "B/n": int64(5), "B/span": map[string]any{"start": "2024-01-01", "end": "2024-01-02"},
				"B/state": map[string]any{"platform/id": todo}, "B/p": map[string]any{"platform/id": p1}, "platform/public-id": "1"}
			for k, v := range want {
				if !reflect.DeepEqual(e[k], v) {
					t.Errorf("%s = %#v, want %#v", k, e[k], v)
				}
			}
			secrets, err := tx.DocumentSecrets(tt, tt.Field("B/body"), []string{t1, t2})
			if err != nil || len(secrets) != 2 || secrets[t1] == secrets[t2] {
				t.Fatalf("secrets %v, %v", secrets, err)
			}
			secret = secrets[t1]
			// Dangling references: cleared and returned.
			d, err := tx.ClearDanglingRefs(tt.Field("B/p"), 10)
			if err != nil || !reflect.DeepEqual(d, []store.Dangling{{ID: t2, Target: open}}) {
				t.Errorf("dangling %v, %v", d, err)
			}
			d, err = tx.ClearDanglingRefs(tt.Field("B/ps"), 10)
			if err != nil || !reflect.DeepEqual(d, []store.Dangling{{ID: t1, Target: open}}) {
				t.Errorf("dangling links %v, %v", d, err)
			}
			e, _ = tx.Read(tt, t2)
			if e["B/p"] != nil || e["platform/public-id"] != "2" {
				t.Errorf("t2 = %v", e)
			}
			ids, err := tx.IDsByValue(tt, tt.Field("B/name"), []string{"two", "three"})
			if err != nil || !reflect.DeepEqual(ids, map[string]string{"two": t2}) {
				t.Errorf("by value %v, %v", ids, err)
			}
			return nil
		})
		if ok, err := st.DocumentSecretExists(ctx, secret); !ok || err != nil {
			t.Errorf("document %s: %v %v", secret, ok, err)
		}
		// The sync state round-trips.
		write(t, st, func(tx *store.Tx) error {
			if b, err := tx.SyncState("k"); err != nil || b != nil {
				t.Errorf("empty state %q %v", b, err)
			}
			if err := tx.SaveSyncState("k", []byte(`{"a":1}`)); err != nil {
				return err
			}
			b, err := tx.SyncState("k")
			if err != nil || string(b) != `{"a":1}` {
				t.Errorf("state %q %v", b, err)
			}
			return nil
		})
	})
}

// Decimals written in bulk, new and updated, read back with every digit
// (on PostgreSQL they are bound as NUMERIC values, not text).
func TestBulkDecimalsKeepEveryDigit(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		writeSchema(t, st, func(tx *store.Tx) error {
			return tx.CreateType(store.TypeSpec{Name: "D/T", Fields: []store.FieldSpec{{Name: "D/x", Type: store.TDecimal}}})
		})
		long := "-123456789012345678901234567890.123456789012345678901234567890"
		ids := []string{uuid.NewString(), uuid.NewString(), uuid.NewString()}
		write(t, st, func(tx *store.Tx) error {
			ty := tx.Catalog().Type("D/T")
			f := []*store.Field{ty.Field("D/x")}
			if _, err := tx.BulkUpsert(ty, f, []store.BulkRow{{ID: ids[0], Values: []any{long}}, {ID: ids[1], Values: []any{"0.10"}}, {ID: ids[2], Values: []any{nil}}}); err != nil {
				return err
			}
			_, err := tx.BulkUpsert(ty, f, []store.BulkRow{{ID: ids[1], Values: []any{"7"}}})
			return err
		})
		write(t, st, func(tx *store.Tx) error {
			ty := tx.Catalog().Type("D/T")
			for i, want := range []any{long, "7", nil} {
				e, err := tx.Read(ty, ids[i])
				if err != nil {
					return err
				}
				if e["D/x"] != want {
					t.Errorf("entity %d: D/x = %#v, want %#v", i, e["D/x"], want)
				}
			}
			return nil
		})
	})
}
