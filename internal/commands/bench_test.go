package commands

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/apitest"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
	"github.com/google/uuid"
)

// benchRows is the data size: APPKIT_BENCH_ROWS, else def (small under -short).
func benchRows(def, short int) int {
	if s := os.Getenv("APPKIT_BENCH_ROWS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if testing.Short() {
		return short
	}
	return def
}

const benchSchema = `[{"command":"platform.schema/batch","args":{"commands":[
 {"command":"schema.type/create","args":{"platform/name":"B/Project","platform/fields":[{"platform/name":"B/name","platform/type":"platform/text"}]}},
 {"command":"schema.type/create","args":{"platform/name":"B/Task","platform/fields":[{"platform/name":"B/name","platform/type":"platform/text"},{"platform/name":"B/points","platform/type":"platform/int"}]}},
 {"command":"schema.field/create","args":{"platform/holder-type":"B/Task","platform/name":"B/project","platform/type":"B/Project","platform/meta":{"platform/relation":"33333333-3333-3333-3333-333333333333"}}},
 {"command":"schema.field/create","args":{"platform/holder-type":"B/Project","platform/name":"B/tasks","platform/type":"B/Task","platform/meta":{"platform/relation":"33333333-3333-3333-3333-333333333333","platform/collection?":true}}}]}}]`

type benchTables struct {
	project, task                     string
	projectName, taskName, points, fk string
}

func benchSetup(b *testing.B, dsn string) (*API, *store.Store, benchTables) {
	b.Helper()
	ctx := context.Background()
	st := teststore.Open(b, dsn)
	api := New(st)
	res, err := api.Execute(ctx, []byte(benchSchema))
	if err != nil || !res[0].Success {
		b.Fatalf("schema: %v %v", err, res)
	}
	cat, _ := st.Catalog(ctx)
	p, t := cat.Type("B/Project"), cat.Type("B/Task")
	return api, st, benchTables{
		project: p.Table, task: t.Table,
		projectName: p.Field("B/name").Col, taskName: t.Field("B/name").Col,
		points: t.Field("B/points").Col, fk: t.Field("B/project").Col,
	}
}

func benchUUID(prefix, i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", prefix, i) }

// fill inserts rows with multi-row INSERTs (setup only, not measured).
func fill(b *testing.B, st *store.Store, table string, cols []string, n int, row func(i int) []any) {
	b.Helper()
	ctx := context.Background()
	const chunk = 500
	for start := 0; start < n; start += 20 * chunk {
		tx, err := st.DB().BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for s := start; s < n && s < start+20*chunk; s += chunk {
			var q strings.Builder
			q.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
			var args []any
			for i := s; i < n && i < s+chunk; i++ {
				if i > s {
					q.WriteString(", ")
				}
				q.WriteString("(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")")
				args = append(args, row(i)...)
			}
			if _, err := tx.ExecContext(ctx, st.Dialect().Rebind(q.String()), args...); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchDSNs gives, per backend, a function returning a fresh store DSN: a
// SQLite file (as deployed: WAL, several connections) and, when
// APPKIT_TEST_POSTGRES is set, a fresh PostgreSQL schema.
func benchDSNs() map[string]func(b *testing.B) string {
	out := map[string]func(b *testing.B) string{
		"sqlite": func(b *testing.B) string { return "sqlite:" + b.TempDir() + "/bench.db" },
	}
	if os.Getenv("APPKIT_TEST_POSTGRES") != "" {
		out["postgres"] = func(b *testing.B) string { return testkit.StoreDSNs(b)["postgres"] }
	}
	return out
}

// BenchmarkQuery: a filtered, relation-crossing, ordered, limited query
// through the command API against the equivalent hand-written SQL on the same
// database. ratio = command time / SQL time (target <= 1.5).
func BenchmarkQuery(b *testing.B) {
	n := benchRows(1_000_000, 50_000)
	for name, dsn := range benchDSNs() {
		b.Run(fmt.Sprintf("%s/rows=%d", name, n), func(b *testing.B) {
			api, st, tb := benchSetup(b, dsn(b))
			const projects = 1000
			now := time.Now().UnixMilli()
			fill(b, st, tb.project, []string{"id", "public_id", "created", "modified", tb.projectName}, projects, func(i int) []any {
				return []any{benchUUID(1, i), strconv.Itoa(i + 1), now + int64(i), now, "P" + strconv.Itoa(i)}
			})
			fill(b, st, tb.task, []string{"id", "public_id", "created", "modified", tb.taskName, tb.points, tb.fk}, n, func(i int) []any {
				return []any{benchUUID(2, i), strconv.Itoa(i + 1), now + int64(i), now, "task " + strconv.Itoa(i), int64(i/projects*37) % 1000, benchUUID(1, i%projects)}
			})
			if _, err := st.DB().Exec("ANALYZE"); err != nil {
				b.Fatal(err)
			}
			body := []byte(`[{"command":"platform.entity/query","args":{"query":{"q/from":"B/Task",
				"q/select":["B/name","B/points",{"B/project":["B/name"]}],
				"q/where":["q/and",[">=",["B/points"],"$min"],["=",["B/project","B/name"],"$p"]],
				"q/order-by":[[["B/points"],"q/desc"]],"q/limit":50},"params":{"$min":500,"$p":"P7"}}}]`)
			hand := st.Dialect().Rebind(fmt.Sprintf(`SELECT t.%s, t.%s, p.id, p.%s FROM %s t LEFT JOIN %s p ON p.id = t.%s
				WHERE t.%s >= ? AND p.%s = ? ORDER BY t.%s DESC NULLS LAST, t.id ASC LIMIT 50`,
				tb.taskName, tb.points, tb.projectName, tb.task, tb.project, tb.fk, tb.points, tb.projectName, tb.points))
			ctx := context.Background()
			type row struct {
				name     string
				points   int64
				pid, pnm *string
			}
			runHand := func() int {
				rows, err := st.DB().QueryContext(ctx, hand, 500, "P7")
				if err != nil {
					b.Fatal(err)
				}
				var out []row
				for rows.Next() {
					var r row
					if err := rows.Scan(&r.name, &r.points, &r.pid, &r.pnm); err != nil {
						b.Fatal(err)
					}
					out = append(out, r)
				}
				rows.Close()
				return len(out)
			}
			runAPI := func() int {
				res, err := api.Execute(ctx, body)
				if err != nil || !res[0].Success {
					b.Fatalf("query: %v %v", err, res)
				}
				return len(res[0].Result.([]map[string]any))
			}
			if a, h := runAPI(), runHand(); a != h || a == 0 {
				b.Fatalf("api returned %d rows, SQL %d", a, h)
			}
			b.ReportAllocs()
			tSQL, tAPI := apitest.Interleave(b, func() { runHand() }, func() { runAPI() })
			b.ReportMetric(float64(tAPI)/float64(tSQL), "ratio")
			b.ReportMetric(float64(tAPI.Microseconds())/float64(b.N), "api-µs/op")
			b.ReportMetric(float64(tSQL.Microseconds())/float64(b.N), "sql-µs/op")
		})
	}
}

// BenchmarkCreate: entities created through command batches (1,000 creates
// per platform.command/batch, response encoded) against raw prepared INSERTs
// (1,000 per transaction, random uuid ids like the store's) on the same
// database, batches alternating so both insert into tables of the same size. ratio = command rate / raw
// rate (target >= 0.5).
func BenchmarkCreate(b *testing.B) {
	n := benchRows(100_000, 10_000)
	const batch = 1000
	for name, dsn := range benchDSNs() {
		b.Run(fmt.Sprintf("%s/rows=%d", name, n), func(b *testing.B) {
			api, st, tb := benchSetup(b, dsn(b))
			ctx := context.Background()
			ins := st.Dialect().Rebind(fmt.Sprintf("INSERT INTO %s (id, public_id, created, modified, %s, %s) VALUES (?, ?, ?, ?, ?, ?)", tb.task, tb.taskName, tb.points))
			seq := 0
			rawBatch := func(s int) {
				tx, err := st.DB().BeginTx(ctx, nil)
				if err != nil {
					b.Fatal(err)
				}
				stmt, err := tx.PrepareContext(ctx, ins)
				if err != nil {
					b.Fatal(err)
				}
				now := time.Now().UnixMilli()
				for i := s; i < s+batch && i < n; i++ {
					seq++
					if _, err := stmt.ExecContext(ctx, uuid.NewString(), strconv.Itoa(seq), now, now, "raw "+strconv.Itoa(i), int64(i%100)); err != nil {
						b.Fatal(err)
					}
				}
				stmt.Close()
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			cmdBatch := func(s int) {
				var body strings.Builder
				body.WriteString(`[{"command":"platform.command/batch","args":{"commands":[`)
				for i := s; i < s+batch && i < n; i++ {
					if i > s {
						body.WriteString(",")
					}
					fmt.Fprintf(&body, `{"command":"platform.entity/create","args":{"type":"B/Task","entity":{"B/name":"cmd %d","B/points":%d}}}`, i, i%100)
				}
				body.WriteString(`]}}]`)
				res, err := api.Execute(ctx, []byte(body.String()))
				if err != nil || !res[0].Success {
					b.Fatalf("create: %v %v", err, res[0])
				}
				if _, err := EncodeResults(res); err != nil {
					b.Fatal(err)
				}
			}
			// Alternate batches so both sides insert into tables of the same size.
			var tRaw, tCmd time.Duration
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				for s := 0; s < n; s += batch {
					t0 := time.Now()
					rawBatch(s)
					t1 := time.Now()
					cmdBatch(s)
					tCmd += time.Since(t1)
					tRaw += t1.Sub(t0)
				}
			}
			b.ReportMetric(float64(tRaw)/float64(tCmd), "ratio")
			b.ReportMetric(float64(n*b.N)/tCmd.Seconds(), "cmd-entities/s")
			b.ReportMetric(float64(n*b.N)/tRaw.Seconds(), "raw-entities/s")
		})
	}
}

// BenchmarkSchemaQuery: platform.schema/query (answer encoded) on a schema of
// 40 types of 20 fields, against what it cost before the answer was cached
// per catalog snapshot (check the catalog, build the schema value, encode
// it). speedup = rebuild time / command time.
func BenchmarkSchemaQuery(b *testing.B) {
	for name, dsn := range benchDSNs() {
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			st := teststore.Open(b, dsn(b))
			api := New(st)
			var body strings.Builder
			body.WriteString(`[{"command":"platform.schema/batch","args":{"commands":[`)
			for i := range 40 {
				if i > 0 {
					body.WriteString(",")
				}
				fmt.Fprintf(&body, `{"command":"schema.type/create","args":{"platform/name":"S/T%d","platform/fields":[`, i)
				for j := range 20 {
					if j > 0 {
						body.WriteString(",")
					}
					fmt.Fprintf(&body, `{"platform/name":"S/f%d","platform/type":"platform/text","platform/meta":{"ui/title?":%v}}`, j, j == 0)
				}
				body.WriteString(`]}}`)
			}
			body.WriteString(`]}}]`)
			if res, err := api.Execute(ctx, []byte(body.String())); err != nil || !res[0].Success {
				b.Fatalf("schema: %v %v", err, res)
			}
			req := []byte(`[{"command":"platform.schema/query"}]`)
			cmd := func() []byte {
				res, err := api.Execute(ctx, req)
				if err != nil || !res[0].Success {
					b.Fatalf("schema query: %v %v", err, res)
				}
				out, err := EncodeResults(res)
				if err != nil {
					b.Fatal(err)
				}
				return out
			}
			rebuild := func() []byte {
				cat, err := st.Refresh(ctx)
				if err != nil {
					b.Fatal(err)
				}
				out, err := EncodeResults([]Result{{Success: true, Result: cat.SchemaJSON()}})
				if err != nil {
					b.Fatal(err)
				}
				return out
			}
			if c, r := cmd(), rebuild(); string(c) != string(r) {
				b.Fatal("the cached answer differs from the rebuilt one")
			}
			b.ReportAllocs()
			tRebuild, tCmd := apitest.Interleave(b, func() { rebuild() }, func() { cmd() })
			b.ReportMetric(float64(tRebuild)/float64(tCmd), "speedup")
			b.ReportMetric(float64(tCmd.Microseconds())/float64(b.N), "cmd-µs/op")
			b.ReportMetric(float64(tRebuild.Microseconds())/float64(b.N), "rebuild-µs/op")
		})
	}
}
