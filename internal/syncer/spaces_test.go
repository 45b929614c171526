package syncer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// TestSyncsOfOneAppInSpacesOfTheirOwn: two synchronizations of the tracker
// with different filters, each into its own space of one store, keep
// exactly their own entities through full runs: a full run of one removes
// what it delivered before and not now, never what the other delivered,
// and its tasks' relations point at its own projects.
func TestSyncsOfOneAppInSpacesOfTheirOwn(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		cfg := tracker.Config{Projects: 4, Tasks: 400}
		appURL := serveTracker(t, cfg)
		st := teststore.Open(t, dsn)
		ds := tracker.DatasetOf(cfg)
		tasksOf := func(p int) int {
			n := 0
			for j := 1; j <= ds.Tasks; j++ {
				if task := ds.Task(j, trackerNow); task.Live(trackerNow) && task.ProjectID == ds.Project(p).ID {
					n++
				}
			}
			return n
		}
		run := func(space string, project int) *syncer.Report {
			t.Helper()
			rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: appURL, Account: map[string]string{"token": "demo"}, Space: space,
				Types: []string{"project", "task"}, Now: func() time.Time { return trackerNow },
				Filter: map[string][]string{"projects": {ds.Project(project).Name}}})
			if err != nil {
				t.Fatalf("run of %s: %v", space, err)
			}
			return rep
		}
		if rep := run("", 1); rep.Space != "tracker" {
			t.Fatalf("the app's own space: %q", rep.Space)
		}
		if rep := run("tracker-b", 2); rep.Space != "tracker-b" {
			t.Fatalf("the given space: %q", rep.Space)
		}
		a, b := teststore.Count(t, st, "tracker/task"), teststore.Count(t, st, "tracker-b/task")
		if a != tasksOf(1) || b != tasksOf(2) || a == 0 || b == 0 {
			t.Fatalf("tasks: %d and %d, want %d and %d", a, b, tasksOf(1), tasksOf(2))
		}
		// Relations resolve within each space: every task links to a
		// project of its own space.
		projects := rows(t, st, "tracker-b/project")
		for id, task := range rows(t, st, "tracker-b/task") {
			if projects[fmt.Sprint(task["project"])] == nil {
				t.Fatalf("task %s links to %v, not to a project of its space", id, task["project"])
			}
		}
		// A full run of the first with another project removes its old
		// tasks only.
		run("", 3)
		if got := teststore.Count(t, st, "tracker/task"); got != tasksOf(3) {
			t.Errorf("tracker after its new filter: %d tasks, want %d", got, tasksOf(3))
		}
		if got := teststore.Count(t, st, "tracker-b/task"); got != b {
			t.Errorf("tracker-b lost entities to tracker's full run: %d, want %d", got, b)
		}
		run("tracker-b", 2)
		if got := teststore.Count(t, st, "tracker-b/task"); got != b {
			t.Errorf("tracker-b after its own second run: %d, want %d", got, b)
		}
		_, err := syncer.Run(ctx, st, syncer.Options{AppURL: appURL, Account: map[string]string{"token": "demo"}, Space: "Not A Space",
			Types: []string{"project"}, Now: func() time.Time { return trackerNow }})
		if err == nil || !strings.Contains(err.Error(), `space "Not A Space"`) {
			t.Errorf("an invalid space: %v", err)
		}
	})
}

func TestValidSpace(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"tracker": true, "tracker-2": true, "a": true, "x1-y2": true, strings.Repeat("a", 60): true,
		"": false, "Tracker": false, "tracker 2": false, "-tracker": false, "tracker-": false, "a--b/c": false,
		"tracker/task": false, strings.Repeat("a", 61): false, "träcker": false,
	} {
		if got := syncer.ValidSpace(s); got != want {
			t.Errorf("ValidSpace(%q) = %v, want %v", s, got, want)
		}
	}
}
