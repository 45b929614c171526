package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

// serveTracker serves the tracker (quiet) until the test ends and returns
// its URL.
func serveTracker(t *testing.T, cfg tracker.Config) string {
	t.Helper()
	nop := zerolog.Nop()
	cfg.Logger = &nop
	return testapp.Serve(t, tracker.New(cfg))
}

func TestSyncCommand(t *testing.T) {
	appURL := serveTracker(t, tracker.Config{Projects: 2, Tasks: 30})
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"sync", "--store", dsn, "--app", appURL, "--account", "token=demo", "--type", "project"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if !regexp.MustCompile(`unchanged`).MatchString(out.String()) || !regexp.MustCompile(`project\s+completed\s+full\s+1\s+2\s+2\s+0\s+0\s+0\s+0`).MatchString(out.String()) {
		t.Errorf("summary:\n%s", out.String())
	}
	// Not a terminal: JSON log lines.
	if !strings.Contains(errb.String(), `"type":"project"`) || !strings.Contains(errb.String(), `"done":true`) {
		t.Errorf("stderr:\n%s", errb.String())
	}
	// The second run needs only --store and --app; nothing changed: both
	// projects are unchanged, none updated.
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"sync", "--store", dsn, "--app", appURL}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !regexp.MustCompile(`project\s+completed\s+full\s+1\s+2\s+0\s+0\s+2\s+0\s+0`).MatchString(out.String()) || strings.Contains(out.String(), "task") {
		t.Errorf("second summary:\n%s", out.String())
	}
}

func TestSyncCommandFailures(t *testing.T) {
	appURL := serveTracker(t, tracker.Config{Projects: 1, Tasks: 1})
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--store", dsn}, 2, "--app is required"},
		{[]string{"--store", dsn, "--app", appURL, "--account", "token"}, 2, "want KEY=VALUE"},
		{[]string{"--store", dsn, "--app", appURL, "--account", "token=bad"}, 1, "account rejected: invalid token"},
		{[]string{"--store", dsn, "--app", appURL, "--account", "token=demo", "--type", "nope"}, 1, `the app has no type "nope"`},
		{[]string{"--store", dsn, "--app", appURL, "--account", "token=demo", "--filter", "status=Nope"}, 1, `filter rejected`},
		{[]string{"--store", dsn, "--app", "ftp://x"}, 1, "want http(s)://"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"sync"}, tc.args...), &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
}

// On a terminal each type gets one line, redrawn in place, finished with
// the counts.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := &progressLine{w: &b}
	p.event(syncer.Event{Type: "task", Pages: 1, Items: 500, Elapsed: time.Second})
	p.event(syncer.Event{Type: "task", Pages: 2, Items: 1000, Elapsed: time.Second}) // within 100 ms: skipped
	p.event(syncer.Event{Type: "task", Pages: 3, Items: 1500, Done: true, Elapsed: 2 * time.Second})
	got := b.String()
	lines := strings.Split(got, "\r\033[K")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "task ") || !strings.Contains(lines[1], "500 items") ||
		!strings.Contains(lines[2], "1500 items") || !strings.Contains(lines[2], "3 pages") || !strings.Contains(lines[2], "750 items/s") ||
		!strings.HasSuffix(got, "\n") || !strings.Contains(lines[2], strings.Repeat("█", 24)) {
		t.Errorf("progress output %q", got)
	}
}

// --full: a run that would be a delta asks every type in full (the
// summary's mode says so), then the next run is a delta again.
func TestSyncCommandFull(t *testing.T) {
	appURL := serveTracker(t, tracker.Config{Projects: 2, Tasks: 30})
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	sync := func(extra ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		args := append([]string{"sync", "--store", dsn, "--app", appURL, "--account", "token=demo", "--type", "task"}, extra...)
		if code := run(context.Background(), args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", extra, code, out.String(), errb.String())
		}
		return out.String()
	}
	mode := func(out string) string {
		m := regexp.MustCompile(`task\s+completed\s+(\w+)\s+\d+\s+(\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no task line in:\n%s", out)
		}
		return m[1] + " " + m[2]
	}
	for i, tc := range []struct {
		args []string
		want string // mode and items
	}{{nil, "full 30"}, {nil, "delta 0"}, {[]string{"--full"}, "full 30"}, {nil, "delta 0"}} {
		if got := mode(sync(tc.args...)); got != tc.want {
			t.Errorf("run %d %v: task %s, want %s", i+1, tc.args, got, tc.want)
		}
	}
}
