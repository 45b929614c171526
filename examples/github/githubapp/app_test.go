package githubapp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/github/githubapp"
	"github.com/appkitgo/appkit/examples/github/standin"
	"github.com/appkitgo/appkit/internal/testkit"
)

// clock is a settable clock shared by the app and the stand-in.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// fixture is the app over a stand-in: 3 repos per owner, 12 issues and
// pull requests per repo, at most 2 items a page (so every list spans
// several Link pages).
type fixture struct {
	gh  *standin.Server
	clk *clock
	app *appkit.App
	c   *appkittest.Client
	log *testkit.Buffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	// The clock starts now: the toolkit reads X-RateLimit-Reset against
	// the wall clock.
	f := &fixture{clk: &clock{t: time.Now().Truncate(time.Second)}, log: &testkit.Buffer{}}
	f.gh = standin.New(t, standin.Generate(3, 12), f.clk.now)
	f.gh.MaxPerPage = 2
	logger := zerolog.New(f.log).Level(zerolog.DebugLevel)
	app, err := githubapp.New(githubapp.Config{APIURL: f.gh.URL, Now: f.clk.now, Logger: &logger})
	if err != nil {
		t.Fatal(err)
	}
	f.app = app
	f.c = appkittest.New(t, app)
	f.c.Account = map[string]any{"token": standin.Token}
	t.Cleanup(func() {
		if strings.Contains(f.log.String(), standin.Token) {
			t.Error("the token appears in the log")
		}
	})
	return f
}

// expected is what a complete sync of owner (repos: a selection) holds.
type expected struct {
	repos                               []*standin.Repo
	issues, pulls, labels, miles, users map[string]bool
}

func expect(d *standin.Data, owner string, names ...string) expected {
	e := expected{issues: map[string]bool{}, pulls: map[string]bool{}, labels: map[string]bool{}, miles: map[string]bool{}, users: map[string]bool{}}
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	for _, r := range d.Repos {
		// /users/{u}/repos lists public repositories only.
		if r.Owner.Login != owner || (r.Private && r.Owner.Type == "User") || (len(names) > 0 && !slices.Contains(names, r.FullName())) {
			continue
		}
		e.repos = append(e.repos, r)
		for _, l := range r.Labels {
			e.labels[id(l.ID)] = true
		}
		for _, m := range r.Milestones {
			e.miles[id(m.ID)] = true
		}
		for _, u := range r.Assignees {
			e.users[id(u.ID)] = true
		}
		for _, is := range r.Issues {
			if is.PR {
				e.pulls[id(is.PRID)] = true
			} else {
				e.issues[id(is.ID)] = true
			}
			e.users[id(is.Author.ID)] = true
			for _, u := range is.Assignees {
				e.users[id(u.ID)] = true
			}
		}
	}
	return e
}

// ids returns the ids of items and fails on an id sent twice.
func ids(t *testing.T, typ string, items []map[string]any) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, it := range items {
		id, _ := it["id"].(string)
		if out[id] {
			t.Errorf("%s %s sent twice", typ, id)
		}
		out[id] = true
	}
	return out
}

func sameSet(t *testing.T, typ string, got, want map[string]bool) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the expectation is empty", typ)
	}
	var missing, extra []string
	for id := range want {
		if !got[id] {
			missing = append(missing, id)
		}
	}
	for id := range got {
		if !want[id] {
			extra = append(extra, id)
		}
	}
	if len(missing)+len(extra) > 0 {
		sort.Strings(missing)
		sort.Strings(extra)
		t.Errorf("%s: %d items, want %d; missing %v, unexpected %v", typ, len(got), len(want), missing, extra)
	}
}

func TestSyncEveryType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		owner string
		repos []string
	}{
		{"octo-org", nil},
		{"octocat", nil}, // a user: /users/{u}/repos, public repositories only
		{"hubbers", []string{"hubbers/repo-1", "hubbers/repo-3"}},
	} {
		t.Run(tc.owner, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			filter := map[string]any{"owner": tc.owner}
			if tc.repos != nil {
				filter["repos"] = tc.repos
			}
			want := expect(f.gh.Data, tc.owner, tc.repos...)
			repos := f.c.SyncAll(appkittest.Run{Type: "repository", Filter: filter})
			wantRepos := map[string]bool{}
			for _, r := range want.repos {
				wantRepos[r.FullName()] = true
			}
			sameSet(t, "repository", ids(t, "repository", repos), wantRepos)

			issues := f.c.SyncAll(appkittest.Run{Type: "issue", Filter: filter})
			sameSet(t, "issue", ids(t, "issue", issues), want.issues)
			pulls := f.c.SyncAll(appkittest.Run{Type: "pull_request", Filter: filter})
			sameSet(t, "pull_request", ids(t, "pull_request", pulls), want.pulls)
			sameSet(t, "label", ids(t, "label", f.c.SyncAll(appkittest.Run{Type: "label", Filter: filter})), want.labels)
			sameSet(t, "milestone", ids(t, "milestone", f.c.SyncAll(appkittest.Run{Type: "milestone", Filter: filter})), want.miles)
			sameSet(t, "user", ids(t, "user", f.c.SyncAll(appkittest.Run{Type: "user", Filter: filter})), want.users)

			// One issue and one pull request, field by field.
			r := want.repos[0]
			is, pr := r.Issues[0], r.Issues[2]
			got := byID(issues)[strconv.FormatInt(is.ID, 10)]
			wantIssue := map[string]any{
				"name": is.Title, "number": float64(is.Number), "body": is.Body, "state": is.State,
				"author": strconv.FormatInt(is.Author.ID, 10), "repository": r.FullName(),
				"labels":    []any{strconv.FormatInt(r.Labels[is.Labels[0]].ID, 10)},
				"assignees": []any{strconv.FormatInt(is.Assignees[0].ID, 10)},
				"milestone": strconv.FormatInt(r.Milestones[is.Milestone-1].ID, 10),
				"created":   is.Created.Format("2006-01-02T15:04:05.000Z"), "closed": is.Closed.Format("2006-01-02T15:04:05.000Z"),
			}
			checkFields(t, "issue", got, wantIssue)
			gotPR := byID(pulls)[strconv.FormatInt(pr.PRID, 10)]
			checkFields(t, "pull_request", gotPR, map[string]any{
				"name": pr.Title, "number": float64(pr.Number), "state": pr.State, "head": pr.Head, "base": "main",
				"merged": strconv.FormatBool(pr.Merged), "draft": strconv.FormatBool(pr.Draft), "repository": r.FullName(),
				"author": strconv.FormatInt(pr.Author.ID, 10), "closed": pr.Closed.Format("2006-01-02T15:04:05.000Z"),
			})
		})
	}
}

func byID(items []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, it := range items {
		out[it["id"].(string)] = it
	}
	return out
}

func checkFields(t *testing.T, typ string, got, want map[string]any) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: item missing", typ)
	}
	for k, v := range want {
		if fmt.Sprint(got[k]) != fmt.Sprint(v) {
			t.Errorf("%s %s = %#v, want %#v", typ, k, got[k], v)
		}
	}
}

// Every request the app makes is one of the issue's endpoints, paged by
// the Link header only, with the parameters it lists.
func TestEndpointsAndParameters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	filter := map[string]any{"owner": "octo-org"}
	for _, typ := range []string{"repository", "issue", "pull_request", "label", "milestone", "user"} {
		f.c.SyncAll(appkittest.Run{Type: typ, Filter: filter})
	}
	f.c.Datalist("owner", nil)
	f.c.Datalist("repos", map[string]any{"owner": "octo-org"})
	f.c.Validate("token")
	seen := map[string]bool{}
	for _, r := range f.gh.Requests() {
		path, query, _ := strings.Cut(strings.TrimPrefix(r, "GET "), "?")
		parts := strings.Split(strings.Trim(path, "/"), "/")
		kind := path
		switch {
		case len(parts) == 2 && parts[0] == "users":
			kind = "/users/{u}"
		case len(parts) == 3 && parts[2] == "repos":
			kind = "/" + parts[0] + "/{o}/repos"
		case len(parts) == 4 && parts[0] == "repos":
			kind = "/repos/{o}/{r}/" + parts[3]
		}
		seen[kind] = true
		wantQuery := map[string]string{
			"/repos/{o}/{r}/issues": "state=all", "/repos/{o}/{r}/pulls": "state=all", "/repos/{o}/{r}/milestones": "state=all",
		}[kind]
		if !strings.Contains(query, wantQuery) || (strings.Contains(kind, "/repos/") && !strings.Contains(query, "per_page=100")) {
			t.Errorf("%s: query %q", r, query)
		}
	}
	var kinds []string
	for k := range seen {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	want := []string{"/orgs/{o}/repos", "/repos/{o}/{r}/assignees", "/repos/{o}/{r}/issues", "/repos/{o}/{r}/labels",
		"/repos/{o}/{r}/milestones", "/repos/{o}/{r}/pulls", "/user", "/user/orgs", "/users/{u}"}
	if !slices.Equal(kinds, want) {
		t.Errorf("endpoints %v\nwant      %v", kinds, want)
	}
}

func TestValidateAndDatalists(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if r := f.c.Validate("token"); r.Status != 200 || !strings.Contains(string(r.Body), `"name":"octocat"`) {
		t.Fatalf("validate = %d %s", r.Status, r.Body)
	}
	var owners []string
	for _, o := range f.c.Datalist("owner", nil) {
		owners = append(owners, o.Title+"="+fmt.Sprint(o.Value))
	}
	if want := []string{"octocat=octocat", "octo-org=octo-org", "hubbers=hubbers"}; !slices.Equal(owners, want) {
		t.Errorf("owners %v, want %v", owners, want)
	}
	var repos []string
	for _, o := range f.c.Datalist("repos", map[string]any{"owner": "octo-org"}) {
		repos = append(repos, fmt.Sprint(o.Value))
	}
	if want := []string{"octo-org/repo-1", "octo-org/repo-2", "octo-org/repo-3"}; !slices.Equal(repos, want) {
		t.Errorf("repos of octo-org %v, want %v", repos, want)
	}
	if r := f.c.ValidateFilter(map[string]any{"owner": "octo-org", "repos": []string{"hubbers/repo-1"}}); r.Status != 400 || !strings.Contains(r.Message(), "hubbers/repo-1") {
		t.Errorf("a repository of another owner: %d %s", r.Status, r.Body)
	}
	if r := f.c.ValidateFilter(map[string]any{"owner": "octo-org", "repos": []string{"octo-org/repo-2"}}); r.Status != 204 {
		t.Errorf("a repository of the owner: %d %s", r.Status, r.Body)
	}
	f.c.Account = map[string]any{"token": "ghp_wrong-token-0123456789"}
	if r := f.c.Validate("token"); r.Status != 401 || !strings.Contains(r.Message(), "Bad credentials") {
		t.Errorf("a wrong token: %d %s", r.Status, r.Body)
	}
	if r := f.c.Do("POST", "/api/v1/synchronizer/data", map[string]any{"requestedType": "issue", "filter": map[string]any{"owner": "octo-org"}}); r.Status != 401 {
		t.Errorf("data with a wrong token: %d %s", r.Status, r.Body)
	}
}

// Issues answer delta after a run: GitHub's since is an hour before it, and
// pull requests listed with issues stay out.
func TestIssuesDelta(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	last := standin.Epoch.Add(2 * 24 * time.Hour)
	since := last.Add(-githubapp.DeltaMargin)
	pages := f.c.Sync(appkittest.Run{Type: "issue", Filter: map[string]any{"owner": "hubbers"}, LastSynchronizedAt: last})
	got := map[string]bool{}
	for _, p := range pages {
		if p.SynchronizationType != "delta" {
			t.Fatalf("page answered %s", p.SynchronizationType)
		}
		for _, it := range p.Items {
			got[it["id"].(string)] = true
		}
	}
	want := map[string]bool{}
	for _, r := range f.gh.Data.Repos {
		for _, is := range r.Issues {
			if r.Owner.Login == "hubbers" && !is.PR && !is.Updated.Before(since) {
				want[strconv.FormatInt(is.ID, 10)] = true
			}
		}
	}
	sameSet(t, "issue delta", got, want)
	if n := len(expect(f.gh.Data, "hubbers").issues); len(got) >= n {
		t.Errorf("the delta holds %d issues of %d: since selected nothing", len(got), n)
	}
	for _, r := range f.gh.Requests() {
		if strings.Contains(r, "/issues?") && !strings.Contains(r, "since="+since.Format("2006-01-02T15")) {
			t.Errorf("%s: no since", r)
		}
	}
}

// A 502 is retried inside the call; three in a row, and a rate-limited
// answer, become tryLater; while limited, no call reaches GitHub.
func TestFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	filter := map[string]any{"owner": "octo-org", "repos": []string{"octo-org/repo-1"}}
	data := func(c map[string]any) appkittest.Response {
		return f.c.Do("POST", "/api/v1/synchronizer/data", map[string]any{"requestedType": "label", "filter": filter, "pagination": c})
	}
	f.gh.Fail(standin.Fault{Path: "/repos/octo-org/repo-1/labels", Status: 502})
	if r := data(nil); r.Status != 200 {
		t.Fatalf("one 502: %d %s", r.Status, r.Body)
	}
	f.gh.Fail(standin.Fault{Path: "/repos/octo-org/repo-1/labels", Status: 502, Times: 3})
	if r := data(nil); r.Status != 503 || !r.TryLater() || !strings.Contains(r.Message(), "502") {
		t.Fatalf("three 502s: %d %s", r.Status, r.Body)
	}
	// 429 comes with Retry-After (GitHub's secondary limit), 403 with
	// X-RateLimit-Remaining: 0 and X-RateLimit-Reset only (the primary
	// one, read against the wall clock: a second or two may have passed).
	for _, status := range []int{429, 403} {
		f := newFixture(t) // a clock at the wall clock's time
		data := func(c map[string]any) appkittest.Response {
			return f.c.Do("POST", "/api/v1/synchronizer/data", map[string]any{"requestedType": "label", "filter": filter, "pagination": c})
		}
		f.gh.Fail(standin.Fault{Path: "/repos/octo-org/repo-1/labels", Status: status})
		r := data(nil)
		wait, _ := strconv.Atoi(r.Header.Get("Retry-After"))
		if full := int(standin.ResetAfter / time.Second); r.Status != 503 || !r.TryLater() || wait > full || wait < full-30 {
			t.Fatalf("rate limited (%d): %d %s, Retry-After %q", status, r.Status, r.Body, r.Header.Get("Retry-After"))
		}
		before := len(f.gh.Requests())
		f.clk.add(standin.ResetAfter / 2)
		if r := data(nil); r.Status != 503 || !r.TryLater() || r.Header.Get("Retry-After") == "" {
			t.Fatalf("still limited: %d %s", r.Status, r.Body)
		}
		if n := len(f.gh.Requests()); n != before || f.gh.LimitedHits() != 0 {
			t.Fatalf("a call reached GitHub while the limit was exhausted (%d requests, %d while limited)", n-before, f.gh.LimitedHits())
		}
		f.clk.add(standin.ResetAfter / 2)
		if r := data(nil); r.Status != 200 {
			t.Fatalf("after the reset: %d %s", r.Status, r.Body)
		}
	}
	// A 403 without rate-limit exhaustion is a refused token.
	f.gh.Fail(standin.Fault{Path: "/repos/octo-org/repo-1/labels", Status: 401})
	if r := data(nil); r.Status != 401 {
		t.Fatalf("401: %d %s", r.Status, r.Body)
	}
	// An unknown repository names itself.
	filter["repos"] = []string{"octo-org/nope"}
	if r := data(nil); r.Status != 500 || !strings.Contains(r.Message(), "/repos/octo-org/nope/labels") {
		t.Fatalf("404: %d %s", r.Status, r.Body)
	}
}

// Link headers that leave the API's host, or name the same page, are
// errors; the token is never sent elsewhere.
func TestBadLinks(t *testing.T) {
	t.Parallel()
	var elsewhere bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere = elsewhere || r.Header.Get("Authorization") != ""
		w.Write([]byte("[]"))
	}))
	defer other.Close()
	var link string
	var gh *httptest.Server
	gh = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/users/o":
			w.Write([]byte(`{"login":"o","id":1,"type":"Organization"}`))
		default:
			w.Header().Set("Link", strings.ReplaceAll(link, "SELF", gh.URL+r.URL.RequestURI()))
			w.Write([]byte(`[{"id":7,"full_name":"o/r"}]`))
		}
	}))
	defer gh.Close()
	app, err := githubapp.New(githubapp.Config{APIURL: gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := appkittest.New(t, app)
	c.Account = map[string]any{"token": "ghp_secret-token-0123456789"}
	for _, tc := range []struct{ link, want string }{
		{"<" + other.URL + "/orgs/o/repos?page=2>; rel=\"next\"", "another origin"},
		{"<SELF>; rel=\"next\"", "page just loaded"},
		{"garbage", "Link"},
	} {
		link = tc.link
		r := c.Do("POST", "/api/v1/synchronizer/data", map[string]any{"requestedType": "repository", "filter": map[string]any{"owner": "o"}})
		if r.Status != 500 || !strings.Contains(r.Message(), tc.want) {
			t.Errorf("Link %s: %d %s", tc.link, r.Status, r.Body)
		}
	}
	if elsewhere {
		t.Error("the token was sent to another host")
	}
}

// An OAuth 2 account reads GitHub with its access token; the flow points
// at the Enterprise server's /login/oauth of the API URL.
func TestOAuth2Account(t *testing.T) {
	t.Parallel()
	gh := standin.New(t, standin.Generate(1, 3), nil)
	app, err := githubapp.New(githubapp.Config{APIURL: gh.URL + "/api/v3", ClientID: "Iv1.standin", ClientSecret: "standin-secret"})
	if err != nil {
		t.Fatal(err)
	}
	c := appkittest.New(t, app)
	if got := c.OAuth2Authorize("https://service.example/callback", "state-1"); !strings.HasPrefix(got, gh.URL+"/login/oauth/authorize?") {
		t.Errorf("authorize URL %s, want the server's /login/oauth/authorize", got)
	}
	// The stand-in serves the API at its root: an /api/v3 prefix is the
	// Enterprise layout, so a second app reads it there.
	app, err = githubapp.New(githubapp.Config{APIURL: gh.URL, ClientID: "Iv1.standin", ClientSecret: "standin-secret"})
	if err != nil {
		t.Fatal(err)
	}
	c = appkittest.New(t, app)
	c.Account = map[string]any{"auth": "oauth2", "access_token": standin.Token, "token_type": "bearer"}
	labels := c.SyncAll(appkittest.Run{Type: "label", Filter: map[string]any{"owner": "octo-org"}})
	if want := len(expect(gh.Data, "octo-org").labels); len(labels) != want {
		t.Errorf("%d labels through OAuth 2, want %d", len(labels), want)
	}
	c.Account = map[string]any{"auth": "oauth2", "access_token": "gho_refused-0123456789", "token_type": "bearer"}
	if r := c.Do("POST", "/api/v1/synchronizer/data", map[string]any{"requestedType": "label", "filter": map[string]any{"owner": "octo-org"}}); r.Status != 401 {
		t.Errorf("a refused OAuth token: %d %s", r.Status, r.Body)
	}
}
