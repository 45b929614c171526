package devloop_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/devloop"
	"github.com/appkitgo/appkit/internal/testkit"
)

// waitFor waits until out holds s n times.
func waitFor(t *testing.T, out *testkit.Buffer, s string, n int) {
	t.Helper()
	timeout := time.NewTimer(5 * time.Minute)
	defer timeout.Stop()
	for {
		got, changed := out.Changes()
		if strings.Count(got, s) >= n {
			return
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("no %q (%d times) in:\n%s", s, n, out.String())
		}
	}
}

// The loop builds and runs the app and calls Ready; an edit rebuilds and
// restarts it; a syntax error is reported and the last good app keeps
// serving; the next good edit restarts it; the end of ctx stops it.
func TestLoop(t *testing.T) {
	t.Parallel()
	needGo(t)
	dir := module(t, server)
	port, err := devloop.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	out := &testkit.Buffer{} // the loop's output, which the test waits on
	ready := make(chan string, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		ended <- devloop.Loop(ctx, devloop.Config{Dir: dir, BinDir: t.TempDir(), Port: port, Out: out, Quiet: 50 * time.Millisecond, Grace: time.Minute,
			Ready: func(ctx context.Context, url string) error { ready <- url; return nil }})
	}()
	next := func() string {
		t.Helper()
		select {
		case u := <-ready:
			return u
		case <-time.After(5 * time.Minute):
			t.Fatalf("Ready not called:\n%s", out.String())
			return ""
		}
	}
	url := next()
	get := func() string {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatalf("the app does not serve: %v\n%s", err, out.String())
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return b.String()
	}
	if got := get(); got != "hello" {
		t.Fatalf("the app answered %q", got)
	}
	main := filepath.Join(dir, "main.go")
	write := func(src string) {
		t.Helper()
		if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(strings.Replace(server, `"hello"`, `"hello again"`, 1))
	if u := next(); u != url || get() != "hello again" {
		t.Fatalf("after an edit: %s answered %q", u, get())
	}
	write(server + "\nfunc {\n")
	waitFor(t, out, "build failed:", 1)
	waitFor(t, out, "syntax error", 1)
	waitFor(t, out, "the last good app keeps serving at "+url, 1)
	if got := get(); got != "hello again" {
		t.Fatalf("the last good app answered %q", got)
	}
	write(strings.Replace(server, `"hello"`, `"hello, fixed"`, 1))
	if next(); get() != "hello, fixed" {
		t.Fatalf("after the fix: %q", get())
	}
	cancel()
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "app stopped", 1)
	if _, err := http.Get(url); err == nil {
		t.Error("the app serves after the loop ended")
	}
}
