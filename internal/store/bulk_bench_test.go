package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// BenchmarkBulkWrite writes pages of 1000 new entities (six fields, one
// to-one relation, random ids as a synchronization's) into a SQLite file
// store (and PostgreSQL when APPKIT_TEST_POSTGRES is set), one transaction
// a page, as the sync engine does.
func BenchmarkBulkWrite(b *testing.B) {
	// Each run of a sub-benchmark (the testing package calls it again with
	// a larger b.N) writes into a fresh store.
	b.Run("sqlite", func(b *testing.B) { benchBulkWrite(b, "sqlite:"+filepath.Join(b.TempDir(), "bulk.db")) })
	if _, ok := testkit.StoreDSNs(b)["postgres"]; ok {
		b.Run("postgres", func(b *testing.B) { benchBulkWrite(b, testkit.StoreDSNs(b)["postgres"]) })
	}
}

func benchBulkWrite(b *testing.B, dsn string) {
	ctx := context.Background()
	st := teststore.Open(b, dsn)
	err := st.WriteSchema(ctx, func(tx *store.Tx) error {
		if err := tx.CreateType(store.TypeSpec{Name: "W/G", Fields: []store.FieldSpec{{Name: "W/name", Type: store.TText}}}); err != nil {
			return err
		}
		if err := tx.CreateType(store.TypeSpec{Name: "W/R", Fields: []store.FieldSpec{
			{Name: "W/name", Type: store.TText}, {Name: "W/n", Type: store.TInt}, {Name: "W/amount", Type: store.TDecimal},
			{Name: "W/at", Type: store.TDateTime}, {Name: "W/done", Type: store.TBool}, {Name: "W/g", Type: "W/G"}}}); err != nil {
			return err
		}
		return tx.KeyField("W/R", "W/name") // as the engine's app id
	})
	if err != nil {
		b.Fatal(err)
	}
	cat, _ := st.Catalog(ctx)
	ty := cat.Type("W/R")
	var fields []*store.Field
	for _, n := range []string{"W/name", "W/n", "W/amount", "W/at", "W/done", "W/g"} {
		fields = append(fields, ty.Field(n))
	}
	groups := make([]string, 100)
	for i := range groups {
		groups[i] = uuid.NewString()
	}
	const page = 1000
	rows := make([]store.BulkRow, page)
	i := 0
	b.ResetTimer()
	for b.Loop() {
		for k := range rows {
			rows[k] = store.BulkRow{ID: store.NewEntityID(), Values: []any{fmt.Sprint("row ", i), int64(i), "12.50", int64(i) * 60000, i%3 == 0, groups[i%100]}}
			i++
		}
		err := st.Write(ctx, func(tx *store.Tx) error {
			keys := make([]string, len(rows))
			for k, r := range rows {
				keys[k] = r.Values[0].(string)
			}
			// The engine's lookup of a page's entities by app id.
			if _, _, err := tx.MatchOrTakeReserved(ty, ty.Field("W/name"), keys, ty.Field("W/n")); err != nil {
				return err
			}
			_, err := tx.BulkWrite(ty, fields, rows, nil)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*page)/b.Elapsed().Seconds(), "items/s")
}
