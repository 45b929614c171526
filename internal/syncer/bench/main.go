// Command bench measures the sync engine against the physical limit of the
// store: synchronizing N items (10 fields and one relation) from an appkit
// app over loopback into a SQLite file, against inserting the same rows into
// the same kind of table of the same store with the fastest plain SQL (one
// transaction, prepared multi-row inserts).
//
//	go run ./internal/syncer/bench                 # 100,000 and 1,000,000 items
//	go run ./internal/syncer/bench -n 20000        # one size
//
// Each size runs in a child process (so that its peak RSS is its own); the
// app runs in the parent. It prints, per size, items/s of both, their ratio
// (target: at least 0.5) and the child's peak RSS after the sync.
package main

import (
	"bufio"
	"context"
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
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// groups is the number of related "group" items.
const groups = 100

// pageSize is the app's page size.
const pageSize = 1000

// result is what a child reports.
type result struct {
	N          int     `json:"n"`
	SyncSecs   float64 `json:"sync_secs"`
	RawSecs    float64 `json:"raw_secs"`
	SyncRSSMiB float64 `json:"sync_rss_mib"`
	RawRSSMiB  float64 `json:"raw_rss_mib"`
}

func main() {
	sizes := flag.String("n", "100000,1000000", "item counts, comma-separated")
	child := flag.Bool("child", false, "internal: measure one size against -app")
	appURL := flag.String("app", "", "internal: the app's address")
	flag.Parse()
	if *child {
		if p := os.Getenv("APPKIT_BENCH_CPUPROFILE"); p != "" {
			f, err := os.Create(p)
			if err == nil {
				pprof.StartCPUProfile(f)
				defer pprof.StopCPUProfile()
			}
		}
		n, _ := strconv.Atoi(*sizes)
		r, err := measure(n, *appURL)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		json.NewEncoder(os.Stdout).Encode(r)
		return // (os.Exit would skip the profile's end)
	}
	fmt.Printf("sync engine vs raw SQL inserts, SQLite file, %d CPUs, GOMAXPROCS %d\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Printf("%10s %14s %14s %7s %14s\n", "items", "sync items/s", "raw items/s", "ratio", "peak RSS MiB")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "bench: -n: bad size %q\n", s)
			os.Exit(2)
		}
		r, err := runChild(n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		syncRate, rawRate := float64(r.N)/r.SyncSecs, float64(r.N)/r.RawSecs
		fmt.Printf("%10d %14.0f %14.0f %7.2f %14.1f\n", r.N, syncRate, rawRate, syncRate/rawRate, r.SyncRSSMiB)
	}
}

// runChild serves the app for n items and measures in a child process.
func runChild(n int) (*result, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h, err := benchApp(n).Handler()
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
	cmd := exec.Command(exe, "-child", "-n", strconv.Itoa(n), "-app", "http://"+ln.Addr().String())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("child for %d items: %w", n, err)
	}
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("child for %d items: %w", n, err)
	}
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

// measure syncs n items into a fresh SQLite file, then inserts the same rows
// with raw SQL into a table of the same shape in the same store.
func measure(n int, appURL string) (*result, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "appkit-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "bench.db"))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	start := time.Now()
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: appURL})
	if err != nil {
		return nil, err
	}
	r := &result{N: n, SyncSecs: time.Since(start).Seconds(), SyncRSSMiB: peakRSS()}
	for _, t := range rep.Types {
		if t.Type == "row" && t.Created != n {
			return nil, fmt.Errorf("synchronized %d rows, want %d", t.Created, n)
		}
	}
	rawSecs, err := rawInsert(ctx, st, n)
	if err != nil {
		return nil, err
	}
	r.RawSecs, r.RawRSSMiB = rawSecs, peakRSS()
	return r, nil
}

// rawInsert creates a table with the columns of the synchronized row type
// and inserts n rows of the same values in one transaction with a prepared
// multi-row INSERT.
func rawInsert(ctx context.Context, st *store.Store, n int) (float64, error) {
	cat, err := st.Catalog(ctx)
	if err != nil {
		return 0, err
	}
	ty := cat.Type("bench/row")
	db := st.DB()
	var ddl string
	if err := db.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE name = ?", ty.Table).Scan(&ddl); err != nil {
		return 0, err
	}
	// The same columns, types, order and indexes as the synchronized table.
	ddls := []string{strings.Replace(ddl, ty.Table, "raw_rows", 1)}
	rs, err := db.QueryContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", ty.Table)
	if err != nil {
		return 0, err
	}
	for rs.Next() {
		var q string
		if err := rs.Scan(&q); err != nil {
			rs.Close()
			return 0, err
		}
		ddls = append(ddls, strings.ReplaceAll(q, ty.Table, "raw_rows"))
	}
	rs.Close()
	for _, q := range ddls {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return 0, fmt.Errorf("%s: %w", q, err)
		}
	}
	col := func(name string) string { return ty.Field(name).Col }
	cols := []string{"id", "public_id", "created", "modified", col("bench.row.sync/app-id"), col("bench.row.sync/run"),
		col("bench.row/name"), col("bench.row/email"), col("bench.row/score"), col("bench.row/amount"), col("bench.row/day"),
		col("bench.row/at"), col("bench.row/done"), col("bench.row/note"), col("bench.row/url"), col("bench.row/group")}
	const per = 500
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")"
	q := "INSERT INTO raw_rows (" + strings.Join(cols, ",") + ") VALUES " + strings.TrimSuffix(strings.Repeat(tuple+",", per), ",")
	groupIDs := make([]string, groups)
	for i := range groupIDs {
		groupIDs[i] = uuid.NewString()
	}
	start := time.Now()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, q)
	if err != nil {
		return 0, err
	}
	now := time.Now().UnixMilli()
	args := make([]any, 0, per*len(cols))
	flush := func(rows int) error {
		if rows == per {
			_, err := stmt.ExecContext(ctx, args...)
			return err
		}
		short := "INSERT INTO raw_rows (" + strings.Join(cols, ",") + ") VALUES " + strings.TrimSuffix(strings.Repeat(tuple+",", rows), ",")
		_, err := tx.ExecContext(ctx, short, args...)
		return err
	}
	rows := 0
	for i := 0; i < n; i++ {
		it := item(i)
		args = append(args, uuid.NewString(), strconv.Itoa(i+1), now, now, it.ID, 1,
			it.Name, it.Email, it.Score, strconv.FormatFloat(it.Amount, 'f', -1, 64), it.Day.String(),
			it.At.UnixMilli(), it.Done, it.Note, it.URL, groupIDs[i%groups])
		rows++
		if rows == per {
			if err := flush(rows); err != nil {
				return 0, err
			}
			args, rows = args[:0], 0
		}
	}
	if rows > 0 {
		if err := flush(rows); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	var count int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM raw_rows").Scan(&count); err != nil || count != n {
		return 0, fmt.Errorf("raw insert: %d rows (%v)", count, err)
	}
	return time.Since(start).Seconds(), nil
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
