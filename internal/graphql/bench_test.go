package graphql

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/apitest"
	"github.com/appkitgo/appkit/internal/commands"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// benchData creates 20 projects and 2000 tasks (points 0..9) in space "b".
func benchData(b *testing.B, st *store.Store) {
	b.Helper()
	rel := "33333333-3333-3333-3333-333333333333"
	if err := st.WriteSchema(context.Background(), func(tx *store.Tx) error {
		if err := tx.CreateType(store.TypeSpec{Name: "b/project", Meta: map[string]any{"ui/label": "Projects"}, Fields: []store.FieldSpec{{Name: "b.project/name", Type: store.TText, Meta: map[string]any{"ui/label": "Name"}}}}); err != nil {
			return err
		}
		if err := tx.CreateType(store.TypeSpec{Name: "b/task", Meta: map[string]any{"ui/label": "Tasks"}, Fields: []store.FieldSpec{
			{Name: "b.task/name", Type: store.TText, Meta: map[string]any{"ui/label": "Name"}},
			{Name: "b.task/points", Type: store.TInt, Meta: map[string]any{"ui/label": "Points"}}}}); err != nil {
			return err
		}
		if err := tx.CreateField(store.FieldSpec{Holder: "b/task", Name: "b.task/project", Type: "b/project", Meta: map[string]any{"ui/label": "Project", "platform/relation": rel}}); err != nil {
			return err
		}
		return tx.CreateField(store.FieldSpec{Holder: "b/project", Name: "b.project/tasks", Type: "b/task", Meta: map[string]any{"ui/label": "Tasks", "platform/relation": rel, "platform/collection?": true}})
	}); err != nil {
		b.Fatal(err)
	}
	write(b, st, func(tx *store.Tx) error {
		var projects []string
		for i := 0; i < 20; i++ {
			p, err := tx.Create("b/project", map[string]any{"b.project/name": fmt.Sprintf("project %02d", i)})
			if err != nil {
				return err
			}
			projects = append(projects, p["platform/id"].(string))
		}
		for i := 0; i < 2000; i++ {
			if _, err := tx.Create("b/task", map[string]any{"b.task/name": fmt.Sprintf("task %04d", i), "b.task/points": int64(i % 10),
				"b.task/project": map[string]any{"platform/id": projects[i%20]}}); err != nil {
				return err
			}
		}
		return nil
	})
}

// The same read through both APIs: 1000 tasks with points >= 5 (of 2000),
// ordered by name descending, with their id, name, points and their
// project's name. Each side decodes its request body, runs, and encodes its
// answer, as over HTTP (without the network).
const (
	benchGraphQL  = `{"query": "{ findTasks(points: {greaterOrEquals: 5}, orderBy: {name: DESC}, limit: 1000) { id name points project { name } } }"}`
	benchCommands = `[{"command":"platform.entity/query","args":{"query":{"q/from":"b/task","q/where":[">=",["b.task/points"],"$min"],"q/order-by":[[["b.task/name"],"q/desc"]],"q/limit":1000,
 "q/select":["platform/id","b.task/name","b.task/points",{"b.task/project":["b.project/name"]}]},"params":{"$min":5}}}]`
)

// BenchmarkFind compares a GraphQL find of 1000 rows with the equivalent
// command-API query on the same data, alternating them in one run, and
// reports the ratio of their times (graphql/commands; the target is at most
// 1.3).
func BenchmarkFind(b *testing.B) {
	for name, dsn := range testkit.StoreDSNs(b) {
		st := teststore.Open(b, dsn)
		benchData(b, st)
		b.Run(name, func(b *testing.B) {
			svc := mustNew(b, Config{Store: st})
			api := commands.New(st)
			gql := func() int {
				req, err := svc.DecodeRequest(strings.NewReader(benchGraphQL))
				if err != nil {
					b.Fatal(err)
				}
				resp, err := svc.Execute(context.Background(), "b", Viewer{Email: "x@y"}, req)
				if err != nil || len(resp.Errors) > 0 {
					b.Fatalf("graphql: %v %v", err, resp.Errors)
				}
				out, err := resp.MarshalJSON()
				if err != nil {
					b.Fatal(err)
				}
				return len(out)
			}
			cmd := func() int {
				rec := httptest.NewRecorder()
				api.ServeHTTP(rec, httptest.NewRequest("POST", "/api/commands", bytes.NewReader([]byte(benchCommands))))
				if rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), `[{"success":true`) {
					b.Fatalf("commands: %d %.300s", rec.Code, rec.Body.String())
				}
				return rec.Body.Len()
			}
			if g, c := gql(), cmd(); g < 50000 || c < 50000 {
				b.Fatalf("answers too small for 1000 rows: graphql %d bytes, commands %d bytes", g, c)
			}
			tg, tc := apitest.Interleave(b, func() { gql() }, func() { cmd() })
			b.StopTimer()
			b.ReportMetric(float64(tg.Microseconds())/float64(b.N), "graphql-µs/op")
			b.ReportMetric(float64(tc.Microseconds())/float64(b.N), "commands-µs/op")
			b.ReportMetric(float64(tg)/float64(tc), "graphql/commands")
		})
	}
}
