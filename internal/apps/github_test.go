package apps

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/examples/github/githubapp"
	"github.com/appkitgo/appkit/examples/github/standin"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// githubTypes are the GitHub example's types, all synchronized.
var githubTypes = []string{"repository", "issue", "pull_request", "label", "milestone", "user"}

// githubApp serves the GitHub example over the stand-in; while hold is set,
// a data call for an issue page after the first whose owner filter is
// holdOwner waits until its request ends (release is never closed).
type githubApp struct {
	url string
	gh  *standin.Server
	pageHold
}

func newGitHubApp(t *testing.T, holdOwner string) *githubApp {
	t.Helper()
	gh := standin.New(t, standin.Generate(3, 12), nil)
	gh.MaxPerPage = 2 // many pages: a run can be stopped midway
	nop := zerolog.Nop()
	app, err := githubapp.New(githubapp.Config{APIURL: gh.URL, Logger: &nop})
	if err != nil {
		t.Fatal(err)
	}
	a := &githubApp{gh: gh, pageHold: newPageHold(func(c dataCall) bool {
		return c.Type == "issue" && c.Filter["owner"] == holdOwner && c.Pagination != nil
	})}
	a.url = a.serve(t, testapp.Handler(t, app))
	return a
}

// served is the app ids of each type a complete sync of owner gets from
// the stand-in's data: the owner's repositories (a user's public ones
// only: GET /users/{u}/repos lists no other), their issues, pull requests,
// labels and milestones, and the users met as authors or assignees.
func served(d *standin.Data, owner string) map[string][]string {
	sets := map[string]map[string]bool{}
	add := func(typ, id string) {
		if sets[typ] == nil {
			sets[typ] = map[string]bool{}
		}
		sets[typ][id] = true
	}
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	for _, r := range d.Repos {
		if r.Owner.Login != owner || (r.Private && r.Owner.Type == "User") {
			continue
		}
		add("repository", r.FullName())
		for _, l := range r.Labels {
			add("label", id(l.ID))
		}
		for _, m := range r.Milestones {
			add("milestone", id(m.ID))
		}
		for _, u := range r.Assignees {
			add("user", id(u.ID))
		}
		for _, is := range r.Issues {
			if is.PR {
				add("pull_request", id(is.PRID))
			} else {
				add("issue", id(is.ID))
			}
			add("user", id(is.Author.ID))
			for _, u := range is.Assignees {
				add("user", id(u.ID))
			}
		}
	}
	out := map[string][]string{}
	for typ, set := range sets {
		out[typ] = slices.Sorted(maps.Keys(set))
	}
	return out
}

// Two syncs of the GitHub example, for two owners (two accounts with the
// same token, a different owner filter), run over the live stand-in on two
// host processes sharing one store: the child process runs both until it is
// killed (SIGKILL) midway through the second owner's issues; this process,
// scheduling beside it, takes the run over once the dead host's lease
// lapses and resumes it; a delta run (issues since the last run) follows.
// After each step each sync's space holds exactly the entities the
// stand-in serves for its owner, and none of the other's.
func TestTwoGitHubOwnersSideBySide(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a process")
	}
	testkit.EachSharedStore(t, testTwoGitHubOwners) // SQLite in a file, shared with the child
}

func testTwoGitHubOwners(t *testing.T, dsn string) {
	ctx := context.Background()
	const ownerA, ownerB = "octocat", "octo-org"
	app := newGitHubApp(t, ownerB)
	want := map[string]map[string][]string{ownerA: served(app.gh.Data, ownerA), ownerB: served(app.gh.Data, ownerB)}
	for _, typ := range githubTypes {
		if len(want[ownerA][typ]) == 0 || len(want[ownerB][typ]) == 0 {
			t.Fatalf("the stand-in serves no %s for an owner; pick other data", typ)
		}
	}

	st := teststore.Open(t, dsn)
	svc, err := New(ctx, Config{Store: st, Key: killKey, HostID: "host-parent", LeaseTTL: 2 * time.Second, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := svc.Registry.RegisterApp(ctx, app.url)
	if err != nil {
		t.Fatal(err)
	}
	syncs := map[string]*Sync{}
	for _, owner := range []string{ownerA, ownerB} {
		acc, err := svc.Registry.CreateAccount(ctx, reg.ID, "", map[string]any{"token": standin.Token})
		if err != nil {
			t.Fatal(err)
		}
		if syncs[owner], err = svc.SyncService.CreateSync(ctx, SyncSpec{App: reg.ID, Account: acc.ID, Types: githubTypes,
			Filter: map[string][]string{"owner": {owner}}}); err != nil {
			t.Fatal(err)
		}
	}
	if syncs[ownerA].Space == syncs[ownerB].Space {
		t.Fatalf("both syncs in space %q", syncs[ownerA].Space)
	}

	// check compares each sync's space with what the stand-in serves for
	// its owner, entity by entity.
	check := func(when string) {
		t.Helper()
		for owner, sy := range syncs {
			for _, typ := range githubTypes {
				byApp, err := syncer.EntityIDs(context.Background(), st, sy.Space, typ, want[owner][typ])
				if err != nil {
					t.Fatal(err)
				}
				if len(byApp) != len(want[owner][typ]) {
					t.Errorf("%s: %s's space %s has entities for %d of the %d %s items of %s",
						when, owner, sy.Space, len(byApp), len(want[owner][typ]), typ, owner)
				}
				var ids []string
				for _, id := range byApp {
					ids = append(ids, id)
				}
				slices.Sort(ids)
				if got := teststore.IDs(t, st, sy.Space+"/"+typ); !slices.Equal(got, ids) {
					t.Errorf("%s: %s's space %s holds %d %s entities, want exactly the %d of %s",
						when, owner, sy.Space, len(got), typ, len(ids), owner)
				}
			}
		}
	}

	// The child host runs both syncs; the second owner's run stops midway
	// (its second issue page never answers) and the child is killed there.
	app.hold.Store(true)
	child := startChildHost(t, dsn)
	select {
	case <-app.held:
	case <-time.After(time.Minute):
		t.Fatalf("the child never reached %s's second issue page", ownerB)
	}
	app.hold.Store(false)
	mid, err := svc.SyncService.Sync(ctx, syncs[ownerB].ID)
	if err != nil || mid.RunID == "" || mid.LeaseOwner != "host-child" {
		t.Fatalf("the child's sync: %+v %v", mid, err)
	}
	schedule(t, svc) // side by side with the child, which holds the second run's lease
	child.Kill()

	rB := lastRun(t, svc, syncs[ownerB].ID, 0)
	if rB.Status != StatusSucceeded || rB.ID != mid.RunID || rB.Owner != "host-parent" || rB.Report == nil || !rB.Report.Resumed {
		t.Fatalf("the run taken over: %+v", rB)
	}
	if rA := lastRun(t, svc, syncs[ownerA].ID, 0); rA.Status != StatusSucceeded {
		t.Fatalf("%s's run: %+v", ownerA, rA)
	}
	check("full runs, one killed and resumed")

	// The next runs: issues as a delta (GitHub asked for issues since the
	// last run), the rest full again; nothing crosses, nothing is lost.
	before := len(app.gh.Requests())
	for _, owner := range []string{ownerA, ownerB} {
		sy := syncs[owner]
		if r := runNow(t, svc, sy.ID); r.Status != StatusSucceeded {
			t.Fatalf("%s's second run: %+v", owner, r)
		}
		if modes := typeModes(t, svc, sy.ID); modes["issue"] != protocol.SyncDelta || modes["repository"] != protocol.SyncFull {
			t.Errorf("%s's second run: modes %v, want an issue delta", owner, modes)
		}
	}
	since := map[string]bool{}
	for _, r := range app.gh.Requests()[before:] {
		for _, owner := range []string{ownerA, ownerB} {
			since[owner] = since[owner] || (strings.Contains(r, "/repos/"+owner+"/") && strings.Contains(r, "/issues?") && strings.Contains(r, "since="))
		}
	}
	for _, owner := range []string{ownerA, ownerB} {
		if !since[owner] {
			t.Errorf("%s's delta run did not ask GitHub for issues since the last run", owner)
		}
	}
	check("delta runs")
}
