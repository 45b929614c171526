package query_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

func forEachStore(t *testing.T, fn func(t *testing.T, st *store.Store)) {
	testkit.EachStore(t, func(t *testing.T, dsn string) { fn(t, teststore.Open(t, dsn)) })
}

func write(t *testing.T, st *store.Store, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := st.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// catalog is st's catalog, failing the test when it cannot be read.
func catalog(t *testing.T, st *store.Store) *store.Catalog {
	t.Helper()
	cat, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// compile compiles q on st's catalog, failing the test on an error.
func compile(t *testing.T, st *store.Store, q *query.Query, params map[string]any) *query.Plan {
	t.Helper()
	plan, err := query.Compile(catalog(t, st), st.Dialect(), q, params)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return plan
}

func run(t *testing.T, st *store.Store, q *query.Query, params map[string]any) string {
	t.Helper()
	plan := compile(t, st, q, params)
	rows, err := plan.Run(context.Background(), st.DB())
	if err != nil {
		t.Fatalf("run: %v\n%s", err, plan.SQL)
	}
	b, _ := json.Marshal(rows)
	return string(b)
}

// createTypes creates a type of each name, each with fields.
func createTypes(tx *store.Tx, fields []store.FieldSpec, names ...string) error {
	for _, n := range names {
		if err := tx.CreateType(store.TypeSpec{Name: n, Fields: fields}); err != nil {
			return err
		}
	}
	return nil
}

func sel(names ...string) []query.Select {
	var out []query.Select
	for _, n := range names {
		out = append(out, query.Select{Kind: query.SelectField, Key: n, Field: n})
	}
	return out
}

// The model also serves GraphQL: literal values, isNull, filtered and ordered
// collections, the default limit.
func TestModelBeyondCommands(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		rel := "44444444-4444-4444-4444-444444444444"
		write(t, st, func(tx *store.Tx) error {
			if err := createTypes(tx, []store.FieldSpec{{Name: "Q/name", Type: store.TText}, {Name: "Q/n", Type: store.TInt}}, "Q/Parent", "Q/Child"); err != nil {
				return err
			}
			if err := tx.CreateField(store.FieldSpec{Holder: "Q/Child", Name: "Q/parent", Type: "Q/Parent", Meta: map[string]any{"platform/relation": rel}}); err != nil {
				return err
			}
			return tx.CreateField(store.FieldSpec{Holder: "Q/Parent", Name: "Q/children", Type: "Q/Child", Meta: map[string]any{"platform/relation": rel, "platform/collection?": true}})
		})
		write(t, st, func(tx *store.Tx) error {
			p, err := tx.Create("Q/Parent", map[string]any{"Q/name": "p"})
			if err != nil {
				return err
			}
			for i := 0; i < query.DefaultLimit+5; i++ {
				e := map[string]any{"Q/name": fmt.Sprintf("c%04d", i), "Q/n": int64(i % 7)}
				if i < 5 {
					e["Q/parent"] = map[string]any{"platform/id": p["platform/id"]}
				}
				if i == 3 {
					delete(e, "Q/n")
				}
				if _, err := tx.Create("Q/Child", e); err != nil {
					return err
				}
			}
			return nil
		})
		got := run(t, st, &query.Query{From: "Q/Child", Select: sel("Q/name")}, nil)
		if n := strings.Count(got, "Q/name"); n != query.DefaultLimit {
			t.Errorf("default limit: %d rows", n)
		}
		got = run(t, st, &query.Query{From: "Q/Child", Select: sel("Q/name"), NoLimit: true, Where: &query.Filter{Op: query.OpIsNull, Path: query.Path{Fields: []string{"Q/n"}}}}, nil)
		if got != `[{"Q/name":"c0003"}]` {
			t.Errorf("isNull: %s", got)
		}
		got = run(t, st, &query.Query{From: "Q/Child", Select: sel("Q/name"), Limit: 2, Order: []query.Order{{Path: query.Path{Fields: []string{"Q/name"}}}},
			Where: &query.Filter{Op: query.OpGe, Path: query.Path{Fields: []string{"Q/n"}}, Value: query.Value{Literal: int64(6)}}}, nil)
		if got != `[{"Q/name":"c0006"},{"Q/name":"c0013"}]` {
			t.Errorf("literal value: %s", got)
		}
		got = run(t, st, &query.Query{From: "Q/Parent", Select: []query.Select{{Kind: query.SelectCollection, Key: "kids", Field: "Q/children", Sub: sel("Q/name"),
			Where: &query.Filter{Op: query.OpLt, Path: query.Path{Fields: []string{"Q/n"}}, Value: query.Value{Literal: int64(3)}},
			Order: []query.Order{{Path: query.Path{Fields: []string{"Q/name"}}, Desc: true}}}}}, nil)
		if got != `[{"kids":[{"Q/name":"c0002"},{"Q/name":"c0001"},{"Q/name":"c0000"}]}]` {
			t.Errorf("filtered collection: %s", got)
		}
		got = run(t, st, &query.Query{From: "Q/Parent", Select: []query.Select{{Kind: query.SelectCollection, Key: "kids", Field: "Q/children", Sub: sel("Q/name", "Q/n"),
			Order: []query.Order{{Path: query.Path{Fields: []string{"Q/n"}}, Desc: true}}, Limit: 2}}}, nil)
		if got != `[{"kids":[{"Q/n":4,"Q/name":"c0004"},{"Q/n":2,"Q/name":"c0002"}]}]` {
			t.Errorf("limited collection: %s", got)
		}
		item := func(op query.Op, n int64, name string) *query.Filter {
			return &query.Filter{Op: query.OpAnd, Sub: []*query.Filter{
				{Op: op, Path: query.Path{Fields: []string{"Q/n"}}, Value: query.Value{Literal: n}},
				{Op: query.OpEq, Path: query.Path{Fields: []string{"Q/name"}}, Value: query.Value{Literal: name}}}}
		}
		children := query.Path{Fields: []string{"Q/children"}}
		for _, c := range []struct {
			f    *query.Filter
			want string
		}{
			{&query.Filter{Op: query.OpSome, Path: children, Sub: []*query.Filter{item(query.OpEq, 2, "c0002")}}, `[{"Q/name":"p"}]`},
			{&query.Filter{Op: query.OpSome, Path: children, Sub: []*query.Filter{item(query.OpEq, 2, "c0001")}}, `[]`},
			{&query.Filter{Op: query.OpNone, Path: children, Sub: []*query.Filter{item(query.OpEq, 2, "c0001")}}, `[{"Q/name":"p"}]`},
			{&query.Filter{Op: query.OpNone, Path: children, Sub: []*query.Filter{item(query.OpGe, 0, "c0000")}}, `[]`},
		} {
			if got := run(t, st, &query.Query{From: "Q/Parent", Select: sel("Q/name"), Where: c.f}, nil); got != c.want {
				t.Errorf("%s %v: %s, want %s", c.f.Op, c.f.Sub[0], got, c.want)
			}
		}
		got = run(t, st, &query.Query{From: "Q/Parent", Select: sel("Q/name"),
			Where: &query.Filter{Op: query.OpIsNull, Path: query.Path{Fields: []string{"Q/children"}}}}, nil)
		if got != `[]` {
			t.Errorf("empty collection filter: %s", got)
		}
		got = run(t, st, &query.Query{From: "Q/Parent", Select: sel("Q/name"),
			Where: &query.Filter{Op: query.OpIsNotNull, Path: query.Path{Fields: []string{"Q/children"}}}}, nil)
		if got != `[{"Q/name":"p"}]` {
			t.Errorf("non-empty collection filter: %s", got)
		}
		got = run(t, st, &query.Query{From: "Q/Child", Select: sel("Q/name"), Limit: 3,
			Where: &query.Filter{Op: query.OpIsNotNull, Path: query.Path{Fields: []string{"Q/parent"}}}}, nil)
		if strings.Count(got, "Q/name") != 3 {
			t.Errorf("non-empty entity field filter: %s", got)
		}
	})
}

// One-to-one pairs stay one-to-one; a lone collection's links move into the
// column of a to-one partner added later.
func TestRelationStorage(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		write(t, st, func(tx *store.Tx) error {
			if err := createTypes(tx, []store.FieldSpec{{Name: "R/name", Type: store.TText}}, "R/A", "R/B"); err != nil {
				return err
			}
			one := map[string]any{"platform/relation": "55555555-5555-5555-5555-555555555555"}
			if err := tx.CreateField(store.FieldSpec{Holder: "R/A", Name: "R/b", Type: "R/B", Meta: one}); err != nil {
				return err
			}
			if err := tx.CreateField(store.FieldSpec{Holder: "R/B", Name: "R/a", Type: "R/A", Meta: one}); err != nil {
				return err
			}
			// A lone collection (link table) ...
			return tx.CreateField(store.FieldSpec{Holder: "R/A", Name: "R/bs", Type: "R/B",
				Meta: map[string]any{"platform/relation": "66666666-6666-6666-6666-666666666666", "platform/collection?": true}})
		})
		ids := map[string]string{}
		write(t, st, func(tx *store.Tx) error {
			for _, n := range []string{"a1", "a2"} {
				e, err := tx.Create("R/A", map[string]any{"R/name": n})
				if err != nil {
					return err
				}
				ids[n] = e["platform/id"].(string)
			}
			for _, n := range []string{"b1", "b2"} {
				e, err := tx.Create("R/B", map[string]any{"R/name": n})
				if err != nil {
					return err
				}
				ids[n] = e["platform/id"].(string)
			}
			if _, err := tx.Update("R/A", map[string]any{"platform/id": ids["a1"], "R/b": ids["b1"]}); err != nil {
				return err
			}
			// b1 moves to a2: a1 loses it.
			if _, err := tx.Update("R/A", map[string]any{"platform/id": ids["a2"], "R/b": ids["b1"]}); err != nil {
				return err
			}
			// Set from the other side.
			if _, err := tx.Update("R/B", map[string]any{"platform/id": ids["b2"], "R/a": ids["a1"]}); err != nil {
				return err
			}
			return tx.CollectionItems("R/A", "R/bs", ids["a1"], []any{ids["b1"], ids["b2"]}, true)
		})
		q := &query.Query{From: "R/A", Select: []query.Select{{Kind: query.SelectField, Key: "R/name", Field: "R/name"},
			{Kind: query.SelectObject, Key: "R/b", Field: "R/b", Sub: sel("R/name")}}, Order: []query.Order{{Path: query.Path{Fields: []string{"R/name"}}}}}
		if got := run(t, st, q, nil); got != `[{"R/b":{"R/name":"b2"},"R/name":"a1"},{"R/b":{"R/name":"b1"},"R/name":"a2"}]` {
			t.Errorf("one-to-one: %s", got)
		}
		write(t, st, func(tx *store.Tx) error {
			return tx.CreateField(store.FieldSpec{Holder: "R/B", Name: "R/owner", Type: "R/A", Meta: map[string]any{"platform/relation": "66666666-6666-6666-6666-666666666666"}})
		})
		q = &query.Query{From: "R/B", Select: []query.Select{{Kind: query.SelectField, Key: "R/name", Field: "R/name"},
			{Kind: query.SelectObject, Key: "R/owner", Field: "R/owner", Sub: sel("R/name")}}, Order: []query.Order{{Path: query.Path{Fields: []string{"R/name"}}}}}
		if got := run(t, st, q, nil); got != `[{"R/name":"b1","R/owner":{"R/name":"a1"}},{"R/name":"b2","R/owner":{"R/name":"a1"}}]` {
			t.Errorf("links moved into the to-one column: %s", got)
		}
		q = &query.Query{From: "R/A", Select: []query.Select{{Kind: query.SelectAggregate, Key: "n", Field: "R/bs", Agg: query.AggCount, AggField: "platform/id"}},
			Order: []query.Order{{Path: query.Path{Fields: []string{"R/name"}}}}}
		if got := run(t, st, q, nil); got != `[{"n":2},{"n":0}]` {
			t.Errorf("collection after the move: %s", got)
		}
	})
}

// Compiled SQL holds generated identifiers and placeholders only.
func TestCompileNoUserStrings(t *testing.T) {
	t.Parallel()
	st := teststore.Open(t, "sqlite::memory:")
	name := `X/it's "quoted"; DROP TABLE t_1 --?`
	write(t, st, func(tx *store.Tx) error {
		return tx.CreateType(store.TypeSpec{Name: "X/T", Fields: []store.FieldSpec{{Name: name, Type: store.TText}}})
	})
	cat := catalog(t, st)
	q := &query.Query{From: "X/T", Select: sel(name), Where: &query.Filter{Op: query.OpEq, Path: query.Path{Fields: []string{name}}, Value: query.Value{IsParam: true, Param: "v"}}}
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		plan, err := query.Compile(cat, d, q, map[string]any{"v": "'; DROP TABLE x; --"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(plan.SQL, `'";/`) || strings.Contains(plan.SQL, "DROP") {
			t.Errorf("%s SQL carries user text: %s", d.Name(), plan.SQL)
		}
		if len(plan.Args) != 2 || plan.Args[0] != "'; DROP TABLE x; --" {
			t.Errorf("%s args = %v", d.Name(), plan.Args)
		}
	}
	if got := run(t, st, q, map[string]any{"v": "nothing"}); got != `[]` {
		t.Errorf("got %s", got)
	}
}

// Deleting an entity removes it from collections that have no partner field.
func TestDeleteFromLoneCollection(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		write(t, st, func(tx *store.Tx) error {
			if err := createTypes(tx, []store.FieldSpec{{Name: "L/name", Type: store.TText}}, "L/A", "L/B"); err != nil {
				return err
			}
			return tx.CreateField(store.FieldSpec{Holder: "L/A", Name: "L/bs", Type: "L/B", Meta: map[string]any{"platform/collection?": true}})
		})
		var a, b1, b2 map[string]any
		write(t, st, func(tx *store.Tx) error {
			var err error
			if a, err = tx.Create("L/A", map[string]any{"L/name": "a"}); err != nil {
				return err
			}
			if b1, err = tx.Create("L/B", map[string]any{"L/name": "b1"}); err != nil {
				return err
			}
			if b2, err = tx.Create("L/B", map[string]any{"L/name": "b2"}); err != nil {
				return err
			}
			return tx.CollectionItems("L/A", "L/bs", a, []any{b1, b2}, true)
		})
		write(t, st, func(tx *store.Tx) error { return tx.Delete("L/B", b1) })
		q := &query.Query{From: "L/A", Select: []query.Select{{Kind: query.SelectCollection, Key: "bs", Field: "L/bs", Sub: sel("L/name")}}}
		if got := run(t, st, q, nil); got != `[{"bs":[{"L/name":"b2"}]}]` {
			t.Errorf("after deleting b1: %s", got)
		}
		// No dangling links: with both items gone the field is empty, in the
		// result, to filters and to aggregates, and it deletes without
		// delete-values?.
		write(t, st, func(tx *store.Tx) error { return tx.Delete("L/B", b2) })
		if got := run(t, st, q, nil); got != `[{"bs":[]}]` {
			t.Errorf("after deleting both: %s", got)
		}
		empty := &query.Query{From: "L/A", Select: append(sel("L/name"), query.Select{Kind: query.SelectAggregate, Key: "n", Field: "L/bs", Agg: query.AggCount, AggField: "platform/id"}),
			Where: &query.Filter{Op: query.OpIsNull, Path: query.Path{Fields: []string{"L/bs"}}}}
		if got := run(t, st, empty, nil); got != `[{"L/name":"a","n":0}]` {
			t.Errorf("empty collection filter and count: %s", got)
		}
		ids := &query.Query{From: "L/A", Select: sel("L/bs")}
		if got := run(t, st, ids, nil); got != `[{"L/bs":[]}]` {
			t.Errorf("ids of the emptied collection: %s", got)
		}
		write(t, st, func(tx *store.Tx) error { return tx.DeleteField("L/A", "L/bs", false) })
	})
}

// Every order ends with platform/id ascending, so entities with equal sort
// values come in id order and pages over them neither repeat nor skip one.
// The entities are created in an order that is not their id order.
func TestOrderTieBreaker(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		st.SetClock(func() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) })
		write(t, st, func(tx *store.Tx) error {
			if err := tx.CreateType(store.TypeSpec{Name: "O/Group", Fields: []store.FieldSpec{{Name: "O/name", Type: store.TText}}}); err != nil {
				return err
			}
			if err := tx.CreateType(store.TypeSpec{Name: "O/T", Fields: []store.FieldSpec{{Name: "O/n", Type: store.TInt}, {Name: "O/s", Type: store.TText}}}); err != nil {
				return err
			}
			return tx.CreateField(store.FieldSpec{Holder: "O/T", Name: "O/group", Type: "O/Group"})
		})
		id := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
		write(t, st, func(tx *store.Tx) error {
			g, err := tx.Create("O/Group", map[string]any{"O/name": "g"})
			if err != nil {
				return err
			}
			// Ids 1..6 created as 5, 3, 6, 1, 4, 2; odd ids have n = 1, even n = 2.
			for _, i := range []int{5, 3, 6, 1, 4, 2} {
				e := map[string]any{"platform/id": id(i), "O/n": int64(2 - i%2), "O/s": "same", "O/group": map[string]any{"platform/id": g["platform/id"]}}
				if _, err := tx.Create("O/T", e); err != nil {
					return err
				}
			}
			return nil
		})
		by := func(desc bool, path ...string) []query.Order {
			return []query.Order{{Path: query.Path{Fields: path}, Desc: desc}}
		}
		for _, c := range []struct {
			name  string
			order []query.Order
			want  []int
		}{
			{"default order, equal creation dates", nil, []int{1, 2, 3, 4, 5, 6}},
			{"equal values", by(false, "O/s"), []int{1, 2, 3, 4, 5, 6}},
			{"ascending", by(false, "O/n"), []int{1, 3, 5, 2, 4, 6}},
			{"descending", by(true, "O/n"), []int{2, 4, 6, 1, 3, 5}},
			{"equal related entity", by(false, "O/group"), []int{1, 2, 3, 4, 5, 6}},
			{"equal value of a related entity", by(true, "O/group", "O/name"), []int{1, 2, 3, 4, 5, 6}},
		} {
			t.Run(c.name, func(t *testing.T) {
				var want []string
				for _, i := range c.want {
					want = append(want, `{"platform/id":"`+id(i)+`"}`)
				}
				full := run(t, st, &query.Query{From: "O/T", Select: sel("platform/id"), Order: c.order}, nil)
				if full != "["+strings.Join(want, ",")+"]" {
					t.Errorf("order:\n got %s\nwant [%s]", full, strings.Join(want, ","))
				}
				for off := 0; off < len(want); off += 2 {
					page := run(t, st, &query.Query{From: "O/T", Select: sel("platform/id"), Order: c.order, Limit: 2, Offset: off}, nil)
					if w := "[" + strings.Join(want[off:off+2], ",") + "]"; page != w {
						t.Errorf("page at offset %d: %s, want %s", off, page, w)
					}
				}
			})
		}
	})
}

// q/in and q/not-in with empty values in the list: an empty field is in a
// list holding null and never in one without it, so q/not-in matches it
// exactly when the list holds no null. Also through an entity field.
func TestInWithNulls(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		write(t, st, func(tx *store.Tx) error {
			if err := tx.CreateType(store.TypeSpec{Name: "N/T", Fields: []store.FieldSpec{{Name: "N/name", Type: store.TText}, {Name: "N/n", Type: store.TInt}}}); err != nil {
				return err
			}
			return tx.CreateField(store.FieldSpec{Holder: "N/T", Name: "N/other", Type: "N/T"})
		})
		var ids []any
		write(t, st, func(tx *store.Tx) error {
			for i, n := range []any{int64(1), int64(2), nil} {
				e := map[string]any{"N/name": fmt.Sprintf("e%d", i), "N/n": n}
				if i > 0 {
					e["N/other"] = map[string]any{"platform/id": ids[i-1]}
				}
				r, err := tx.Create("N/T", e)
				if err != nil {
					return err
				}
				ids = append(ids, r["platform/id"])
			}
			return nil
		})
		// e0: n 1, no other; e1: n 2, other e0; e2: no n, other e1.
		for _, c := range []struct {
			op    query.Op
			field string
			list  []any
			want  string
		}{
			{query.OpIn, "N/n", []any{int64(1)}, "e0"},
			{query.OpIn, "N/n", []any{int64(1), nil}, "e0 e2"},
			{query.OpIn, "N/n", []any{nil}, "e2"},
			{query.OpIn, "N/n", []any{}, ""},
			{query.OpNotIn, "N/n", []any{int64(1)}, "e1 e2"},
			{query.OpNotIn, "N/n", []any{int64(1), nil}, "e1"},
			{query.OpNotIn, "N/n", []any{nil}, "e0 e1"},
			{query.OpNotIn, "N/n", []any{}, "e0 e1 e2"},
			{query.OpNotIn, "N/n", []any{int64(1), int64(2)}, "e2"},
			{query.OpIn, "N/other", []any{ids[0], nil}, "e0 e1"},
			{query.OpNotIn, "N/other", []any{ids[0]}, "e0 e2"},
			{query.OpNotIn, "N/other", []any{ids[0], nil}, "e2"},
		} {
			q := &query.Query{From: "N/T", Select: sel("N/name"), Order: []query.Order{{Path: query.Path{Fields: []string{"N/name"}}}},
				Where: &query.Filter{Op: c.op, Path: query.Path{Fields: []string{c.field}}, Value: query.Value{IsParam: true, Param: "l"}}}
			var rows []map[string]string
			if err := json.Unmarshal([]byte(run(t, st, q, map[string]any{"l": c.list})), &rows); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rows {
				got = append(got, r["N/name"])
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("%s %s %v: %v, want %s", c.field, c.op, c.list, got, c.want)
			}
		}
	})
}

// A type related to itself (parent and sub-tasks).
func TestSelfRelation(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		rel := map[string]any{"platform/relation": "77777777-7777-7777-7777-777777777777"}
		write(t, st, func(tx *store.Tx) error {
			if err := tx.CreateType(store.TypeSpec{Name: "S/Task", Fields: []store.FieldSpec{{Name: "S/name", Type: store.TText}}}); err != nil {
				return err
			}
			if err := tx.CreateField(store.FieldSpec{Holder: "S/Task", Name: "S/parent", Type: "S/Task", Meta: rel}); err != nil {
				return err
			}
			return tx.CreateField(store.FieldSpec{Holder: "S/Task", Name: "S/subtasks", Type: "S/Task",
				Meta: map[string]any{"platform/relation": rel["platform/relation"], "platform/collection?": true}})
		})
		write(t, st, func(tx *store.Tx) error {
			root, err := tx.Create("S/Task", map[string]any{"S/name": "root"})
			if err != nil {
				return err
			}
			for _, n := range []string{"x", "y"} {
				if _, err := tx.Create("S/Task", map[string]any{"S/name": n, "S/parent": map[string]any{"platform/id": root["platform/id"]}}); err != nil {
					return err
				}
			}
			return nil
		})
		q := &query.Query{From: "S/Task", Select: []query.Select{
			{Kind: query.SelectField, Key: "S/name", Field: "S/name"},
			{Kind: query.SelectObject, Key: "S/parent", Field: "S/parent", Sub: sel("S/name")},
			{Kind: query.SelectCollection, Key: "S/subtasks", Field: "S/subtasks", Sub: sel("S/name"), Order: []query.Order{{Path: query.Path{Fields: []string{"S/name"}}}}}},
			Where: &query.Filter{Op: query.OpNe, Path: query.Path{Fields: []string{"S/parent", "S/name"}}, Value: query.Value{Literal: "nobody"}},
			Order: []query.Order{{Path: query.Path{Fields: []string{"S/name"}}}}}
		want := `[{"S/name":"root","S/parent":null,"S/subtasks":[{"S/name":"x"},{"S/name":"y"}]},` +
			`{"S/name":"x","S/parent":{"S/name":"root"},"S/subtasks":[]},{"S/name":"y","S/parent":{"S/name":"root"},"S/subtasks":[]}]`
		if got := run(t, st, q, nil); got != want {
			t.Errorf("self relation:\n got %s\nwant %s", got, want)
		}
	})
}

func TestCompileTooManyValues(t *testing.T) {
	t.Parallel()
	st := teststore.Open(t, "sqlite::memory:")
	write(t, st, func(tx *store.Tx) error {
		return tx.CreateType(store.TypeSpec{Name: "X/T", Fields: []store.FieldSpec{{Name: "X/n", Type: store.TInt}}})
	})
	cat := catalog(t, st)
	vals := make([]any, 10000)
	for i := range vals {
		vals[i] = int64(i)
	}
	in := func() *query.Filter {
		return &query.Filter{Op: query.OpIn, Path: query.Path{Fields: []string{"X/n"}}, Value: query.Value{Literal: vals}}
	}
	q := &query.Query{From: "X/T", Select: sel("X/n"), Where: &query.Filter{Op: query.OpOr, Sub: []*query.Filter{in(), in(), in(), in()}}}
	_, err := query.Compile(cat, st.Dialect(), q, nil)
	if e, ok := store.AsError(err); !ok || e.Name != store.NameInvalidParam {
		t.Errorf("40,000 values: %v", err)
	}
	q.Where.Sub = q.Where.Sub[:2]
	if _, err := query.Compile(cat, st.Dialect(), q, nil); err != nil {
		t.Errorf("20,000 values: %v", err)
	}
}

func TestUpsertAndExec(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		write(t, st, func(tx *store.Tx) error {
			return tx.CreateType(store.TypeSpec{Name: "U/T", Fields: []store.FieldSpec{{Name: "U/n", Type: store.TInt}}})
		})
		id := "12345678-1234-1234-1234-123456789abc"
		for i, wantCreated := range []bool{true, false} {
			write(t, st, func(tx *store.Tx) error {
				res, created, err := tx.Upsert("U/T", map[string]any{"platform/id": id, "U/n": int64(i)})
				if err != nil {
					return err
				}
				if created != wantCreated || res["U/n"] != int64(i) || res["platform/public-id"] != "1" {
					t.Errorf("upsert %d: %v created=%v", i, res, created)
				}
				return nil
			})
		}
		rows, err := query.Exec(context.Background(), st, &query.Query{From: "U/T", Select: sel("U/n")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(rows); string(b) != `[{"U/n":1}]` {
			t.Errorf("rows = %s", b)
		}
	})
}

// A contains parameter with a NUL or invalid UTF-8 is refused by name on
// both engines, before it reaches the database.
func TestContainsRefusesBadText(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		write(t, st, func(tx *store.Tx) error {
			return tx.CreateType(store.TypeSpec{Name: "C/T", Fields: []store.FieldSpec{{Name: "C/name", Type: store.TText}}})
		})
		cat := catalog(t, st)
		for _, op := range []query.Op{query.OpContains, query.OpNotContains} {
			for _, bad := range []string{"a\x00b", "\xff"} {
				q := &query.Query{From: "C/T", Select: sel("C/name"),
					Where: &query.Filter{Op: op, Path: query.Path{Fields: []string{"C/name"}}, Value: query.Value{IsParam: true, Param: "s"}}}
				_, err := query.Compile(cat, st.Dialect(), q, map[string]any{"s": bad})
				var se *store.Error
				if !errors.As(err, &se) || se.Name != store.NameInvalidParam {
					t.Errorf("%s %q: err = %v, want %s", op, bad, err, store.NameInvalidParam)
				}
			}
			q := &query.Query{From: "C/T", Select: sel("C/name"),
				Where: &query.Filter{Op: op, Path: query.Path{Fields: []string{"C/name"}}, Value: query.Value{IsParam: true, Param: "s"}}}
			if out := run(t, st, q, map[string]any{"s": "fine"}); out == "" {
				t.Errorf("%s of a good string failed", op)
			}
		}
	})
}
