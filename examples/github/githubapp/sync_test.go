package githubapp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/examples/github/standin"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// The host's sync engine synchronizes the stand-in completely through the
// app, into SQLite (and PostgreSQL when APPKIT_TEST_POSTGRES is set), with
// a 502 burst and rate-limited answers on the way; every relation finds its
// target. A second run answers issues as delta.
func TestEngineSyncsEverything(t *testing.T) {
	t.Parallel()
	for name, dsn := range testkit.StoreDSNs(t) {
		// One engine after the other: store.Open calls uuid.EnableRandPool,
		// which races with a run's uuid.NewString in another goroutine.
		t.Run(name, func(t *testing.T) { testEngineSync(t, dsn) })
	}
}

func testEngineSync(t *testing.T, dsn string) {
	ctx := context.Background()
	f := newFixture(t)
	srv := httptest.NewServer(mustHandler(t, f))
	t.Cleanup(srv.Close)
	// On the way: three 502s on an issues page (the app's retries run out:
	// tryLater), a 429 on a pull request page, and the primary limit (403,
	// X-RateLimit-Remaining: 0) on the user walk.
	f.gh.Fail(standin.Fault{Path: "/repos/octo-org/repo-2/issues", Page: 3, Status: 502, Times: 3})
	f.gh.Fail(standin.Fault{Path: "/repos/octo-org/repo-1/pulls", Page: 2, Status: 429})
	f.gh.Fail(standin.Fault{Path: "/repos/octo-org/repo-3/assignees", Status: 403})

	st := teststore.Open(t, dsn)
	var mu sync.Mutex
	var retries []string
	opts := syncer.Options{
		AppURL: srv.URL, Account: map[string]string{"token": standin.Token},
		Filter: map[string][]string{"owner": {"octo-org"}},
		Types:  []string{"repository", "issue", "pull_request", "label", "milestone", "user"},
		Retry:  syncer.Retry{Attempts: 4, Base: time.Millisecond, Max: 5 * time.Millisecond},
		Log: func(msg string) {
			if strings.HasPrefix(msg, "retrying") {
				mu.Lock()
				retries = append(retries, msg)
				mu.Unlock()
				// The engine waits its own bounded delay; the app's clock
				// moves past GitHub's reset meanwhile.
				f.clk.add(standin.ResetAfter)
			}
		},
	}
	rep, err := syncer.Run(ctx, st, opts)
	if err != nil {
		t.Fatalf("sync: %v (retries %v)", err, retries)
	}
	want := expect(f.gh.Data, "octo-org")
	counts := map[string]int{"repository": len(want.repos), "issue": len(want.issues), "pull_request": len(want.pulls),
		"label": len(want.labels), "milestone": len(want.miles), "user": len(want.users)}
	for _, tr := range rep.Types {
		if tr.Created != counts[tr.Type] || tr.Skipped != 0 || len(tr.Problems) > 0 || tr.Mode != "full" {
			t.Errorf("%s: %+v, want %d created and no problem", tr.Type, tr, counts[tr.Type])
		}
		if got := teststore.Count(t, st, "github/"+tr.Type); got != counts[tr.Type] {
			t.Errorf("github/%s holds %d entities, want %d", tr.Type, got, counts[tr.Type])
		}
	}
	if len(rep.Types) != 6 {
		t.Errorf("%d types synchronized", len(rep.Types))
	}
	mu.Lock()
	joined := strings.Join(retries, "\n")
	mu.Unlock()
	for _, want := range []string{"502", "429", "403"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no retry after the %s; retries:\n%s", want, joined)
		}
	}
	if n := f.gh.LimitedHits(); n != 0 {
		t.Errorf("%d calls reached GitHub while the rate limit was exhausted", n)
	}

	// The next run: issues as delta, the rest full again, nothing lost.
	opts.Account, opts.Log = nil, nil
	rep2, err := syncer.Run(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep2.Types {
		wantMode := "full"
		if tr.Type == "issue" {
			wantMode = "delta"
		}
		if tr.Mode != wantMode || tr.Removed != 0 || len(tr.Problems) > 0 {
			t.Errorf("second run, %s: %+v, want %s, nothing removed", tr.Type, tr, wantMode)
		}
		if got := teststore.Count(t, st, "github/"+tr.Type); got != counts[tr.Type] {
			t.Errorf("second run: github/%s holds %d entities, want %d", tr.Type, got, counts[tr.Type])
		}
	}
	var since bool
	for _, r := range f.gh.Requests() {
		since = since || (strings.Contains(r, "/issues?") && strings.Contains(r, "since="))
	}
	if !since {
		t.Error("the delta run did not ask GitHub for issues since the last run")
	}
}

func mustHandler(t *testing.T, f *fixture) http.Handler {
	t.Helper()
	h, err := f.app.Handler()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
