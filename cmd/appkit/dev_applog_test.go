package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// newDevApp writes an app with "appkit new" (my-notes, on this checkout)
// for an "appkit dev" session and returns its directory.
func newDevApp(t *testing.T) string {
	t.Helper()
	root := checkoutWithGo(t)
	// The new module has no go.sum yet: -mod=mod fills it from the module
	// cache, as "go mod tidy" would.
	t.Setenv("GOFLAGS", "-mod=mod -buildvcs=false")
	t.Setenv("GOWORK", "off")
	dir := filepath.Join(t.TempDir(), "my-notes")
	var newOut, newErr bytes.Buffer
	if code := run(context.Background(), []string{"new", "my-notes", "--dir", dir, "--replace", root}, &newOut, &newErr); code != 0 {
		t.Fatalf("appkit new: exit %d\n%s", code, newErr.String())
	}
	return dir
}

// devRun is an "appkit dev" session a test runs in the background, with
// its stdout and stderr.
type devRun struct {
	out, errOut *lineWaiter
	// stop ends the session (as Ctrl-C), waits for its end and fails the
	// test when it did not end well.
	stop func()
}

// startDev runs "appkit dev" with args, its keys read from in (nil: none),
// until the test ends or stop is called.
func startDev(t *testing.T, in io.Reader, args ...string) *devRun {
	t.Helper()
	r := &devRun{out: &lineWaiter{}, errOut: &lineWaiter{}}
	var stdout io.Writer = r.out
	if testing.Verbose() {
		stdout = io.MultiWriter(r.out, os.Stdout) // progress of a slow run, as it goes
	}
	d, err := newDevSession(args, stdout, r.errOut)
	if err != nil {
		t.Fatal(err)
	}
	d.input = in
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan error, 1)
	go func() { exited <- d.run(ctx) }()
	stopped := false
	r.stop = func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-exited; err != nil {
			t.Errorf("appkit dev: %v", err)
		}
	}
	t.Cleanup(func() {
		r.stop()
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr (tail):\n%s", r.out.String(), tail(r.errOut.String(), 3000))
		}
	})
	return r
}

// The app's output goes to a file beside the store (said once, at the
// start), not to the terminal; an app that exits at its start has its
// last lines printed with the loop's messages, and the last good app
// serves again. With --app-log - the output is on stderr as before.
func TestDevAppLog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a new module")
	}
	dir := newDevApp(t)
	t.Run("file", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "dev.db")
		r := startDev(t, nil, dir, "--addr", "127.0.0.1:0", "--store", "sqlite:"+db, "--account", "token=demo")
		logPath := db + ".app.log"
		r.out.waitFor(t, regexp.MustCompile(`appkit dev: the app's output goes to `+regexp.QuoteMeta(logPath)+` \(--app-log - shows it here\)\n`))
		r.out.waitFor(t, regexp.MustCompile(`note\s+completed\s+120\s+0\s+0\s+0\s+0\n`))
		b, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "==== appkit dev: app-1 started at ") || !strings.Contains(string(b), "my-notes: MY_NOTES_API_URL is not set") || !strings.Contains(string(b), `"/api/v1/synchronizer/data"`) {
			t.Errorf("the app log holds:\n%s", tail(string(b), 3000))
		}
		for _, w := range []*lineWaiter{r.out, r.errOut} {
			if s := w.String(); strings.Contains(s, "MY_NOTES_API_URL is not set") || strings.Contains(s, `"/api/v1/synchronizer/data"`) {
				t.Errorf("the app's output is on the terminal:\n%s", tail(s, 3000))
			}
		}

		// An app that exits at its start: its last lines are printed.
		editFile(t, filepath.Join(dir, "main.go"), "func main() {", "func main() {\n\tfmt.Fprintln(os.Stderr, \"the configuration is wrong\")\n\tos.Exit(2)")
		r.out.waitFor(t, regexp.MustCompile(`the new app did not start: `))
		r.out.waitFor(t, regexp.MustCompile(`appkit dev: the app's last output \(all of it in `+regexp.QuoteMeta(logPath)+`\):\n(  \| .*\n)*  \| the configuration is wrong\n`))
		r.out.waitFor(t, regexp.MustCompile(`the last good app serves again at `))
		editFile(t, filepath.Join(dir, "main.go"), "\n\tfmt.Fprintln(os.Stderr, \"the configuration is wrong\")\n\tos.Exit(2)", "")
		r.out.waitFor(t, regexp.MustCompile(`synced in `))
		r.stop()
	})
	t.Run("stderr", func(t *testing.T) {
		r := startDev(t, nil, dir, "--addr", "127.0.0.1:0", "--store", "sqlite::memory:", "--account", "token=demo", "--app-log", "-")
		r.out.waitFor(t, regexp.MustCompile(`note\s+completed\s+120\s+0\s+0\s+0\s+0\n`))
		r.errOut.waitFor(t, regexp.MustCompile(`my-notes: MY_NOTES_API_URL is not set`))
		r.stop()
		if strings.Contains(r.out.String(), "the app's output goes to") {
			t.Errorf("with --app-log -, dev names a log file:\n%s", r.out.String())
		}
	})
}

// Without --app-log the app's log is beside a file store, else under the
// user's cache directory, named after the module as the default store.
func TestDefaultDevAppLog(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv("LocalAppData", cache)
	root := filepath.Join(t.TempDir(), "my notes")
	store, err := defaultDevStore(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dsn, want string }{
		{"sqlite:/tmp/x/dev.db", "/tmp/x/dev.db.app.log"},
		{store, strings.TrimPrefix(store, "sqlite:") + ".app.log"},
		{"sqlite::memory:", strings.TrimSuffix(strings.TrimPrefix(store, "sqlite:"), ".db") + ".app.log"},
		{"postgres://u@h/db", strings.TrimSuffix(strings.TrimPrefix(store, "sqlite:"), ".db") + ".app.log"},
	} {
		got, err := defaultDevAppLog(tc.dsn, root)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.dsn, got, err, tc.want)
		}
	}
}
