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
	if got := waitForAny(t, out, n, s); got != s {
		t.Fatalf("no %q (%d times) in:\n%s", s, n, out.String())
	}
}

// waitForAny waits until out holds one of ss n times and returns it.
func waitForAny(t *testing.T, out *testkit.Buffer, n int, ss ...string) string {
	t.Helper()
	timeout := time.NewTimer(5 * time.Minute)
	defer timeout.Stop()
	for {
		got, changed := out.Changes()
		for _, s := range ss {
			if strings.Count(got, s) >= n {
				return s
			}
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("none of %q (%d times) in:\n%s", ss, n, out.String())
		}
	}
}

// outcome waits for what the loop did after an app failed: the n-th
// "serves again" or "nothing serves".
func outcome(t *testing.T, out *testkit.Buffer, n int, again string) {
	t.Helper()
	if got := waitForAny(t, out, n, again, "nothing serves at "); got != again {
		t.Fatalf("want %q; the loop left nothing serving:\n%s", again, out.String())
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
	if err := waitEnded(t, ended, out); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "app stopped", 1)
	if _, err := http.Get(url); err == nil {
		t.Error("the app serves after the loop ended")
	}
}

// loopDeadline bounds the wait for Loop to return once its context ended,
// so that a Loop that misses the stop fails its test with a message, not
// go test's timeout.
const loopDeadline = 2 * time.Minute

// waitEnded waits for Loop's return on ended.
func waitEnded(t *testing.T, ended <-chan error, out *testkit.Buffer) error {
	t.Helper()
	select {
	case err := <-ended:
		return err
	case <-time.After(loopDeadline):
		t.Fatalf("Loop did not return within %s of its context's end: the stop was missed. Output:\n%s", loopDeadline, out.String())
		return nil
	}
}

// crashAtStart builds but exits before it serves.
const crashAtStart = `package main

import "os"

func main() {
	os.Stderr.WriteString("the configuration is wrong\n")
	os.Exit(2)
}
`

// exitOnRequest serves "short-lived" and exits (status 3) when /exit is
// asked for: an app that crashes after it started.
const exitOnRequest = `package main

import (
	"net"
	"net/http"
	"os"
)

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		panic(err)
	}
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/exit" {
			os.Exit(3)
		}
		w.Write([]byte("short-lived"))
	}))
}
`

// startLoop runs Loop on the module dir in the background.
func startLoop(t *testing.T, ctx context.Context, dir string) (out *testkit.Buffer, ready chan string, ended chan error, port int) {
	t.Helper()
	port, err := devloop.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	out = &testkit.Buffer{}
	ready = make(chan string, 10)
	ended = make(chan error, 1)
	go func() {
		ended <- devloop.Loop(ctx, devloop.Config{Dir: dir, BinDir: t.TempDir(), Port: port, Out: out, Quiet: 50 * time.Millisecond, Grace: time.Minute,
			Ready: func(ctx context.Context, url string) error { ready <- url; return nil }})
	}()
	return out, ready, ended, port
}

// answer is the body of GET url, or the error's text.
func answer(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		return "no answer: " + err.Error()
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return b.String()
}

// An edit that builds but exits before it serves leaves the last good
// app serving; an app that exits later, on its own, is replaced by the
// good build before it; both are said.
func TestLoop_crashedAppReplacedByTheLastGood(t *testing.T) {
	t.Parallel()
	needGo(t)
	dir := module(t, server)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, ready, ended, port := startLoop(t, ctx, dir)
	url := "http://127.0.0.1:" + itoa(port)
	main := filepath.Join(dir, "main.go")
	write := func(src string) {
		t.Helper()
		if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, out, "app running at "+url, 1)
	<-ready
	if got := answer(url); got != "hello" {
		t.Fatalf("the app answered %q", got)
	}

	write(crashAtStart)
	waitFor(t, out, "the new app did not start: the app exited before it answered", 1)
	outcome(t, out, 1, "the last good app serves again at "+url)
	if got := answer(url); got != "hello" {
		t.Fatalf("after an app that crashes at start, %s answered %q, want the last good app's hello\n%s", url, got, out.String())
	}

	write(exitOnRequest)
	waitFor(t, out, "app running at "+url, 3)
	<-ready
	if got := answer(url); got != "short-lived" {
		t.Fatalf("the new app answered %q", got)
	}
	answer(url + "/exit")
	waitFor(t, out, "the app exited while serving: exit status 3", 1)
	outcome(t, out, 1, "the previous good app serves again at "+url)
	if got := answer(url); got != "hello" {
		t.Fatalf("after the app exited, %s answered %q, want the previous good app's hello\n%s", url, got, out.String())
	}
	cancel()
	if err := waitEnded(t, ended, out); err != nil {
		t.Fatal(err)
	}
}

// A first build that crashes at start: the output says that nothing
// serves, and the next good edit serves.
func TestLoop_firstAppCrashes(t *testing.T) {
	t.Parallel()
	needGo(t)
	dir := module(t, crashAtStart)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, ready, ended, port := startLoop(t, ctx, dir)
	url := "http://127.0.0.1:" + itoa(port)
	waitFor(t, out, "the new app did not start", 1)
	waitFor(t, out, "nothing serves at "+url+" until a change builds an app that starts", 1)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(server), 0o644); err != nil {
		t.Fatal(err)
	}
	<-ready
	if got := answer(url); got != "hello" {
		t.Fatalf("after the fix, %s answered %q", url, got)
	}
	cancel()
	if err := waitEnded(t, ended, out); err != nil {
		t.Fatal(err)
	}
}

// A stop that comes before the first build (or during it) ends Loop, and
// no app is started.
func TestLoop_stopBeforeTheBuild(t *testing.T) {
	t.Parallel()
	needGo(t)
	for _, during := range []bool{false, true} {
		dir := module(t, server)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if !during {
			cancel()
		}
		out, _, ended, port := startLoop(t, ctx, dir)
		if during {
			waitFor(t, out, "building ", 1)
			cancel()
		}
		if err := waitEnded(t, ended, out); err != nil {
			t.Errorf("during the build %v: %v", during, err)
		}
		if strings.Contains(out.String(), "app running") {
			t.Errorf("during the build %v: an app was started after the stop:\n%s", during, out.String())
		}
		if got := answer("http://127.0.0.1:" + itoa(port)); !strings.HasPrefix(got, "no answer") {
			t.Errorf("during the build %v: something serves after the stop: %q", during, got)
		}
	}
}

// An app that cannot even be run (its binary gone) shows no output: not
// the last lines of an earlier app that did not start. Here the previous
// good build is removed, then the app serving exits: starting the previous
// one fails, and the crash at start before it is not printed again.
func TestLoop_startFailureShowsNoEarlierOutput(t *testing.T) {
	t.Parallel()
	needGo(t)
	dir := module(t, server)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, err := devloop.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	url := "http://127.0.0.1:" + itoa(port)
	bins := t.TempDir()
	out, appOut := &testkit.Buffer{}, &testkit.Buffer{}
	ended := make(chan error, 1)
	go func() {
		ended <- devloop.Loop(ctx, devloop.Config{Dir: dir, BinDir: bins, Port: port, Out: out, AppOutput: appOut, Tail: 5,
			Quiet: 50 * time.Millisecond, Grace: time.Minute})
	}()
	write := func(src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, out, "app running at "+url, 1) // app-1
	write(crashAtStart)                       // app-2
	waitFor(t, out, "the configuration is wrong", 1)
	outcome(t, out, 1, "the last good app serves again at "+url)
	write(exitOnRequest) // app-3; app-1 the previous good build
	waitFor(t, out, "app running at "+url, 3)
	if err := os.Remove(filepath.Join(bins, "app-1")); err != nil {
		t.Fatal(err)
	}
	answer(url + "/exit")
	waitFor(t, out, "the previous good app did not start again: start the app: ", 1)
	waitFor(t, out, "nothing serves at "+url, 1)
	cancel()
	if err := waitEnded(t, ended, out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Count(got, "the configuration is wrong") != 1 {
		t.Errorf("the output of the app that did not start is shown again for one that could not be run:\n%s", got)
	}
	if got := appOut.String(); strings.Contains(got, "==== appkit dev:") {
		t.Errorf("an output that is no log file (no AppLog) got marks of the app's starts:\n%s", got)
	}
}
