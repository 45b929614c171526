package upstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
)

type benchTicket struct {
	ID      int      `json:"id"`
	Subject string   `json:"subject"`
	Status  string   `json:"status"`
	Tags    []string `json:"tags"`
}

// benchServer answers a page of 20 tickets to a bearer token.
func benchServer(b *testing.B) *httptest.Server {
	var page []benchTicket
	for i := range 20 {
		page = append(page, benchTicket{ID: i, Subject: strings.Repeat("subject ", 4), Status: "open", Tags: []string{"a", "b"}})
	}
	body, _ := json.Marshal(page)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			w.WriteHeader(401)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// bareCall is what an app writes without the toolkit: net/http and
// encoding/json, with the same status check and size limit.
func bareCall(ctx context.Context, hc *http.Client, url string) ([]benchTicket, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var out []benchTicket
	err = json.NewDecoder(http.MaxBytesReader(nil, resp.Body, upstream.DefaultMaxBody)).Decode(&out)
	_, _ = io.Copy(io.Discard, resp.Body) // to EOF: the connection is reused
	return out, err
}

// BenchmarkOverhead measures the toolkit's cost per upstream call against
// a bare net/http client with encoding/json, both over the same loopback
// server and transport, call by call in turn so that both see the same
// machine load; it reports the median of each and their ratio
// toolkit/bare (target ≤ 1.1).
func BenchmarkOverhead(b *testing.B) {
	srv := benchServer(b)
	hc := srv.Client()
	api := &upstream.Client{BaseURL: srv.URL, Auth: upstream.Bearer("token"), HTTPClient: hc}
	account := appkit.Account{"token": secret}
	ctx := context.Background()
	const round = 20
	var bare, kit []time.Duration
	for b.Loop() {
		for range round {
			start := time.Now()
			if out, err := bareCall(ctx, hc, srv.URL+"/tickets"); err != nil || len(out) != 20 {
				b.Fatal(err)
			}
			mid := time.Now()
			if out, err := upstream.Get[[]benchTicket](ctx, api.For(account), "/tickets", nil); err != nil || len(out) != 20 {
				b.Fatal(err)
			}
			bare = append(bare, mid.Sub(start))
			kit = append(kit, time.Since(mid))
		}
	}
	// Medians: a shared machine's stalls hit single calls of either side.
	mb, mk := median(bare), median(kit)
	b.ReportMetric(float64(mb.Nanoseconds()), "bare-ns/call")
	b.ReportMetric(float64(mk.Nanoseconds()), "toolkit-ns/call")
	b.ReportMetric(float64(mk)/float64(mb), "toolkit/bare")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
