package host_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/commands"
	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// BenchmarkHostOverhead measures a command request through the whole host
// (token lookup, rate limiter, logging, recovery, timeout) against the bare
// command API on the same store, and reports the ratio host/direct.
func BenchmarkHostOverhead(b *testing.B) {
	ctx := context.Background()
	st := teststore.Open(b, "sqlite:"+b.TempDir()+"/bench.db")
	const token = "bench-token-0123456789"
	h, err := host.New(ctx, host.Config{Store: st, Token: token, RateLimit: 1e9, PasswordCost: 4, AdminPassword: "bench-password"})
	if err != nil {
		b.Fatal(err)
	}
	direct := commands.New(st)
	body := `[{"command":"platform.schema/query"}]`
	serve := func(hd http.Handler) {
		req := httptest.NewRequest("POST", "/api/commands", strings.NewReader(body))
		req.Header.Set("Authorization", "Token "+token)
		rec := httptest.NewRecorder()
		hd.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
	}
	serve(h) // warm up both paths
	serve(direct)
	b.ResetTimer()
	// Interleaved, so that load from elsewhere hits both sides alike.
	var base, through time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		serve(direct)
		mid := time.Now()
		serve(h)
		base += mid.Sub(start)
		through += time.Since(mid)
	}
	b.ReportMetric(float64(through)/float64(base), "host/direct")
}
