package query_test

import (
	"context"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// Filters through collections compile to sub-queries that do not depend on
// the row tested, so the database evaluates each once per statement: a
// correlated EXISTS through n collections costs the product of their sizes
// (a filter through three relation hops ran for the whole request timeout).
// SQLite's query plan names correlated sub-queries; none is left. The
// answers keep EXISTS's meaning, for entities whose to-one path leads
// nowhere too.
func TestFiltersThroughCollectionsAreUncorrelated(t *testing.T) {
	t.Parallel()
	st := teststore.Open(t, "sqlite::memory:")
	limitsFixture(t, st, 2, 3)
	write(t, st, func(tx *store.Tx) error {
		_, err := tx.Create("P/Task", map[string]any{"P/name": "orphan"})
		return err
	})
	cat := catalog(t, st)
	name := func(op query.Op, v string) *query.Filter {
		return &query.Filter{Op: op, Path: query.Path{Fields: []string{"P/name"}}, Value: query.Value{Literal: v}}
	}
	through := func(op query.Op, sub *query.Filter) *query.Filter {
		return &query.Filter{Op: op, Path: query.Path{Fields: []string{"P/project", "P/tasks"}}, Sub: []*query.Filter{sub}}
	}
	path := func(op query.Op, v string) *query.Filter {
		return &query.Filter{Op: op, Path: query.Path{Fields: []string{"P/project", "P/tasks", "P/tags", "P/name"}}, Value: query.Value{Literal: v}}
	}
	for _, c := range []struct {
		name  string
		where *query.Filter
		want  int // tasks matched, of 2 × 3 and the orphan
	}{
		{"some, two hops", through(query.OpSome, through(query.OpSome, name(query.OpEq, "p1-t02"))), 3},
		{"none, two hops", through(query.OpNone, through(query.OpSome, name(query.OpEq, "p1-t02"))), 4},
		{"none of nothing", through(query.OpNone, name(query.OpEq, "nothing")), 7},
		{"path through collections", path(query.OpEq, "tag1"), 6},
		{"negated path", path(query.OpNe, "tag1"), 1},
		{"empty collection", &query.Filter{Op: query.OpIsNull, Path: query.Path{Fields: []string{"P/project", "P/tasks"}}}, 1},
	} {
		plan, err := query.Compile(cat, st.Dialect(), &query.Query{From: "P/Task", Select: sel("P/name"), Where: c.where, NoLimit: true}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rows, err := plan.Run(context.Background(), st.DB())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(rows) != c.want {
			t.Errorf("%s: %d tasks, want %d", c.name, len(rows), c.want)
		}
		var steps []string
		for _, s := range queryPlan(t, st, plan.SQL, plan.Args) {
			steps = append(steps, s.detail)
		}
		if plan := strings.Join(steps, "\n"); strings.Contains(plan, "CORRELATED") {
			t.Errorf("%s: a correlated sub-query:\n%s", c.name, plan)
		}
	}
}

// Compile refuses select lists nested deeper than MaxSelectDepth and
// conditions reaching further than MaxPathFields, and accepts them at the
// bounds, before anything runs.
func TestShapeBounds(t *testing.T) {
	t.Parallel()
	st := teststore.Open(t, "sqlite::memory:")
	limitsFixture(t, st, 1, 1)
	cat := catalog(t, st)
	// nested: a task's project and that project's tasks, to depth lists
	// below the top one.
	nested := func(depth int) []query.Select {
		s := sel("P/name")
		for i := 0; i < depth; i++ {
			if i%2 == 0 {
				s = []query.Select{{Kind: query.SelectCollection, Key: "t", Field: "P/tasks", Sub: s}}
			} else {
				s = []query.Select{{Kind: query.SelectObject, Key: "p", Field: "P/project", Sub: s}}
			}
		}
		return s
	}
	// reaching: a condition through q/some nesting reaching n fields.
	reaching := func(n int) *query.Filter {
		f := &query.Filter{Op: query.OpEq, Path: query.Path{Fields: []string{"P/name"}}, Value: query.Value{Literal: "x"}}
		if n--; n%2 == 1 {
			f = &query.Filter{Op: query.OpSome, Path: query.Path{Fields: []string{"P/tags"}}, Sub: []*query.Filter{f}}
			n--
		}
		for ; n >= 2; n -= 2 {
			f = &query.Filter{Op: query.OpSome, Path: query.Path{Fields: []string{"P/project", "P/tasks"}}, Sub: []*query.Filter{f}}
		}
		return &query.Filter{Op: query.OpAnd, Sub: []*query.Filter{f}}
	}
	from := func(depth int) string {
		if depth%2 == 1 {
			return "P/Project"
		}
		return "P/Task"
	}
	for _, c := range []struct {
		name string
		q    *query.Query
		want string
	}{
		{"select at the bound", &query.Query{From: from(query.MaxSelectDepth), Select: nested(query.MaxSelectDepth)}, ""},
		{"select past the bound", &query.Query{From: from(query.MaxSelectDepth + 1), Select: nested(query.MaxSelectDepth + 1)}, "select nested deeper than 8"},
		{"filter at the bound", &query.Query{From: "P/Task", Select: sel("P/name"), Where: reaching(query.MaxPathFields)}, ""},
		{"filter past the bound", &query.Query{From: "P/Task", Select: sel("P/name"), Where: reaching(query.MaxPathFields + 1)}, "a filter reaches 9 fields deep through relations; at most 8"},
		{"an inner list's filter past the bound", &query.Query{From: "P/Project", Select: []query.Select{{Kind: query.SelectCollection, Key: "t", Field: "P/tasks", Sub: sel("P/name"), Where: reaching(query.MaxPathFields + 1)}}},
			"a filter reaches 9 fields deep through relations; at most 8"},
	} {
		_, err := query.Compile(cat, st.Dialect(), c.q, nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// A limited collection picks and sorts its items first and builds the
// objects of the picked ones only: in SQLite's plan, no sub-query building
// an item's object (a correlated sub-query) runs inside the sorted
// derived table, where it would run for every item before the limit (a
// selection of limited lists nested six deep ran for the whole timeout).
func TestLimitedCollectionsBuildPickedItemsOnly(t *testing.T) {
	t.Parallel()
	st := teststore.Open(t, "sqlite::memory:")
	limitsFixture(t, st, 2, 3)
	s := sel("P/name")
	for range 3 {
		s = []query.Select{{Kind: query.SelectCollection, Key: "t", Field: "P/tasks", Limit: 2, Sub: []query.Select{
			{Kind: query.SelectField, Key: "n", Field: "P/name"}, {Kind: query.SelectObject, Key: "p", Field: "P/project", Sub: s}}}}
	}
	plan := compile(t, st, &query.Query{From: "P/Project", Select: s}, nil)
	if got := run(t, st, &query.Query{From: "P/Project", Select: s}, nil); strings.Count(got, `"P/name"`) != 2*2*2*2 {
		t.Errorf("result: %s", got)
	}
	if plan.CountSQL == "" {
		t.Fatal("no count statement for limited collections in collections")
	}
	builtAfterSort(t, st, "the query", plan.SQL, plan.Args)
	builtAfterSort(t, st, "the count", plan.CountSQL, plan.CountArgs)
}

// builtAfterSort checks SQLite's plan of a statement: no correlated
// sub-query below a derived table that sorts its rows.
func builtAfterSort(t *testing.T, st *store.Store, what, sqlText string, args []any) {
	t.Helper()
	detail := map[int]string{}
	children := map[int][]int{}
	for _, s := range queryPlan(t, st, sqlText, args) {
		detail[s.id] = s.detail
		children[s.parent] = append(children[s.parent], s.id)
	}
	var inside func(id int) bool // a correlated sub-query at or below id
	inside = func(id int) bool {
		if strings.HasPrefix(detail[id], "CORRELATED") {
			return true
		}
		for _, c := range children[id] {
			if inside(c) {
				return true
			}
		}
		return false
	}
	var sorts func(id int) bool // a derived table sorting its rows (in its own co-routines too)
	sorts = func(id int) bool {
		for _, c := range children[id] {
			if detail[c] == "USE TEMP B-TREE FOR ORDER BY" || strings.HasPrefix(detail[c], "CO-ROUTINE") && sorts(c) {
				return true
			}
		}
		return false
	}
	sorted := 0
	for id, d := range detail {
		if !strings.HasPrefix(d, "CO-ROUTINE") {
			continue
		}
		if !sorts(id) {
			continue
		}
		sorted++
		for _, c := range children[id] {
			if inside(c) {
				t.Errorf("%s: objects built inside the sorted items (%s):\n%v", what, d, detail)
			}
		}
	}
	if sorted == 0 {
		t.Fatalf("%s: no sorted derived table in the plan: %v", what, detail)
	}
}

// planStep is one step of SQLite's query plan.
type planStep struct {
	id, parent int
	detail     string
}

// queryPlan returns SQLite's plan of sqlText with args (EXPLAIN QUERY
// PLAN), failing the test on an error.
func queryPlan(t *testing.T, st *store.Store, sqlText string, args []any) []planStep {
	t.Helper()
	rows, err := st.DB().QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+sqlText, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var steps []planStep
	for rows.Next() {
		var s planStep
		var unused int
		if err := rows.Scan(&s.id, &s.parent, &unused, &s.detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return steps
}
