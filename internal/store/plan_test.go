package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// The main reads and the sync's lookups use an index on SQLite (EXPLAIN
// QUERY PLAN), so that every index the store creates is one some read or
// sync uses, and dropping one fails this test: the default order (created,
// id), a to-one column read from its partner's side (a collection, a
// filter), a link table read from its b side, the lookups by id and by an
// indexed field (the sync's app ids) and the document secret lookup.
func TestQueryPlansUseIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := teststore.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "plan.db"))
	rel, link := "33333333-3333-3333-3333-333333333333", "44444444-4444-4444-4444-444444444444"
	err := st.WriteSchema(ctx, func(tx *store.Tx) error {
		if err := tx.CreateType(store.TypeSpec{Name: "Q/P", Fields: []store.FieldSpec{{Name: "Q/name", Type: store.TText}}}); err != nil {
			return err
		}
		if err := tx.CreateType(store.TypeSpec{Name: "Q/T", Fields: []store.FieldSpec{{Name: "Q/name", Type: store.TText}, {Name: "Q/body", Type: store.DocumentType}}}); err != nil {
			return err
		}
		for _, f := range []store.FieldSpec{
			{Holder: "Q/T", Name: "Q/p", Type: "Q/P", Meta: map[string]any{"platform/relation": rel}},
			{Holder: "Q/P", Name: "Q/ts", Type: "Q/T", Meta: map[string]any{"platform/relation": rel, "platform/collection?": true}},
			{Holder: "Q/T", Name: "Q/tags", Type: "Q/P", Meta: map[string]any{"platform/relation": link, "platform/collection?": true}},
			{Holder: "Q/P", Name: "Q/tagged", Type: "Q/T", Meta: map[string]any{"platform/relation": link, "platform/collection?": true}},
		} {
			if err := tx.CreateField(f); err != nil {
				return err
			}
		}
		return tx.KeyField("Q/T", "Q/name")
	})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := st.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pt, tt, dt := cat.Type("Q/P"), cat.Type("Q/T"), cat.Type(store.DocumentType)
	fk, tags := tt.Field("Q/p"), tt.Field("Q/tags")
	if fk.Storage != store.StoreColumn || tags.Storage != store.StoreLink || tt.Field("Q/body").Storage != store.StoreColumn {
		t.Fatalf("unexpected storage: %s %s", fk.Storage, tags.Storage)
	}
	compile := func(q *query.Query) (string, []any) {
		t.Helper()
		p, err := query.Compile(cat, st.Dialect(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p.SQL, p.Args
	}
	name := []query.Select{{Kind: query.SelectField, Key: "Q/name", Field: "Q/name"}}
	id := "00000000-0000-7000-8000-000000000001"
	for _, c := range []struct {
		name  string
		sql   func() (string, []any)
		index string // the index the plan must use
	}{
		{"default order", func() (string, []any) {
			return compile(&query.Query{From: "Q/T", Select: name, Limit: 50})
		}, tt.Table + "_order"},
		{"collection of a to-one's partner", func() (string, []any) {
			return compile(&query.Query{From: "Q/P", Limit: 50, Select: []query.Select{{Kind: query.SelectCollection, Key: "Q/ts", Field: "Q/ts", Sub: name}}})
		}, tt.Table + "_" + fk.Col},
		{"filter on a to-one", func() (string, []any) {
			return compile(&query.Query{From: "Q/T", Select: name, Limit: 50,
				Where: &query.Filter{Op: query.OpEq, Path: query.Path{Fields: []string{"Q/p"}}, Value: query.Value{Literal: map[string]any{"platform/id": id}}}})
		}, tt.Table + "_" + fk.Col},
		{"link table from its b side", func() (string, []any) {
			return compile(&query.Query{From: "Q/P", Limit: 50, Select: []query.Select{{Kind: query.SelectCollection, Key: "Q/tagged", Field: "Q/tagged", Sub: name}}})
		}, tags.Link + "_b"},
		{"sync lookup by ids", func() (string, []any) {
			return "SELECT id, " + tt.Field("Q/name").Col + " FROM " + tt.Table + " WHERE id IN (?, ?)", []any{id, id}
		}, "sqlite_autoindex_" + tt.Table + "_1"},
		{"sync lookup by app ids (an indexed field)", func() (string, []any) {
			col := tt.Field("Q/name").Col
			return "SELECT " + col + ", id FROM " + tt.Table + " WHERE " + col + " IN (?, ?)", []any{"a", "b"}
		}, tt.Table + "_" + tt.Field("Q/name").Col},
		{"document secret", func() (string, []any) {
			return "SELECT 1 FROM " + dt.Table + " WHERE " + dt.Field(store.DocumentSecret).Col + " = ? LIMIT 1", []any{id}
		}, dt.Table + "_secret"},
	} {
		q, args := c.sql()
		rows, err := st.DB().QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, q)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "INDEX "+c.index+" ") && !strings.HasSuffix(text, "INDEX "+c.index) {
			t.Errorf("%s: the plan does not use index %s:\n%s\n-- %s", c.name, c.index, text, q)
		}
	}
	_ = pt
}
