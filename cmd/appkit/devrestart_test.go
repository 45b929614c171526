package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// startDevSession runs "appkit dev" with args until stop is called, which
// waits for its exit and returns its stdout.
func startDevSession(t *testing.T, args ...string) (out *lineWaiter, stop func() string) {
	t.Helper()
	out, errOut := &lineWaiter{}, &lineWaiter{}
	var stdout io.Writer = out
	if testing.Verbose() {
		stdout = io.MultiWriter(out, os.Stdout)
	}
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	go func() { exited <- run(ctx, append([]string{"dev"}, args...), stdout, errOut) }()
	stopped := false
	stop = func() string {
		t.Helper()
		if !stopped {
			stopped = true
			cancel()
			if code := <-exited; code != 0 {
				t.Errorf("appkit dev: exit %d\nstderr (tail):\n%s", code, tail(errOut.String(), 3000))
			}
		}
		return out.String()
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr (tail):\n%s", out.String(), tail(errOut.String(), 3000))
		}
		stop()
	})
	return out, stop
}

// "appkit dev" sessions in a row on one file store: the second runs the
// app on another port, its registration moves there and it syncs again
// with the same account and sync, its result printed; a third with --full
// runs a full refresh.
func TestDevSecondSessionSyncsAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a new module twice")
	}
	root := checkoutWithGo(t)
	t.Setenv("GOFLAGS", "-mod=mod -buildvcs=false")
	t.Setenv("GOWORK", "off")
	dir := filepath.Join(t.TempDir(), "my-notes")
	var newOut, newErr bytes.Buffer
	if code := run(context.Background(), []string{"new", "my-notes", "--dir", dir, "--replace", root}, &newOut, &newErr); code != 0 {
		t.Fatalf("appkit new: exit %d\n%s", code, newErr.String())
	}
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "dev.db")
	args := []string{dir, "--addr", "127.0.0.1:0", "--store", dsn, "--account", "token=demo"}

	out, stop := startDevSession(t, args...)
	firstApp := out.waitFor(t, regexp.MustCompile(`app running at (http://\S+)`))[1]
	out.waitFor(t, regexp.MustCompile(`synced in `))
	out.waitFor(t, regexp.MustCompile(`note\s+completed\s+120\s+0\s+0\s+0\s+0\n`))
	stop()
	// The first session's port is held: the second runs the app on
	// another one, as after a restart.
	if ln, err := net.Listen("tcp", strings.TrimPrefix(firstApp, "http://")); err == nil {
		defer ln.Close()
	} else {
		t.Logf("the first session's port is not held: %v", err)
	}

	out, stop = startDevSession(t, args...)
	secondApp := out.waitFor(t, regexp.MustCompile(`app running at (http://\S+)`))[1]
	out.waitFor(t, regexp.MustCompile(`synced in \d+\S*\n`))
	out.waitFor(t, regexp.MustCompile(`note\s+completed\s+0\s+\d+\s+\d+\s+0\s+0\n`))
	second := stop()
	if firstApp == secondApp {
		t.Logf("both sessions ran the app at %s", firstApp)
	}
	// A third session with --full: a full refresh, said so.
	out, stop = startDevSession(t, append(args, "--full")...)
	out.waitFor(t, regexp.MustCompile(`synced in \S+ \(a full refresh\)\n`))
	out.waitFor(t, regexp.MustCompile(`note\s+completed\s+0\s+\d+\s+\d+\s+0\s+0\n`))
	third := stop()
	for _, bad := range []string{"conflict", "already registered", "sync paused", "account \"Demo account\" set up"} {
		if strings.Contains(second, bad) || strings.Contains(third, bad) {
			t.Errorf("a later session says %q", bad)
		}
	}
}
