package main

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

// appkit host --metrics-addr serves the Prometheus metrics on that address
// (and only there); /healthz and /readyz answer on the main address.
func TestHostCommandMetricsAddr(t *testing.T) {
	t.Parallel()
	h := launchHost(context.Background(), "--addr", "127.0.0.1:0", "--store", "sqlite::memory:", "--metrics-addr", "127.0.0.1:0", "--admin-password", "a-long-password-42")
	metrics := h.waitFor(t, regexp.MustCompile(`metrics at (http://[0-9.]+:[0-9]+)/metrics`))[1]
	base := h.waitFor(t, listening)[1]
	defer func() {
		h.cancel()
		<-h.done
	}()
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(base + "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := get(base + "/readyz"); code != 200 || body != "ready\n" {
		t.Errorf("/readyz: %d %q", code, body)
	}
	code, body := get(metrics + "/metrics")
	for _, want := range []string{`appkit_http_requests_total{route="healthz",status="200"} 1`, `go_sql_open_connections{db_name="appkit"}`, "go_goroutines", "process_cpu_seconds_total"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics (%d) lacks %q", code, want)
		}
	}
	if _, body := get(base + "/metrics"); strings.Contains(body, "go_goroutines") {
		t.Error("the API's address serves the metrics")
	}
}

// A malformed OTEL variable is a usage error of the commands that trace.
func TestTracingEnvUsage(t *testing.T) {
	t.Setenv("OTEL_SDK_DISABLED", "maybe")
	var stderr strings.Builder
	if code := run(context.Background(), []string{"sync", "--store", "sqlite::memory:", "--app", "http://127.0.0.1:1"}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "OTEL_SDK_DISABLED") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// With OTEL_EXPORTER_OTLP_ENDPOINT set, appkit sync traces its run: every
// call to the app carries a traceparent, and the spans (the run, its
// types, its pages, its calls) reach the collector before the command
// exits.
func TestSyncCommandTraced(t *testing.T) {
	var mu sync.Mutex
	var exported []byte
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				t.Error(err)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		mu.Lock()
		if r.URL.Path == "/v1/traces" {
			exported = append(exported, b...)
		}
		mu.Unlock()
	}))
	defer collector.Close()
	traceparents := make(chan string, 100)
	nop := zerolog.Nop()
	app := testapp.Handler(t, tracker.New(tracker.Config{Projects: 2, Tasks: 30, Logger: &nop}))
	appURL := serveApp(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/synchronizer/data" {
			traceparents <- r.Header.Get("traceparent")
		}
		app.ServeHTTP(w, r)
	}))
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SERVICE_NAME", "sync-under-test")
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"sync", "--store", "sqlite::memory:", "--app", appURL, "--account", "token=demo"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	close(traceparents)
	n := 0
	for tp := range traceparents {
		n++
		if !regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`).MatchString(tp) {
			t.Errorf("a data call carried traceparent %q", tp)
		}
	}
	if n == 0 {
		t.Fatal("no data call")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"sync.run", "sync.type", "sync.page", "POST /api/v1/synchronizer/data", "sync-under-test"} {
		if !strings.Contains(string(exported), want) {
			t.Errorf("the collector got no %q before the command exited", want)
		}
	}
}

// serveApp serves h on loopback until the test ends.
func serveApp(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
