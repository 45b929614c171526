// Command bench measures the sync engine against the limits of the store,
// on SQLite and on PostgreSQL: it synchronizes N items (10 fields and one
// relation) from an appkit app over loopback into a fresh store, then fills
// more tables of the same store with the same rows:
//
//   - raw: a table with the synchronized table's columns, types and indexes,
//     filled with raw SQL inserts (a prepared multi-row INSERT of 500 rows,
//     all in one transaction; INSERT OR FAIL on SQLite, as the store's bulk
//     path), with time-ordered (UUIDv7) keys like the synchronized rows';
//   - copy (PostgreSQL only): the same table filled with one COPY of all
//     rows, the fastest way PostgreSQL takes rows (on SQLite the multi-row
//     INSERT is already the fastest way);
//   - floor: the same columns with sequential integer keys and no secondary
//     index, filled the fastest way the engine offers (SQLite: the
//     multi-row INSERT; PostgreSQL: one COPY): what the engine can take at
//     best.
//
// Usage:
//
//	go run ./internal/syncer/bench                          # SQLite, 100,000 and 1,000,000 items
//	go run ./internal/syncer/bench -postgres postgres://... # and PostgreSQL
//	go run ./internal/syncer/bench -store postgres -n 100000
//	go run ./internal/syncer/bench -store postgres -postgres "$DSN" -10m # adds a 10,000,000-item run on PostgreSQL
//	go run ./internal/syncer/bench -n 100000 -repeat 3      # best of 3 alternating runs per phase
//	go run ./internal/syncer/bench -n 200000 -metrics       # observed as appkit host --metrics-addr observes
//
// The PostgreSQL DSN comes from -postgres (the shell passes an environment
// variable if it wants: -postgres "$APPKIT_TEST_POSTGRES"); each run gets a
// schema of its own, dropped after.
// Each size runs in a child process (so that its peak RSS is its own); the
// app runs in the parent. Each line: items/s of the sync, of raw and of
// floor, the sync's ratios to raw, copy and floor (targets: at least 0.8 of
// raw; 1,000,000 items at 50,000 items/s on SQLite and 100,000 on
// PostgreSQL), the child's peak RSS after the sync (target: at most 96
// MiB), and the CPU time per item of the sync (the child's) and of the app
// (the parent's): on a shared machine CPU time varies far less than the
// rates.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/observe"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// metrics observes the sync as appkit host --metrics-addr does (-metrics).
var metrics bool

// groups is the number of related "group" items.
const groups = 100

// pageSize is the app's page size.
const pageSize = 1000

// result is what a child reports.
type result struct {
	Store      string  `json:"store"`
	N          int     `json:"n"`
	SyncSecs   float64 `json:"sync_secs"`
	RawSecs    float64 `json:"raw_secs"`
	CopySecs   float64 `json:"copy_secs"` // PostgreSQL only
	FloorSecs  float64 `json:"floor_secs"`
	SyncRSSMiB float64 `json:"sync_rss_mib"`
	// SyncCPUSecs is the child's CPU time (user and system) during the
	// sync: less sensitive to a shared machine's load than SyncSecs.
	SyncCPUSecs float64 `json:"sync_cpu_secs"`
	// AppCPUSecs is the parent's (the app's) CPU time per sync, set by
	// runChild.
	AppCPUSecs float64 `json:"-"`
}

func main() {
	sizes := flag.String("n", "100000,1000000", "item counts, comma-separated")
	stores := flag.String("store", "", "engines, comma-separated: sqlite, postgres (default: sqlite, and postgres when a DSN is set)")
	pgDSN := flag.String("postgres", "", "PostgreSQL DSN (required for -store postgres)")
	huge := flag.Bool("10m", false, "add a 10,000,000-item run on PostgreSQL")
	repeat := flag.Int("repeat", 1, "runs per size; each phase's best time is kept")
	cpuProfile := flag.String("cpuprofile", "", "write each child's CPU profile to this file (suffixed -ENGINE-N)")
	flag.BoolVar(&metrics, "metrics", false, "observe the sync as appkit host --metrics-addr does (the host's instruments on the calls, pages and report; the app's on its requests)")
	child := flag.Bool("child", false, "internal: measure one size against -app")
	appURL := flag.String("app", "", "internal: the app's address")
	flag.Parse()
	if *child {
		if *cpuProfile != "" {
			f, err := os.Create(*cpuProfile)
			if err == nil {
				pprof.StartCPUProfile(f)
				defer pprof.StopCPUProfile()
			}
		}
		n, _ := strconv.Atoi(*sizes)
		r, err := measure(*stores, *pgDSN, n, *appURL, *repeat)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		json.NewEncoder(os.Stdout).Encode(r)
		return // (os.Exit would skip the profile's end)
	}
	engines := strings.Split(*stores, ",")
	if *stores == "" {
		engines = []string{"sqlite"}
		if *pgDSN != "" {
			engines = append(engines, "postgres")
		}
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "bench: -n: bad size %q\n", s)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	fmt.Printf("sync engine vs raw inserts into the same table and the engine's floor, %d CPUs, GOMAXPROCS %d, metrics %v\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), metrics)
	fmt.Printf("%-8s %10s %13s %13s %6s %6s %13s %6s %9s %9s %9s\n", "engine", "items", "sync items/s", "raw items/s", "×raw", "×copy", "floor items/s", "×floor", "peak MiB", "cpu µs/it", "app µs/it")
	for _, engine := range engines {
		engine = strings.TrimSpace(engine)
		if engine != "sqlite" && engine != "postgres" {
			fmt.Fprintf(os.Stderr, "bench: -store: unknown engine %q (want sqlite or postgres)\n", engine)
			os.Exit(2)
		}
		if engine == "postgres" && *pgDSN == "" {
			fmt.Fprintln(os.Stderr, "bench: postgres needs -postgres DSN")
			os.Exit(2)
		}
		runs := ns
		if engine == "postgres" && *huge {
			runs = append(append([]int(nil), ns...), 10_000_000)
		}
		for _, n := range runs {
			profile := ""
			if *cpuProfile != "" {
				profile = fmt.Sprintf("%s-%s-%d", *cpuProfile, engine, n)
			}
			r, err := runChild(engine, *pgDSN, n, *repeat, profile)
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(1)
			}
			syncRate := float64(r.N) / r.SyncSecs
			rawRate, floorRate := float64(r.N)/r.RawSecs, float64(r.N)/r.FloorSecs
			byCopy := "-"
			if r.CopySecs > 0 {
				byCopy = fmt.Sprintf("%.2f", r.CopySecs/r.SyncSecs)
			}
			fmt.Printf("%-8s %10d %13.0f %13.0f %6.2f %6s %13.0f %6.2f %9.1f %9.2f %9.2f\n", engine, r.N, syncRate, rawRate, syncRate/rawRate, byCopy, floorRate, syncRate/floorRate, r.SyncRSSMiB,
				r.SyncCPUSecs/float64(r.N)*1e6, r.AppCPUSecs/float64(r.N)*1e6)
		}
	}
}

// runChild serves the app for n items and measures in a child process.
func runChild(engine, pgDSN string, n, repeat int, profile string) (*result, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	app := benchApp(n)
	if metrics {
		app.Observe = &appkit.Observe{Metrics: prometheus.NewRegistry()}
	}
	h, err := app.Handler()
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	defer srv.Close()
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"-child", "-store", engine, "-n", strconv.Itoa(n), "-repeat", strconv.Itoa(repeat), "-app", "http://" + ln.Addr().String()}
	if engine == "postgres" {
		args = append(args, "-postgres", pgDSN)
	}
	if profile != "" {
		args = append(args, "-cpuprofile", profile)
	}
	if metrics {
		args = append(args, "-metrics")
	}
	cmd := exec.Command(exe, args...)
	cmd.Stderr = os.Stderr
	appCPU := cpuSecs()
	out, err := cmd.Output()
	appCPU = (cpuSecs() - appCPU) / float64(max(repeat, 1))
	if err != nil {
		return nil, fmt.Errorf("child for %d items on %s: %w", n, engine, err)
	}
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("child for %d items on %s: %w", n, engine, err)
	}
	r.AppCPUSecs = appCPU
	return &r, nil
}

// benchItem is one row item; its struct declares the row type's schema.
type benchItem struct {
	ID     string     `appkit:"id"`
	Name   string     `appkit:"name"`
	Email  string     `appkit:"email,email,name=E-mail"`
	Score  int        `appkit:"score"`
	Amount float64    `appkit:"amount"`
	Day    appkit.Day `appkit:"day"`
	At     time.Time  `appkit:"at"`
	Done   bool       `appkit:"done"`
	Note   string     `appkit:"note"`
	URL    string     `appkit:"url,url,name=URL"`
	Group  string     `appkit:"group,ref=group,inverse=Rows"`
}

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func item(i int) benchItem {
	return benchItem{
		ID: "r" + strconv.Itoa(i), Name: "Row number " + strconv.Itoa(i), Email: "user" + strconv.Itoa(i%5000) + "@example.com",
		Score: i % 1000, Amount: float64(i%100000) / 100, Day: appkit.DayOf(epoch.AddDate(0, 0, i%700)),
		At: epoch.Add(time.Duration(i) * time.Minute), Done: i%3 == 0,
		Note: "A short note about row " + strconv.Itoa(i), URL: "https://example.com/rows/" + strconv.Itoa(i), Group: "g" + strconv.Itoa(i%groups),
	}
}

type cursor struct{ Next int }

// group is a group item; its struct declares the group type's schema.
type group struct {
	ID   string `appkit:"id"`
	Name string `appkit:"name"`
}

// pages serves total items made by gen, pageSize a page.
func pages[T any](total int, gen func(i int) T) appkit.DataHandler {
	return appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, c *cursor) (*appkit.Page[T, cursor], error) {
		start := 0
		if c != nil {
			start = c.Next
		}
		end := min(start+pageSize, total)
		items := make([]T, 0, end-start)
		for i := start; i < end; i++ {
			items = append(items, gen(i))
		}
		p := &appkit.Page[T, cursor]{Items: items}
		if end < total {
			p.Next = &cursor{Next: end}
		}
		return p, nil
	})
}

// benchApp is an appkit app serving n rows and their groups.
func benchApp(n int) *appkit.App {
	nop := zerolog.Nop()
	return &appkit.App{
		ID: "bench", Name: "Bench", Version: "1.0.0", Description: "rows for the sync benchmark", Website: "https://example.com",
		Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{Types: []appkit.Type{
			{ID: "group", Name: "Groups", Default: true,
				Data: pages(groups, func(i int) group { return group{ID: "g" + strconv.Itoa(i), Name: "Group " + strconv.Itoa(i)} })},
			{ID: "row", Name: "Rows", Default: true, Data: pages(n, item)},
		}},
		Logger: &nop,
	}
}

// measure runs measureOnce repeat times and keeps each phase's best time:
// on a shared machine the load changes between phases, and the best of a
// few alternating runs compares them under similar load.
func measure(engine, pgDSN string, n int, appURL string, repeat int) (*result, error) {
	var best *result
	for range max(repeat, 1) {
		r, err := measureOnce(engine, pgDSN, n, appURL)
		if err != nil {
			return nil, err
		}
		if best == nil {
			best = r
			continue
		}
		best.SyncSecs = min(best.SyncSecs, r.SyncSecs)
		best.RawSecs = min(best.RawSecs, r.RawSecs)
		best.CopySecs = min(best.CopySecs, r.CopySecs)
		best.FloorSecs = min(best.FloorSecs, r.FloorSecs)
		best.SyncRSSMiB = max(best.SyncRSSMiB, r.SyncRSSMiB)
		best.SyncCPUSecs = min(best.SyncCPUSecs, r.SyncCPUSecs)
	}
	return best, nil
}

// measureOnce syncs n items into a fresh store of the engine, then fills
// the raw and floor tables with the same rows.
func measureOnce(engine, pgDSN string, n int, appURL string) (*result, error) {
	ctx := context.Background()
	var dsn string
	switch engine {
	case "sqlite":
		dir, err := os.MkdirTemp("", "appkit-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		dsn = "sqlite:" + filepath.Join(dir, "bench.db")
	case "postgres":
		var drop func()
		var err error
		dsn, drop, err = freshSchema(ctx, pgDSN)
		if err != nil {
			return nil, err
		}
		defer drop()
	default:
		return nil, fmt.Errorf("unknown engine %q", engine)
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	opts := syncer.Options{AppURL: appURL}
	var obs *observe.Host
	if metrics {
		obs = observeSync(st, &opts)
	}
	start, cpuStart := time.Now(), cpuSecs()
	rep, err := syncer.Run(ctx, st, opts)
	if err != nil {
		return nil, err
	}
	for _, t := range rep.Types {
		obs.Report("bench", t)
	}
	r := &result{Store: engine, N: n, SyncSecs: time.Since(start).Seconds(), SyncCPUSecs: cpuSecs() - cpuStart, SyncRSSMiB: peakRSS()}
	for _, t := range rep.Types {
		if t.Type == "row" && t.Created != n {
			return nil, fmt.Errorf("synchronized %d rows, want %d", t.Created, n)
		}
	}
	cat, err := st.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	tb := newTables(cat.Type("bench/row"))
	insert := func(ctx context.Context, table string, n int, key func(i int) any) error {
		return fillInsert(ctx, st, engine, tb, table, n, key)
	}
	uuidKey := func(int) any { return store.NewEntityID() }
	seqKey := func(i int) any { return int64(i + 1) }
	steps := []fillStep{{&r.RawSecs, "raw_rows", insert, uuidKey}}
	if engine == "postgres" {
		copyAll := func(ctx context.Context, table string, n int, key func(i int) any) error {
			return fillCopy(ctx, dsn, tb, table, n, key)
		}
		steps = append(steps, fillStep{&r.CopySecs, "copy_rows", copyAll, uuidKey}, fillStep{&r.FloorSecs, "floor_rows", copyAll, seqKey})
	} else {
		steps = append(steps, fillStep{&r.FloorSecs, "floor_rows", insert, seqKey})
	}
	for _, step := range steps {
		if err := tb.create(ctx, st, engine, step.table); err != nil {
			return nil, err
		}
		start := time.Now()
		if err := step.fill(ctx, step.table, n, step.key); err != nil {
			return nil, fmt.Errorf("fill %s: %w", step.table, err)
		}
		*step.secs = time.Since(start).Seconds()
		var count int
		if err := st.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM "+step.table).Scan(&count); err != nil || count != n {
			return nil, fmt.Errorf("%s: %d rows (%v)", step.table, count, err)
		}
	}
	return r, nil
}

// fillStep fills one baseline table and keeps its time.
type fillStep struct {
	secs  *float64
	table string
	fill  func(ctx context.Context, table string, n int, key func(i int) any) error
	key   func(i int) any
}

// freshSchema creates a schema of its own for one run and returns the DSN
// that uses it and the function that drops it.
func freshSchema(ctx context.Context, base string) (string, func(), error) {
	db, err := sql.Open("pgx", base)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "bench_" + hex.EncodeToString(b)
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema, func() {
		db.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		db.Close()
	}, nil
}

// tables knows the synchronized row table's shape.
type tables struct {
	ty       *store.Type
	cols     []string
	groupIDs []string
	now      int64
	amount   int // the index of the decimal column in cols
}

func newTables(ty *store.Type) *tables {
	col := func(name string) string { return ty.Field(name).Col }
	tb := &tables{ty: ty, now: time.Now().UnixMilli(), groupIDs: make([]string, groups),
		cols: []string{"id", "public_id", "created", "modified", col("bench.row.sync/app-id"), col("bench.row.sync/run"),
			col("bench.row/name"), col("bench.row/email"), col("bench.row/score"), col("bench.row/amount"), col("bench.row/day"),
			col("bench.row/at"), col("bench.row/done"), col("bench.row/note"), col("bench.row/url"), col("bench.row/group")}}
	for i := range tb.groupIDs {
		tb.groupIDs[i] = uuid.NewString()
	}
	tb.amount = slices.Index(tb.cols, col("bench.row/amount"))
	return tb
}

// row appends row i's values (key as its id) to dst.
func (tb *tables) row(dst []any, i int, key any) []any {
	it := item(i)
	return append(dst, key, strconv.Itoa(i+1), tb.now, tb.now, it.ID, int64(1),
		it.Name, it.Email, int64(it.Score), strconv.FormatFloat(it.Amount, 'f', -1, 64), it.Day.String(),
		it.At.UnixMilli(), it.Done, it.Note, it.URL, tb.groupIDs[i%groups])
}

// create makes table in the store of the engine (the benchmark's -store):
// "floor_rows" with the synchronized table's columns, an integer primary
// key and no other index; any other (raw_rows, copy_rows) with its columns,
// types and indexes.
func (tb *tables) create(ctx context.Context, st *store.Store, engine, table string) error {
	db := st.DB()
	var ddls []string
	if engine == "postgres" {
		if table != "floor_rows" {
			ddls = []string{"CREATE TABLE " + table + " (LIKE " + tb.ty.Table + " INCLUDING ALL)"}
		} else {
			ddls = []string{"CREATE TABLE floor_rows (LIKE " + tb.ty.Table + ")",
				"ALTER TABLE floor_rows ALTER COLUMN id TYPE BIGINT USING 0, ADD PRIMARY KEY (id)"}
		}
	} else {
		var ddl string
		if err := db.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE name = ?", tb.ty.Table).Scan(&ddl); err != nil {
			return err
		}
		ddl = strings.Replace(ddl, tb.ty.Table, table, 1)
		if table == "floor_rows" {
			if !strings.Contains(ddl, "id TEXT PRIMARY KEY") {
				return fmt.Errorf("unexpected table definition %s", ddl)
			}
			ddls = []string{strings.Replace(ddl, "id TEXT PRIMARY KEY", "id INTEGER PRIMARY KEY", 1)}
		} else {
			ddls = []string{ddl}
			rs, err := db.QueryContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", tb.ty.Table)
			if err != nil {
				return err
			}
			for rs.Next() {
				var q string
				if err := rs.Scan(&q); err != nil {
					rs.Close()
					return err
				}
				ddls = append(ddls, strings.ReplaceAll(q, tb.ty.Table, table))
			}
			if err := rs.Close(); err != nil {
				return err
			}
		}
	}
	for _, q := range ddls {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// fillInsert inserts n rows into table in one transaction with a prepared
// multi-row INSERT of 500 rows (INSERT OR FAIL on SQLite, as the store's
// bulk path: no statement journal); decimals are bound as the store binds
// them.
func fillInsert(ctx context.Context, st *store.Store, engine string, tb *tables, table string, n int, key func(i int) any) error {
	const per = 500
	verb := "INSERT"
	if engine == "sqlite" {
		verb = "INSERT OR FAIL"
	}
	cols := strings.Join(tb.cols, ",")
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?,", len(tb.cols)), ",") + ")"
	insert := func(rows int) string {
		return st.Dialect().Rebind(verb + " INTO " + table + " (" + cols + ") VALUES " + strings.TrimSuffix(strings.Repeat(tuple+",", rows), ","))
	}
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, insert(per))
	if err != nil {
		return err
	}
	args := make([]any, 0, per*len(tb.cols))
	rows := 0
	for i := range n {
		lo := len(args)
		args = tb.row(args, i, key(i))
		if engine == "postgres" {
			if args[lo+tb.amount], err = numeric(args[lo+tb.amount]); err != nil {
				return err
			}
		}
		rows++
		if rows == per || i == n-1 {
			if rows == per {
				_, err = stmt.ExecContext(ctx, args...)
			} else {
				_, err = tx.ExecContext(ctx, insert(rows), args...)
			}
			if err != nil {
				return err
			}
			args, rows = args[:0], 0
		}
	}
	return tx.Commit()
}

// numeric is a decimal's text as a value pgx encodes as it is, as the
// store binds decimals on PostgreSQL.
func numeric(v any) (any, error) {
	var n pgtype.Numeric
	if err := n.Scan(v); err != nil {
		return nil, err
	}
	return n, nil
}

// fillCopy copies n rows into table with one COPY (PostgreSQL).
func fillCopy(ctx context.Context, dsn string, tb *tables, table string, n int, key func(i int) any) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	i := 0
	vals := make([]any, 0, len(tb.cols))
	_, err = conn.CopyFrom(ctx, pgx.Identifier{table}, tb.cols, pgx.CopyFromFunc(func() ([]any, error) {
		if i == n {
			return nil, nil
		}
		vals = tb.row(vals[:0], i, key(i))
		var err error
		if vals[tb.amount], err = numeric(vals[tb.amount]); err != nil {
			return nil, err
		}
		i++
		return vals, nil
	}))
	return err
}

// peakRSS is the process's peak resident set size in MiB (Linux; 0
// elsewhere).
func peakRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}

// observeSync makes opts observed as the apps service of appkit host
// --metrics-addr observes a run: the calls to the app through the host's
// transport, each page's duration; the report is counted after the run.
func observeSync(st *store.Store, opts *syncer.Options) *observe.Host {
	obs := observe.New(observe.Config{Store: st})
	opts.HTTPClient = obs.Client(nil)
	opts.Progress = apps.ObservePages(obs, "bench", nil)
	return obs
}

// cpuSecs is the process's CPU time so far (user and system, all
// threads), from /proc/self/stat in clock ticks of 1/100 s (0 where there
// is no /proc).
func cpuSecs() float64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100
}
