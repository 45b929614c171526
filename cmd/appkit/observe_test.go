package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
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
