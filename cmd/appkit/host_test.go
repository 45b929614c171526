package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/testkit"
)

var listening = regexp.MustCompile(`listening on (http://[0-9.]+:[0-9]+)`)

// hostRun is "appkit host" running in-process.
type hostRun struct {
	stdout, stderr *testkit.Buffer
	cancel         context.CancelFunc // stops the host
	done           chan int           // its exit code
}

// launchHost starts "appkit host args..." in-process.
func launchHost(parent context.Context, args ...string) *hostRun {
	ctx, cancel := context.WithCancel(parent)
	h := &hostRun{stdout: &testkit.Buffer{}, stderr: &testkit.Buffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() { h.done <- run(ctx, append([]string{"host"}, args...), h.stdout, h.stderr) }()
	return h
}

// waitFor waits until the host's stdout matches re and returns the match.
// The test fails, and the host is stopped, if it exits first (its code is
// left on done) or a minute passes.
func (h *hostRun) waitFor(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.NewTimer(time.Minute) // a bound for a loaded machine
	defer deadline.Stop()
	for {
		out, changed := h.stdout.Changes()
		if m := re.FindStringSubmatch(out); m != nil {
			return m
		}
		select {
		case <-changed:
		case code := <-h.done:
			h.done <- code
			h.cancel()
			t.Fatalf("host exited with %d before printing %s\nstdout:\n%s\nstderr:\n%s", code, re, h.stdout.String(), h.stderr.String())
		case <-deadline.C:
			h.cancel()
			t.Fatalf("host printed nothing matching %s within a minute\nstdout:\n%s\nstderr:\n%s", re, h.stdout.String(), h.stderr.String())
		}
	}
}

// startHost runs "appkit host" in-process and returns its base URL and a
// function that stops it and returns the exit code.
func startHost(t *testing.T, args ...string) (base string, stop func() int, stderr *testkit.Buffer) {
	t.Helper()
	return startHostCtx(t, context.Background(), args...)
}

// startHostCtx is startHost with a context of the test's (a clock).
func startHostCtx(t *testing.T, parent context.Context, args ...string) (base string, stop func() int, stderr *testkit.Buffer) {
	t.Helper()
	h := launchHost(parent, args...)
	base = h.waitFor(t, listening)[1]
	stopped := false
	var code int
	stop = func() int {
		if !stopped {
			stopped = true
			h.cancel()
			select {
			case code = <-h.done:
			case <-time.After(20 * time.Second):
				t.Fatal("host did not stop")
			}
			if !strings.Contains(h.stdout.String(), "appkit host: stopped") {
				t.Errorf("stdout lacks the stop line: %q", h.stdout.String())
			}
		}
		return code
	}
	t.Cleanup(func() { stop() })
	return base, stop, h.stderr
}

// do sends req to the host with the API token (none when "") and returns
// the answer's status and body.
func do(t *testing.T, req *http.Request, token string) (int, []byte) {
	t.Helper()
	if token != "" {
		req.Header.Set("Authorization", "Token "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func post(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	code, b := do(t, req, token)
	return code, string(b)
}

func TestHostCommandServesAndStops(t *testing.T) {
	stores := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "host.db")}
	for name, dsn := range testkit.StoreDSNs(t) {
		if name != "sqlite" { // the in-memory SQLite store is covered by the file
			stores[name] = dsn
		}
	}
	for name, dsn := range stores {
		t.Run(name, func(t *testing.T) {
			const token = "cli-test-token-0042"
			args := []string{"--addr", "127.0.0.1:0", "--store", dsn, "--token", token, "--rate-limit", "0",
				"--admin-email", "ops@example.com", "--admin-password", "pw-for-tests"}
			base, stop, stderr := startHost(t, args...)
			code, body := post(t, base+"/api/commands", token, `[{"command":"platform.schema/query"}]`)
			if code != 200 || !strings.Contains(body, `"success":true`) {
				t.Fatalf("commands with --token: %d %s", code, body)
			}
			if code, body := post(t, base+"/api/commands", "", `[]`); code != 401 {
				t.Fatalf("commands without a token: %d %s", code, body)
			}
			if code, body := post(t, base+"/api/login", "", `{"email":"ops@example.com","password":"pw-for-tests"}`); code != 200 {
				t.Fatalf("login with the flag's password: %d %s", code, body)
			}
			if c := stop(); c != 0 {
				t.Fatalf("exit code %d:\n%s", c, stderr.String())
			}
			logs := stderr.String()
			if strings.Contains(logs, token) || strings.Contains(logs, "pw-for-tests") {
				t.Fatalf("a secret reached the logs:\n%s", logs)
			}
			if !strings.Contains(logs, `"path":"/api/commands"`) {
				t.Fatalf("no request log line:\n%s", logs)
			}
			// A restart on the same store keeps the token (registered once).
			base, stop, _ = startHost(t, args...)
			if code, body := post(t, base+"/api/commands", token, `[{"command":"platform.schema/query"}]`); code != 200 {
				t.Fatalf("after restart: %d %s", code, body)
			}
			stop()
		})
	}
}

func TestHostCommandRateLimitFlag(t *testing.T) {
	t.Parallel()
	// The host's clock stands still unless the test moves it: how fast the
	// machine sends the requests does not matter.
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ctx := context.WithValue(context.Background(), hostClockKey{}, clock)
	base, stop, _ := startHostCtx(t, ctx, "--addr", "127.0.0.1:0", "--store", "sqlite::memory:", "--token", "rl-token-0123456789", "--rate-limit", "1")
	defer stop()
	query := func() int {
		code, _ := post(t, base+"/api/commands", "rl-token-0123456789", `[{"command":"platform.schema/query"}]`)
		return code
	}
	if code := query(); code != 200 {
		t.Fatalf("first request: %d", code)
	}
	if code := query(); code != 429 {
		t.Fatalf("second request in the same second with --rate-limit 1: %d", code)
	}
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	if code := query(); code != 200 {
		t.Fatalf("a request a second later: %d", code)
	}
	if code := query(); code != 429 {
		t.Fatalf("the next in that second: %d", code)
	}
}

func TestHostCommandUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined"},
		{"stray argument", []string{"extra"}, 2, "unexpected arguments"},
		{"negative rate", []string{"--rate-limit", "-1"}, 2, "0 or positive"},
		{"bad store", []string{"--store", "mysql://x", "--addr", "127.0.0.1:0"}, 1, "unsupported DSN"},
		{"bad address", []string{"--store", "sqlite::memory:", "--addr", "256.0.0.1:-5"}, 1, "appkit host:"},
		{"bad token", []string{"--store", "sqlite::memory:", "--token", "has space"}, 2, "--token"},
		{"one-letter token", []string{"--store", "sqlite::memory:", "--token", "a"}, 2, "--token: auth: invalid argument: the token has 1 characters; use at least 16"},
		{"15-character token", []string{"--store", "sqlite::memory:", "--token", "fifteen-chars-x"}, 2, "use at least 16"},
		{"one-letter password", []string{"--store", "sqlite::memory:", "--admin-password", "a"}, 2, "--admin-password: auth: invalid argument: the password has 1 characters; use at least 12"},
		{"11-character password", []string{"--store", "sqlite::memory:", "--admin-password", "eleven-char"}, 2, "use at least 12"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"host"}, tc.args...), &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.msg) {
				t.Fatalf("exit %d, stderr %q; want %d with %q", code, errb.String(), tc.code, tc.msg)
			}
		})
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"host", "--help"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "--rate-limit") ||
		!strings.Contains(errb.String(), "--app-networks") || !strings.Contains(errb.String(), "public,private,loopback") {
		t.Fatalf("--help: %d %q", code, errb.String())
	}
}
