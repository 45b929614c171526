package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
)

// env is the getenv of the given KEY, VALUE pairs.
var env = appkittest.Env

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      func(string) string
		addr     string
		projects int
		tasks    int
		err      string
	}{
		{"defaults", env(), ":8080", 10, 500, ""},
		{"port", env("PORT", "9000"), ":9000", 10, 500, ""},
		{"sizes", env("TRACKER_PROJECTS", "3", "TRACKER_TASKS", "1000000"), ":8080", 3, 1_000_000, ""},
		{"bad port", env("PORT", "http"), "", 0, 0, "PORT"},
		{"port out of range", env("PORT", "70000"), "", 0, 0, "PORT"},
		{"zero tasks", env("TRACKER_TASKS", "0"), "", 0, 0, "TRACKER_TASKS"},
		{"too many projects", env("TRACKER_PROJECTS", "100001"), "", 0, 0, "TRACKER_PROJECTS"},
		{"not a number", env("TRACKER_TASKS", "1e6"), "", 0, 0, "TRACKER_TASKS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, cfg, err := config(tc.env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil || addr != tc.addr || cfg.Projects != tc.projects || cfg.Tasks != tc.tasks {
				t.Errorf("got %q %+v %v", addr, cfg, err)
			}
		})
	}
}

// TestRun serves on $PORT and answers the descriptor, then stops when the
// context is cancelled.
func TestRun(t *testing.T) {
	m := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		return run(ctx, env("TRACKER_TASKS", "20"), io.Discard, l)
	})
	if !strings.Contains(m.Descriptor, `"name":"Tracker"`) {
		t.Errorf("GET / = %s", m.Descriptor)
	}
	if err := m.Stop(); err != nil {
		t.Errorf("run: %v", err)
	}
	if err := run(context.Background(), env("PORT", "x"), io.Discard, nil); err == nil {
		t.Error("run with a bad PORT: want an error")
	}
}

// TestRunObserved: with METRICS_ADDR the app serves its metrics there,
// counting its data requests and the items they answered, and /healthz on
// its own port.
func TestRunObserved(t *testing.T) {
	var log syncBuffer
	m := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		return run(ctx, env("TRACKER_TASKS", "20", "METRICS_ADDR", "127.0.0.1:0"), &log, l)
	})
	defer m.Stop()
	metrics := regexp.MustCompile(`metrics at (http://\S+)`).FindStringSubmatch(log.String())
	if metrics == nil {
		t.Fatalf("no metrics address in %q", log.String())
	}
	get := func(url string, body string) string {
		t.Helper()
		var resp *http.Response
		var err error
		if body == "" {
			resp, err = http.Get(url)
		} else {
			resp, err = http.Post(url, "application/json", strings.NewReader(body))
		}
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", url, resp.StatusCode, b)
		}
		return string(b)
	}
	if got := get(m.URL+"/healthz", ""); got != "ok\n" {
		t.Errorf("/healthz: %q", got)
	}
	get(m.URL+"/api/v1/synchronizer/data", `{"requestedType":"task","types":["task"],"account":{"token":"demo"}}`)
	text := get(metrics[1], "")
	for _, want := range []string{`appkit_app_requests_total{endpoint="/api/v1/synchronizer/data",status="200"} 1`, `appkit_app_items_total{type="task"} 20`, "go_goroutines"} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// syncBuffer is a log the app writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
