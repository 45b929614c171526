package appkittest_test

import (
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

// The test of an app: the harness drives it as the service does, checking
// every page and item against the schema, and fails the test on any break.
// (The function below is what goes in the app's _test.go file.)
func ExampleNew() {
	testApp := func(t *testing.T) {
		c := appkittest.New(t, tracker.New(tracker.Config{}))
		c.Account = map[string]any{"token": tracker.DemoToken}
		if r := c.Validate("token"); r.Status != 200 {
			t.Fatalf("validate = %d %s", r.Status, r.Message())
		}
		tasks := c.SyncAll(appkittest.Run{Type: "task"}) // every page, following nextPageConfig
		if len(tasks) == 0 {
			t.Fatal("no tasks")
		}
		delta := c.Sync(appkittest.Run{Type: "task", LastSynchronizedAt: time.Now().Add(-24 * time.Hour)})
		if delta[0].SynchronizationType != "delta" {
			t.Errorf("a run with lastSynchronizedAt answered %s", delta[0].SynchronizationType)
		}
		projects := c.Datalist(tracker.FilterProjects, nil)
		if r := c.ValidateFilter(map[string]any{"projects": []any{projects[0].Value}}, "task"); r.Status != 204 {
			t.Errorf("filter/validate = %d %s", r.Status, r.Message())
		}
	}
	_ = testApp
}

// The test of an app's main function, unchanged: it is started on a free
// $PORT and stopped as SIGTERM would stop it when the test ends.
func ExampleMain() {
	testMain := func(t *testing.T, main func()) {
		s := appkittest.Main(t, main, "TRACKER_TASKS", "100")
		t.Logf("serving at %s: %s", s.URL, s.Descriptor)
	}
	_ = testMain
}
