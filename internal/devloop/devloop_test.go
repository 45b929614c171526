package devloop_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/devloop"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// server is a program that answers on $PORT and ends on SIGTERM, unless
// STUBBORN is set.
const server = `package main

import (
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		panic(err)
	}
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	if os.Getenv("STUBBORN") != "" {
		signal.Ignore(syscall.SIGTERM, os.Interrupt)
		select {}
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, os.Interrupt)
	<-c
	os.Stdout.WriteString("bye\n")
}
`

func module(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/srv\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
}

// A refused build returns the compiler's messages as a *BuildError.
func TestBuildError(t *testing.T) {
	t.Parallel()
	needGo(t)
	dir := module(t, "package main\n\nfunc main() {\n")
	err := devloop.Build(t.Context(), dir, filepath.Join(t.TempDir(), "app"))
	var be *devloop.BuildError
	if !errors.As(err, &be) || !strings.Contains(be.Output, "main.go:4:1: syntax error") || !strings.Contains(err.Error(), "main.go:4:1") {
		t.Fatalf("Build of a broken package: %v", err)
	}
}

// The built app runs with $PORT, answers, and stops at SIGTERM; one that
// ignores it is killed after the grace time.
func TestStartStop(t *testing.T) {
	t.Parallel()
	needGo(t)
	if os.Getenv("GOOS") == "windows" {
		t.Skip("no SIGTERM")
	}
	dir := module(t, server)
	bin := filepath.Join(t.TempDir(), "app")
	if err := devloop.Build(t.Context(), dir, bin); err != nil {
		t.Fatal(err)
	}
	for _, stubborn := range []bool{false, true} {
		port, err := devloop.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		env := os.Environ()
		if stubborn {
			env = append(env, "STUBBORN=1")
		}
		p, err := devloop.Start(bin, dir, port, env, &testkit.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		if err := devloop.WaitReady(ctx, p, "http://127.0.0.1:"+itoa(port)); err != nil {
			t.Fatal(err)
		}
		cancel()
		p.Stop(200 * time.Millisecond)
		select {
		case <-p.Done():
		default:
			t.Fatal("Stop returned before the app ended")
		}
		graceful := p.Err() == nil
		if graceful == stubborn {
			t.Errorf("stubborn %v: exit %v", stubborn, p.Err())
		}
	}
}

// An app that exits before it answers is reported at once.
func TestWaitReadyExited(t *testing.T) {
	t.Parallel()
	needGo(t)
	dir := module(t, "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(3) }\n")
	bin := filepath.Join(t.TempDir(), "app")
	if err := devloop.Build(t.Context(), dir, bin); err != nil {
		t.Fatal(err)
	}
	port, _ := devloop.FreePort()
	p, err := devloop.Start(bin, dir, port, nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := devloop.WaitReady(ctx, p, "http://127.0.0.1:"+itoa(port)); !errors.Is(err, devloop.ErrExited) {
		t.Fatalf("WaitReady = %v, want ErrExited", err)
	}
}

func trackerURL(t *testing.T) string {
	t.Helper()
	nop := zerolog.Nop()
	return testapp.Serve(t, tracker.New(tracker.Config{Projects: 2, Tasks: 5, Logger: &nop}))
}

// The fast subset: the descriptor, account, config and schema checks, no
// data pages.
func TestCheck(t *testing.T) {
	t.Parallel()
	results, err := devloop.Check(t.Context(), trackerURL(t), "", map[string]any{"token": tracker.DemoToken}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range results {
		seen[strings.SplitN(r.ID, ".", 2)[0]] = true
		if r.Status == conformance.Failed {
			t.Errorf("failed: %s: %s / %s", r.Name(), r.Expected, r.Got)
		}
	}
	if !seen["descriptor"] || !seen["schema"] || !seen["sync"] || seen["data"] || seen["errors"] || seen["webhooks"] {
		t.Errorf("checks of %v", seen)
	}
	// A wrong account fails accounts.validate.
	results, err = devloop.Check(t.Context(), trackerURL(t), "", map[string]any{"token": "wrong"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	failed := false
	for _, r := range results {
		failed = failed || (r.ID == conformance.CheckValidateAccount && r.Status == conformance.Failed)
	}
	if !failed {
		t.Errorf("a wrong account passed: %+v", results)
	}
}

// A snapshot names items and fields as the app does, relations by the
// target's id; Changes finds what a run changed.
func TestTakeSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := teststore.Open(t, "sqlite::memory:")
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: trackerURL(t), Account: map[string]string{"token": tracker.DemoToken}, Types: []string{"project", "task"}}); err != nil {
		t.Fatal(err)
	}
	before, err := devloop.TakeSnapshot(ctx, st, "tracker")
	if err != nil {
		t.Fatal(err)
	}
	if len(before["tracker/project"]) != 2 || len(before["tracker/task"]) != 5 {
		t.Fatalf("snapshot %v", before)
	}
	for id, task := range before["tracker/task"] {
		if _, ok := before["tracker/project"][task["project"]]; !ok || task["name"] == "" {
			t.Errorf("task %s: %v (projects %v)", id, task, before["tracker/project"])
		}
	}
	cat, err := st.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pt := cat.Type("tracker/project")
	for id := range before["tracker/project"] {
		if _, err := st.DB().ExecContext(ctx, "UPDATE "+pt.Table+" SET "+pt.Field("tracker.project/name").Col+" = 'renamed' WHERE "+
			pt.Field("tracker.project.sync/app-id").Col+" = ?", id); err != nil {
			t.Fatal(err)
		}
		break
	}
	after, err := devloop.TakeSnapshot(ctx, st, "tracker")
	if err != nil {
		t.Fatal(err)
	}
	ch := devloop.Changes(before, after, 3)
	if len(ch) != 1 || ch[0].Type != "tracker/project" || len(ch[0].Fields) != 1 || ch[0].Fields[0].Field != "name" || ch[0].Fields[0].New != "renamed" {
		t.Errorf("changes %+v", ch)
	}
}

// hostEcho listens on $HOST:$PORT and answers its $HOST.
const hostEcho = `package main

import (
	"net"
	"net/http"
	"os"
)

func main() {
	l, err := net.Listen("tcp", net.JoinHostPort(os.Getenv("HOST"), os.Getenv("PORT")))
	if err != nil {
		panic(err)
	}
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(os.Getenv("HOST"))) }))
}
`

// The app is started with HOST=127.0.0.1, whatever the environment says:
// an app reading its address with appkit.ListenAddr listens on this
// machine only.
func TestStartSetsLoopbackHost(t *testing.T) {
	t.Parallel()
	needGo(t)
	dir := module(t, hostEcho)
	bin := filepath.Join(t.TempDir(), "app")
	if err := devloop.Build(t.Context(), dir, bin); err != nil {
		t.Fatal(err)
	}
	port, err := devloop.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p, err := devloop.Start(bin, dir, port, append(os.Environ(), "HOST=0.0.0.0"), &testkit.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Minute)
	url := "http://127.0.0.1:" + itoa(port)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := devloop.WaitReady(ctx, p, url); err != nil {
		t.Fatal(err)
	}
	if got := answer(url); got != "127.0.0.1" {
		t.Fatalf("the app got HOST=%q, want 127.0.0.1", got)
	}
}
