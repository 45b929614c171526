package main

import (
	"net"
	"net/http"
	"testing"
)

// BenchmarkSyncVsRaw runs the benchmark's measurement in process at a small
// size (-benchtime sets nothing; APPKIT_BENCH_ROWS is not read): the sync
// engine's items/s against raw multi-row inserts into the same store, and
// their ratio (target at least 0.5). `go run ./internal/syncer/bench` measures
// 100,000 and 1,000,000 items with each size's peak RSS.
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
	var syncSecs, rawSecs float64
	for b.Loop() {
		r, err := measure(n, "http://"+ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		syncSecs += r.SyncSecs
		rawSecs += r.RawSecs
	}
	b.ReportMetric(float64(n*b.N)/syncSecs, "sync-items/s")
	b.ReportMetric(float64(n*b.N)/rawSecs, "raw-items/s")
	b.ReportMetric(rawSecs/syncSecs, "ratio")
}
