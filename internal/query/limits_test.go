package query_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// limitsFixture creates projects owning tasks (a to-one P/project and its
// partner collection P/tasks) and tags in a lone collection of tasks:
// project "p<i>" has perProject tasks, each task two tags.
func limitsFixture(t *testing.T, st *store.Store, projects, perProject int) {
	t.Helper()
	rel := "99999999-9999-9999-9999-999999999999"
	write(t, st, func(tx *store.Tx) error {
		if err := createTypes(tx, []store.FieldSpec{{Name: "P/name", Type: store.TText}}, "P/Project", "P/Task", "P/Tag"); err != nil {
			return err
		}
		if err := tx.CreateField(store.FieldSpec{Holder: "P/Task", Name: "P/project", Type: "P/Project", Meta: map[string]any{"platform/relation": rel}}); err != nil {
			return err
		}
		if err := tx.CreateField(store.FieldSpec{Holder: "P/Project", Name: "P/tasks", Type: "P/Task", Meta: map[string]any{"platform/relation": rel, "platform/collection?": true}}); err != nil {
			return err
		}
		return tx.CreateField(store.FieldSpec{Holder: "P/Task", Name: "P/tags", Type: "P/Tag", Meta: map[string]any{"platform/collection?": true}})
	})
	write(t, st, func(tx *store.Tx) error {
		var tags []any
		for i := 0; i < 2; i++ {
			tag, err := tx.Create("P/Tag", map[string]any{"P/name": fmt.Sprintf("tag%d", i)})
			if err != nil {
				return err
			}
			tags = append(tags, tag)
		}
		for p := 0; p < projects; p++ {
			proj, err := tx.Create("P/Project", map[string]any{"P/name": fmt.Sprintf("p%d", p)})
			if err != nil {
				return err
			}
			for i := 0; i < perProject; i++ {
				task, err := tx.Create("P/Task", map[string]any{"P/name": fmt.Sprintf("p%d-t%02d", p, i), "P/project": map[string]any{"platform/id": proj["platform/id"]}})
				if err != nil {
					return err
				}
				if err := tx.CollectionItems("P/Task", "P/tags", task, tags, true); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// backAndForth selects a project's tasks, each task's project, that
// project's tasks again, depth times: the shape whose result multiplies.
func backAndForth(depth int) []query.Select {
	s := sel("P/name")
	for i := 0; i < depth; i++ {
		s = []query.Select{{Kind: query.SelectField, Key: "P/name", Field: "P/name"},
			{Kind: query.SelectCollection, Key: "P/tasks", Field: "P/tasks", Sub: []query.Select{
				{Kind: query.SelectField, Key: "P/name", Field: "P/name"},
				{Kind: query.SelectObject, Key: "P/project", Field: "P/project", Sub: s}}}}
	}
	return s
}

// objects counts a result's rows plus its collection items at every depth.
func objects(v any) int {
	n := 0
	switch x := v.(type) {
	case []map[string]any:
		for _, m := range x {
			n += 1 + objects(m)
		}
	case []any:
		for _, e := range x {
			n += 1 + objects(e)
		}
	case map[string]any:
		for _, e := range x {
			switch e.(type) {
			case []any:
				n += objects(e)
			case map[string]any:
				n += objects(e)
			}
		}
	}
	return n
}

// recorder records the statements a plan runs.
type recorder struct {
	db  store.Querier
	sql []string
}

func (r *recorder) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	r.sql = append(r.sql, q)
	return r.db.QueryContext(ctx, q, args...)
}

func tooLarge(t *testing.T, err error, key string, max int) {
	t.Helper()
	e, ok := store.AsError(err)
	if !ok || e.Name != query.NameTooLarge {
		t.Fatalf("want %s, got %v", query.NameTooLarge, err)
	}
	if e.Data[key] != max {
		t.Errorf("data = %v, want %s %d", e.Data, key, max)
	}
}

// The count statement counts exactly the objects the result holds, for
// every kind of select and filter.
func TestCountMatchesResult(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		limitsFixture(t, st, 3, 4)
		name := func(op query.Op, v string) *query.Filter {
			return &query.Filter{Op: op, Path: query.Path{Fields: []string{"P/name"}}, Value: query.Value{Literal: v}}
		}
		tasksWithTags := []query.Select{{Kind: query.SelectField, Key: "P/name", Field: "P/name"},
			{Kind: query.SelectCollection, Key: "P/tags", Field: "P/tags", Sub: sel("P/name"), Where: name(query.OpNe, "tag1")}}
		for _, c := range []struct {
			name string
			q    *query.Query
			want int
		}{
			{"back and forth 2", &query.Query{From: "P/Project", Select: backAndForth(2)}, 3 + 12 + 48},
			{"back and forth 3, limit 1", &query.Query{From: "P/Project", Select: backAndForth(3), Limit: 1}, 1 + 4 + 16 + 64},
			{"offset, no limit", &query.Query{From: "P/Project", Select: backAndForth(2), NoLimit: true, Offset: 2}, 1 + 4 + 16},
			{"filtered rows and items", &query.Query{From: "P/Project", Where: name(query.OpNe, "p0"),
				Select: []query.Select{{Kind: query.SelectCollection, Key: "P/tasks", Field: "P/tasks", Sub: tasksWithTags, Where: name(query.OpContains, "t0")}}}, 2 + 2*4 + 2*4*1},
			{"limited items", &query.Query{From: "P/Project",
				Select: []query.Select{{Kind: query.SelectCollection, Key: "P/tasks", Field: "P/tasks", Sub: tasksWithTags, Limit: 3}}}, 3 + 9 + 9},
			{"ids of a collection in a collection", &query.Query{From: "P/Project",
				Select: []query.Select{{Kind: query.SelectCollection, Key: "P/tasks", Field: "P/tasks", Sub: sel("P/tags")}}}, 3 + 12 + 24},
			{"collection through a to-one", &query.Query{From: "P/Task", Limit: 5,
				Select: []query.Select{{Kind: query.SelectObject, Key: "P/project", Field: "P/project", Sub: backAndForth(1)}}}, 5 + 5*4 + 0},
		} {
			t.Run(c.name, func(t *testing.T) {
				plan := compile(t, st, c.q, nil)
				rows, err := plan.Run(context.Background(), st.DB())
				if err != nil {
					t.Fatal(err)
				}
				if got := objects(rows); got != c.want {
					t.Errorf("result holds %d objects, want %d", got, c.want)
				}
				if plan.CountSQL == "" {
					if c.name != "collection through a to-one" {
						t.Fatalf("no count statement for collections in collections")
					}
					return
				}
				var n int64
				if err := st.DB().QueryRowContext(context.Background(), plan.CountSQL, plan.CountArgs...).Scan(&n); err != nil {
					t.Fatalf("count: %v\n%s", err, plan.CountSQL)
				}
				if int(n) != c.want {
					t.Errorf("count = %d, want %d", n, c.want)
				}
			})
		}
	})
}

// A result is bounded in rows (rows plus collection items) and bytes, at
// the bound and one past it, whether or not collections nest.
func TestResultBounds(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		limitsFixture(t, st, 3, 4)
		cat, err := st.Catalog(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name   string
			q      *query.Query
			rows   int
			counts bool // refused by the count statement, before the result is built
		}{
			{"rows only", &query.Query{From: "P/Task", Select: sel("P/name")}, 12, false},
			{"one level of collections", &query.Query{From: "P/Project", Select: backAndForth(1)}, 3 + 12, false},
			{"collections in collections", &query.Query{From: "P/Project", Select: backAndForth(2)}, 3 + 12 + 48, true},
		} {
			t.Run(c.name, func(t *testing.T) {
				plan, err := query.Compile(cat, st.Dialect(), c.q, nil)
				if err != nil {
					t.Fatal(err)
				}
				if plan.MaxRows != query.MaxResultRows || plan.MaxBytes != query.MaxResultBytes {
					t.Errorf("bounds %d rows %d bytes, want the defaults", plan.MaxRows, plan.MaxBytes)
				}
				if (plan.CountSQL != "") != c.counts {
					t.Fatalf("count statement: %q", plan.CountSQL)
				}
				all, err := plan.Run(context.Background(), st.DB())
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(all)
				size := len(b)
				if _, n, err := plan.RunSized(context.Background(), st.DB()); err != nil || n != size || query.EncodedSize(all) != size {
					t.Errorf("RunSized: %d bytes (%v), EncodedSize %d, encoding/json %d", n, err, query.EncodedSize(all), size)
				}

				// Rows: at the bound, and one past it.
				plan.MaxRows = c.rows
				if _, err := plan.Run(context.Background(), st.DB()); err != nil {
					t.Errorf("%d rows at the bound: %v", c.rows, err)
				}
				plan.MaxRows = c.rows - 1
				rec := &recorder{db: st.DB()}
				_, err = plan.Run(context.Background(), rec)
				tooLarge(t, err, "max-rows", c.rows-1)
				if c.counts && (len(rec.sql) == 0 || rec.sql[len(rec.sql)-1] != plan.CountSQL || slices.Contains(rec.sql, plan.SQL)) {
					t.Errorf("refused after running %d statements, want the counts only", len(rec.sql))
				}
				plan.MaxRows = 0

				// Bytes: the JSON size of the result, and one byte less.
				plan.MaxBytes = size
				if _, err := plan.Run(context.Background(), st.DB()); err != nil {
					t.Errorf("%d bytes at the bound: %v", size, err)
				}
				plan.MaxBytes = size - 1
				_, err = plan.Run(context.Background(), st.DB())
				tooLarge(t, err, "max-bytes", size-1)
			})
		}
	})
}

// The shape that answered hundreds of megabytes (a project's tasks, their
// project, its tasks, four levels deep) is refused by the default bound
// before the database builds it: over 18 tasks it holds 111,151 objects.
// Two levels fit.
func TestBackAndForthRefused(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		limitsFixture(t, st, 1, 18)
		plan := compile(t, st, &query.Query{From: "P/Project", Select: backAndForth(4)}, nil)
		rec := &recorder{db: st.DB()}
		_, err := plan.Run(context.Background(), rec)
		tooLarge(t, err, "max-rows", query.MaxResultRows)
		if slices.Contains(rec.sql, plan.SQL) {
			t.Errorf("the query ran: %d statements, want the counts only", len(rec.sql))
		}
		// Counting goes one level of collections at a time and stops at the
		// first level past the bound: 1 + 18 objects fit in 100, the next
		// level's 343 do not, and the deeper levels' statements (the full
		// product) never run.
		plan.MaxRows = 100
		rec = &recorder{db: st.DB()}
		_, err = plan.Run(context.Background(), rec)
		tooLarge(t, err, "max-rows", 100)
		if len(rec.sql) != 2 || slices.Contains(rec.sql, plan.CountSQL) {
			t.Errorf("refused after %d statements, want the first two levels' counts", len(rec.sql))
		}
		got := run(t, st, &query.Query{From: "P/Project", Select: backAndForth(2)}, nil)
		if n := strings.Count(got, `"P/project"`); n != 18+18*18 {
			t.Errorf("two levels: %d projects in the result", n)
		}
	})
}
