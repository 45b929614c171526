package appkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/protocol"
)

// benchItems builds a page of n items × 10 fields, fresh for every call as a
// handler would.
func benchItems(n int) []any {
	items := make([]any, n)
	for i := range items {
		items[i] = appkit.Item{
			"id": fmt.Sprint(i), "name": "Task number " + fmt.Sprint(i), "status": "open", "points": i % 13,
			"estimate": float64(i) / 7, "due": "2024-06-13", "url": "https://tracker.example.com/t/" + fmt.Sprint(i),
			"email": "dev@example.com", "project": "p1", "done": i%2 == 0,
		}
	}
	return items
}

// BenchmarkDataPage serves one data page through appkit (logging one JSON
// line per request to io.Discard) and through a bare net/http handler that
// decodes the same request and encodes the same items, and reports appkit's
// time as a ratio of the bare handler's (target: ratio ≤ 1.25). The 1000-item
// page is the measure; the 10-item page shows the fixed cost per
// request (routing, validation, logging).
func BenchmarkDataPage(b *testing.B) {
	for _, n := range []int{1000, 10} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) { benchDataPage(b, n) })
	}
}

func benchDataPage(b *testing.B, pageSize int) {
	type cur struct{ Next int }
	logger := zerolog.New(io.Discard).With().Timestamp().Logger()
	app := &appkit.App{ID: "bench", Name: "bench", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &logger,
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "task", Name: "Tasks",
			Fields: []appkit.Field{appkit.ID("ID"), appkit.Text("name", "Name")},
			Data: appkit.Pages(func(ctx context.Context, r *appkit.DataRequest, c *cur) (*appkit.Page[cur], error) {
				return &appkit.Page[cur]{Items: benchItems(pageSize), Next: &cur{Next: pageSize}}, nil
			}),
		}}}}
	sdk, err := app.Handler()
	if err != nil {
		b.Fatal(err)
	}
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in protocol.DataRequest
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		next, _ := json.Marshal(cur{Next: pageSize})
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(protocol.DataResponse{Items: benchItems(pageSize), SynchronizationType: "full",
			Pagination: &protocol.Pagination{HasNext: true, NextPageConfig: next}})
	})
	body := `{"requestedType":"task","types":["task"],"filter":{},"account":{"token":"x"},"pagination":{"Next":0},"lastSynchronizedAt":null}`
	serve := func(h http.Handler) time.Duration {
		req := httptest.NewRequest("POST", protocol.PathData, strings.NewReader(body))
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		d := time.Since(start)
		if rec.Code != 200 {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		return d
	}
	serve(sdk)
	serve(bare)
	b.ResetTimer()
	var tSDK, tBare time.Duration
	for i := 0; i < b.N; i++ {
		// Alternate so that both see the same machine conditions.
		tSDK += serve(sdk)
		tBare += serve(bare)
	}
	b.ReportMetric(float64(tSDK.Nanoseconds())/float64(b.N), "appkit-ns/page")
	b.ReportMetric(float64(tBare.Nanoseconds())/float64(b.N), "bare-ns/page")
	b.ReportMetric(float64(tSDK)/float64(tBare), "ratio")
}
