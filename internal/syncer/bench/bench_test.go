package main

import (
	"net"
	"net/http"
	"os"
	"testing"
)

// BenchmarkSyncVsRaw runs the benchmark's measurement in process at a small
// size on SQLite (and PostgreSQL when APPKIT_TEST_POSTGRES is set): the sync
// engine's items/s against raw inserts into a table of the same shape (and,
// on PostgreSQL, one COPY into it) and against the engine's floor, and
// their ratios. `go run
// ./internal/syncer/bench` measures 100,000 and 1,000,000 items with each
// size's peak RSS.
func BenchmarkSyncVsRaw(b *testing.B) {
	const n = 20000
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	h, err := benchApp(n).Handler()
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	defer srv.Close()
	engines := []string{"sqlite"}
	pg := os.Getenv("APPKIT_TEST_POSTGRES")
	if pg != "" {
		engines = append(engines, "postgres")
	}
	for _, engine := range engines {
		b.Run(engine, func(b *testing.B) {
			var syncSecs, rawSecs, copySecs, floorSecs float64
			for b.Loop() {
				r, err := measure(engine, pg, n, "http://"+ln.Addr().String(), 1)
				if err != nil {
					b.Fatal(err)
				}
				syncSecs += r.SyncSecs
				rawSecs += r.RawSecs
				copySecs += r.CopySecs
				floorSecs += r.FloorSecs
			}
			b.ReportMetric(float64(n*b.N)/syncSecs, "sync-items/s")
			b.ReportMetric(float64(n*b.N)/rawSecs, "raw-items/s")
			b.ReportMetric(rawSecs/syncSecs, "x-raw")
			if copySecs > 0 {
				b.ReportMetric(copySecs/syncSecs, "x-copy")
			}
			b.ReportMetric(floorSecs/syncSecs, "x-floor")
		})
	}
}
