package graphql

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// The schema of a space made by the sync engine from a real app (the
// tracker example): the names a user sees, and the queries of
// docs/host.md's GraphQL section.
func TestTrackerApp(t *testing.T) {
	t.Parallel()
	now := tracker.Epoch.Add(200 * 24 * time.Hour)
	nop := zerolog.Nop()
	h, err := tracker.New(tracker.Config{Projects: 3, Tasks: 40, Logger: &nop, Now: func() time.Time { return now }}).Handler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	forEachStore(t, func(t *testing.T, st *store.Store) {
		if _, err := syncer.Run(context.Background(), st, syncer.Options{AppURL: srv.URL, Account: map[string]string{"token": "demo"}, Now: func() time.Time { return now }}); err != nil {
			t.Fatal(err)
		}
		svc := mustNew(t, Config{Store: st})
		sdl, err := svc.SDL(context.Background(), "tracker")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"findTasks(", "findProjects(", "type Task {", "priority: Int", "status: Option", "project: Project", "description: RichText", "tasks(id: IDFilter"} {
			if !strings.Contains(sdl, want) {
				t.Errorf("the tracker's schema has no %q", want)
			}
		}
		got := run(t, svc, "tracker", `{ findTasks(status: {name: {is: "todo"}}, orderBy: {name: ASC}, limit: 2) { name status { name } project { name } } }`, nil)
		if strings.Contains(got, "errors") || strings.Count(got, `"status":{"name":"todo"}`) != 2 {
			t.Errorf("docs/host.md's query: %s", got)
		}
		got = run(t, svc, "tracker", `mutation { tasks(limit: 1, orderBy: {name: ASC}) { update(priority: 2) { message } addComment(value: "checked by {{me.email}}") { message } listEntities { priority comments { md } } } }`, nil)
		if got != `{"data":{"tasks":{"update":{"message":"updated 1 Tasks"},"addComment":{"message":"commented on 1 Tasks"},"listEntities":[{"priority":2,"comments":[{"md":"checked by ann@example.com"}]}]}}}` {
			t.Errorf("docs/host.md's mutation: %s", got)
		}
	})
}
