package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/telemetry"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env     map[string]string
		enabled bool
		host    string
		err     string
	}{
		{env: nil},
		{env: map[string]string{"OTEL_SERVICE_NAME": "x"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, enabled: true, host: "http://collector:4318"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://c.example/v1/traces"}, enabled: true, host: "https://c.example"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"}},
		{env: map[string]string{"OTEL_SDK_DISABLED": "maybe"}, err: "OTEL_SDK_DISABLED"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317"}, err: "OTEL_EXPORTER_OTLP_ENDPOINT"},
	} {
		cfg, err := telemetry.FromEnv(env(c.env), "svc")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: err %v, want one naming %s", c.env, err, c.err)
			}
			continue
		}
		if err != nil || cfg.Enabled() != c.enabled {
			t.Errorf("%v: enabled %v, %v; want %v", c.env, cfg.Enabled(), err, c.enabled)
		}
		if c.enabled && cfg.TracesHost() != c.host {
			t.Errorf("%v: traces to %s, want %s", c.env, cfg.TracesHost(), c.host)
		}
		if want := "svc"; c.env["OTEL_SERVICE_NAME"] != "" {
			want = c.env["OTEL_SERVICE_NAME"]
			if cfg.ServiceName != want {
				t.Errorf("service %q, want %q", cfg.ServiceName, want)
			}
		}
	}
}

// TestForApp: nothing set, no Observe; METRICS_ADDR set, the metrics are
// served there (GET /metrics only), with the Go runtime's.
func TestForApp(t *testing.T) {
	t.Parallel()
	obs, stop, err := telemetry.ForApp(context.Background(), env(nil), "app", io.Discard)
	if err != nil || obs != nil {
		t.Fatalf("nothing set: %v, %v", obs, err)
	}
	stop()
	var log strings.Builder
	obs, stop, err = telemetry.ForApp(context.Background(), env(map[string]string{"METRICS_ADDR": "127.0.0.1:0"}), "app", &log)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if obs.Metrics == nil || obs.Tracing != nil {
		t.Fatalf("metrics only: %+v", obs)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(log.String()), "app: metrics at "), "/metrics")
	resp, err := http.Get(addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "go_goroutines") || !strings.Contains(string(body), "process_") {
		t.Errorf("GET /metrics: %d\n%.300s", resp.StatusCode, body)
	}
	resp, err = http.Get(addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET / on the metrics address: %d, want 404", resp.StatusCode)
	}
}
