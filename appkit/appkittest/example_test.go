package appkittest_test

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

// The test of an app: the harness drives it as the service does, checking
// every page and item against the schema, and fails the test on any break.
// (The body of testApp is what goes in the app's _test.go file; the example
// runs it with a stand-in for *testing.T that prints each failure.)
func ExampleNew() {
	testApp := func(t testing.TB) {
		now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		c := appkittest.New(t, tracker.New(tracker.Config{Projects: 3, Tasks: 250, Now: func() time.Time { return now }}))
		c.Account = map[string]any{"token": tracker.DemoToken}
		if r := c.Validate("token"); r.Status != 200 {
			t.Fatalf("validate = %d %s", r.Status, r.Message())
		}
		tasks := c.SyncAll(appkittest.Run{Type: "task"}) // every page, following nextPageConfig
		fmt.Println("tasks:", len(tasks))                // of 250: one was deleted before now
		delta := c.Sync(appkittest.Run{Type: "task", LastSynchronizedAt: now.Add(-24 * time.Hour)})
		fmt.Println("with lastSynchronizedAt:", delta[0].SynchronizationType)
		projects := c.Datalist(tracker.FilterProjects, nil)
		r := c.ValidateFilter(map[string]any{"projects": []any{projects[0].Value}}, "task")
		fmt.Println("filter/validate:", r.Status)
	}
	fmt.Println("failures:", runExample(testApp))
	// Output:
	// tasks: 249
	// with lastSynchronizedAt: delta
	// filter/validate: 204
	// failures: []
}

// The test of an app's main logic: serve is the function the app's main
// calls with a nil listener (listen on $PORT); the test gives it one open on
// a free loopback port and stops it as SIGTERM would.
func ExampleServeMain() {
	quiet := zerolog.Nop()
	serve := func(ctx context.Context, l net.Listener) error {
		app := tracker.New(tracker.Config{Tasks: 100})
		app.Logger = &quiet
		return appkit.ServeListener(ctx, l, app)
	}
	testMain := func(t testing.TB) {
		s := appkittest.ServeMain(t, serve)
		fmt.Println("descriptor names the app:", strings.Contains(s.Descriptor, `"name":"Tracker"`))
		fmt.Println("stopped:", s.Stop())
	}
	fmt.Println("failures:", runExample(testMain))
	// Output:
	// descriptor names the app: true
	// stopped: <nil>
	// failures: []
}

// exampleT stands in for *testing.T in the examples: it collects failures
// and runs cleanups; Fatal ends the test function as testing does.
type exampleT struct {
	testing.TB
	failures []string
	cleanups []func()
}

func (t *exampleT) Helper()             {}
func (t *exampleT) Name() string        { return "Example" }
func (t *exampleT) Cleanup(fn func())   { t.cleanups = append(t.cleanups, fn) }
func (t *exampleT) Failed() bool        { return len(t.failures) > 0 }
func (t *exampleT) Logf(string, ...any) {}
func (t *exampleT) Errorf(format string, args ...any) {
	t.failures = append(t.failures, fmt.Sprintf(format, args...))
}
func (t *exampleT) FailNow()                          { runtime.Goexit() }
func (t *exampleT) Fatalf(format string, args ...any) { t.Errorf(format, args...); t.FailNow() }

// runExample runs test as go test runs a test function, and returns its
// failures.
func runExample(test func(t testing.TB)) []string {
	t := &exampleT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			for i := len(t.cleanups) - 1; i >= 0; i-- {
				t.cleanups[i]()
			}
		}()
		test(t)
	}()
	<-done
	if t.failures == nil {
		return []string{}
	}
	return t.failures
}

func ExampleEnv() {
	getenv := appkittest.Env("PORT", "9001", "APP_MODE", "demo")
	fmt.Printf("%q %q %q\n", getenv("PORT"), getenv("APP_MODE"), getenv("UNSET"))
	// Output: "9001" "demo" ""
}
