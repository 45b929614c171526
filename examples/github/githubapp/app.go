// Package githubapp is the GitHub example app: the repositories, issues,
// pull requests, labels, milestones and users of a GitHub owner (a user or an
// organization), synchronized over the GitHub REST API.
//
// The account is a personal access token (authentication "token", sent as
// Authorization: Bearer), or an OAuth 2 connection when the app is given a
// GitHub OAuth app's client id and secret. The filter "owner" picks the user
// or organization, "repos" narrows it to some of its repositories (full
// names owner/name).
//
// Each data call makes one GitHub call (two or three for the first page of
// a run, which looks the owner up) through the appkit/upstream toolkit: the
// cursor carries the Link header's next page, the repositories still to
// walk, and for users the ids already sent. Issues answer delta with
// GitHub's since parameter (an hour before the last run); deleted or
// transferred issues are only dropped by a full run. The other types answer
// full. Repositories are identified by their full name.
//
// Failures come mapped by the toolkit (see appkit/upstream): a 401 or a 403
// is an invalid account; a rate-limited answer (429, or 403 with
// X-RateLimit-Remaining: 0) is tryLater with the wait until the reset
// (Retry-After, else X-RateLimit-Reset; at most [MaxWait]), and the app
// makes no call with that credential before the reset; a 5xx or a network
// failure is retried, then tryLater; a 404 names the missing resource. A
// Link header that leaves the API's origin or repeats a page is an error,
// never followed; the token goes to the API's origin only.
package githubapp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/oauth2"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
	"github.com/appkitgo/appkit/oauth"
)

// DefaultAPIURL is GitHub's API; GitHub Enterprise Server's is
// https://HOST/api/v3.
const DefaultAPIURL = "https://api.github.com"

// DeltaMargin is subtracted from lastSynchronizedAt for GitHub's since.
const DeltaMargin = time.Hour

// Config configures the app.
type Config struct {
	// APIURL is the API's base (empty: DefaultAPIURL).
	APIURL string
	// ClientID and ClientSecret of a GitHub OAuth app add OAuth 2 as a second
	// authentication; empty leaves the token only.
	ClientID, ClientSecret string
	// HTTPClient provides the transport of the calls to GitHub (nil:
	// http.DefaultTransport), for instance a recorder.
	HTTPClient *http.Client
	// Logger receives the request log and, at debug level, one line per
	// GitHub call (nil: appkit's default).
	Logger *zerolog.Logger
	// Now is the clock of the rate-limit resets (nil: time.Now).
	Now func() time.Time
}

// App is the GitHub app's runtime.
type App struct {
	token, oauth2 *upstream.Client // by the account's authentication
	base          *url.URL
	now           func() time.Time
	limits        limits
	owner         *appkit.FilterOf[string]
	repos         *appkit.FilterOf[[]string]
}

// Repository is a repository.
type Repository struct {
	ID            string    `appkit:"id"` // the full name, owner/name
	Name          string    `appkit:"name,name=Full name"`
	GitHubID      int64     `appkit:"githubId,name=GitHub id"`
	Owner         string    `appkit:"owner"`
	Description   string    `appkit:"description"`
	Private       bool      `appkit:"private"`
	Fork          bool      `appkit:"fork"`
	Archived      bool      `appkit:"archived"`
	DefaultBranch string    `appkit:"defaultBranch"`
	Stars         int       `appkit:"stars"`
	URL           string    `appkit:"url,url"`
	Created       time.Time `appkit:"created,readonly"`
	Updated       time.Time `appkit:"updated,readonly"`
	Pushed        time.Time `appkit:"pushed,readonly"`
}

// Issue is an issue.
type Issue struct {
	ID         string    `appkit:"id"`
	Name       string    `appkit:"name,name=Title"`
	Number     int       `appkit:"number"`
	Body       string    `appkit:"body,md"`
	State      string    `appkit:"state,single-select,options=open|closed"`
	Author     string    `appkit:"author,ref=user,inverse=Authored issues"`
	Assignees  []string  `appkit:"assignees,ref=user,inverse=Assigned issues"`
	Labels     []string  `appkit:"labels,ref=label,inverse=Issues"`
	Milestone  string    `appkit:"milestone,ref=milestone,inverse=Issues"`
	Repository string    `appkit:"repository,ref=repository,inverse=Issues"`
	URL        string    `appkit:"url,url"`
	Created    time.Time `appkit:"created,readonly"`
	Updated    time.Time `appkit:"updated,readonly"`
	Closed     time.Time `appkit:"closed,readonly"`
}

// PullRequest is a pull request.
type PullRequest struct {
	ID         string    `appkit:"id"`
	Name       string    `appkit:"name,name=Title"`
	Number     int       `appkit:"number"`
	Body       string    `appkit:"body,md"`
	State      string    `appkit:"state,single-select,options=open|closed"`
	Author     string    `appkit:"author,ref=user,inverse=Authored pull requests"`
	Assignees  []string  `appkit:"assignees,ref=user,inverse=Assigned pull requests"`
	Labels     []string  `appkit:"labels,ref=label,inverse=Pull requests"`
	Milestone  string    `appkit:"milestone,ref=milestone,inverse=Pull requests"`
	Repository string    `appkit:"repository,ref=repository,inverse=Pull requests"`
	Draft      bool      `appkit:"draft"`
	Merged     bool      `appkit:"merged"`
	Head       string    `appkit:"head,name=Head branch"`
	Base       string    `appkit:"base,name=Base branch"`
	URL        string    `appkit:"url,url"`
	Created    time.Time `appkit:"created,readonly"`
	Updated    time.Time `appkit:"updated,readonly"`
	Closed     time.Time `appkit:"closed,readonly"`
}

// Label is a repository's label.
type Label struct {
	ID          string `appkit:"id"`
	Name        string `appkit:"name"`
	Color       string `appkit:"color"`
	Description string `appkit:"description"`
	Repository  string `appkit:"repository,ref=repository,inverse=Labels"`
}

// Milestone is a repository's milestone.
type Milestone struct {
	ID          string    `appkit:"id"`
	Name        string    `appkit:"name,name=Title"`
	Number      int       `appkit:"number"`
	Description string    `appkit:"description,md"`
	State       string    `appkit:"state,single-select,options=open|closed"`
	Due         time.Time `appkit:"due"`
	Repository  string    `appkit:"repository,ref=repository,inverse=Milestones"`
	Created     time.Time `appkit:"created,readonly"`
	Closed      time.Time `appkit:"closed,readonly"`
}

// User is a GitHub user met as an author or an assignee.
type User struct {
	ID     string `appkit:"id"`
	Name   string `appkit:"name,name=Login"`
	Kind   string `appkit:"kind"`
	URL    string `appkit:"url,url"`
	Avatar string `appkit:"avatar,url"`
}

// Cursor is the page cursor of every type: the walk over the owner's
// repositories and, within the current one, GitHub's next page.
type Cursor struct {
	// List is the first page of the owner's repository list while it is
	// still to read ("" when the repos filter names them, or when it is read
	// to the end); ListAt the position in it.
	List   string           `json:"list,omitempty"`
	ListAt *upstream.Cursor `json:"listAt,omitempty"`
	// Repos are the repositories (full names) still to walk, the current
	// one first.
	Repos []string `json:"repos,omitempty"`
	// At is the position in the current repository's list.
	At *upstream.Cursor `json:"at,omitempty"`
	// Step is the current repository's endpoint, for types that read more
	// than one (users: 0 assignees, 1 issues).
	Step int `json:"step,omitempty"`
	// Seen are the users already sent in this run.
	Seen []string `json:"seen,omitempty"`
}

// New declares the GitHub app.
func New(cfg Config) (*appkit.App, error) {
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	base, err := url.Parse(strings.TrimSuffix(cfg.APIURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("API URL: want an absolute http(s) URL, got %q", cfg.APIURL)
	}
	a := &App{base: base, now: cfg.Now}
	if a.now == nil {
		a.now = time.Now
	}
	client := func(auth upstream.Auth) *upstream.Client {
		return &upstream.Client{
			BaseURL: base.String(), Auth: auth, HTTPClient: cfg.HTTPClient, Logger: cfg.Logger, MaxWait: MaxWait,
			Header: http.Header{"Accept": {"application/vnd.github+json"}, "X-Github-Api-Version": {"2022-11-28"}},
		}
	}
	a.token = client(upstream.Bearer("token"))
	owner := appkit.ListFilter("owner", "Owner (user or organization)", a.owners)
	repos := appkit.MultiDropdownFilter("repos", "Repositories", a.repoOptions).Requires(owner).Optional()
	a.owner, a.repos = owner, repos
	auths := []appkit.Auth{appkit.TokenAuth("Personal access token", "A GitHub personal access token (classic or fine-grained) that can read the repositories", a.validate)}
	if cfg.ClientID != "" && cfg.ClientSecret != "" {
		flow := a.oauth(cfg.ClientID, cfg.ClientSecret)
		a.oauth2 = client(upstream.OAuth2(flow))
		auths = append(auths, appkit.OAuth2Auth("GitHub", flow))
	}
	return &appkit.App{
		ID: "github", Name: "GitHub", Version: "1.0.0", Logger: cfg.Logger,
		Description: "Repositories, issues, pull requests, labels, milestones and users of a GitHub owner",
		Website:     "https://github.com/appkitgo/appkit/tree/main/examples/github",
		Auth:        auths,
		Sync: &appkit.Sync{
			Types: []appkit.Type{
				{ID: "repository", Name: "Repositories", Default: true, Data: appkit.Pages(a.repositories)},
				{ID: "issue", Name: "Issues", Default: true, Delta: true, Data: perRepo(a, issuesPath, toIssue)},
				{ID: "pull_request", Name: "Pull requests", Default: true, Data: perRepo(a, fixed("pulls?state=all&per_page=100"), toPull)},
				{ID: "label", Name: "Labels", Default: true, Data: perRepo(a, fixed("labels?per_page=100"), toLabel)},
				{ID: "milestone", Name: "Milestones", Default: true, Data: perRepo(a, fixed("milestones?state=all&per_page=100"), toMilestone)},
				{ID: "user", Name: "Users", Default: true, Data: appkit.Pages(a.users)},
			},
			Filters: []appkit.Filter{owner, repos},
			ValidateFilter: func(_ context.Context, req *appkit.Request) error {
				o, _ := owner.Get(req.Filter)
				r, _ := repos.Get(req.Filter)
				for _, name := range r {
					if ro, _, ok := strings.Cut(name, "/"); !ok || !strings.EqualFold(ro, o) {
						return appkit.BadRequest("repos: %q is not a repository of %q (want %s/NAME)", name, o, o)
					}
				}
				return nil
			},
		},
	}, nil
}

// account is GitHub's user object, as far as the app reads it.
type account struct {
	ID      int64  `json:"id"`
	Login   string `json:"login"`
	Type    string `json:"type"`
	HTMLURL string `json:"html_url"`
	Avatar  string `json:"avatar_url"`
}

func (u account) user() User {
	return User{ID: strconv.FormatInt(u.ID, 10), Name: u.Login, Kind: u.Type, URL: u.HTMLURL, Avatar: u.Avatar}
}

// validate answers the token's login (GET /user).
func (a *App) validate(ctx context.Context, token string) (string, error) {
	c, err := a.session(appkit.Account{"token": token})
	if err != nil {
		return "", err
	}
	var me account
	if err := c.get(ctx, "/user", &me); err != nil {
		return "", err
	}
	return me.Login, nil
}

// oauth is the OAuth 2 flow of a GitHub OAuth app, at github.com or at the
// GitHub Enterprise Server of the API URL (https://HOST/api/v3: the flow is
// at https://HOST/login/oauth/...).
func (a *App) oauth(id, secret string) *oauth.OAuth2 {
	flow := oauth.GitHub(id, secret, "repo", "read:org")
	if a.base.Host != "api.github.com" {
		web := *a.base
		web.Path = strings.TrimSuffix(web.Path, "/api/v3")
		flow.AuthURL, flow.TokenURL = web.String()+"/login/oauth/authorize", web.String()+"/login/oauth/access_token"
	}
	flow.Account = func(ctx context.Context, _ *http.Client, tok *oauth2.Token) (map[string]any, error) {
		name, err := a.validate(ctx, tok.AccessToken)
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": name}, nil
	}
	return flow
}

// maxOptions bounds a datalist.
const maxOptions = 10000

// owners serves the datalist of the owner filter: the user's login and
// organizations (GET /user, GET /user/orgs).
func (a *App) owners(ctx context.Context, req *appkit.DatalistRequest) ([]appkit.Option, error) {
	c, err := a.session(req.Account)
	if err != nil {
		return nil, err
	}
	var me account
	if err := c.get(ctx, "/user", &me); err != nil {
		return nil, err
	}
	out := []appkit.Option{{Title: me.Login, Value: me.Login}}
	var at *upstream.Cursor
	for {
		orgs, next, err := fetch[account](ctx, c, "/user/orgs?per_page=100", at)
		if err != nil {
			return nil, err
		}
		for _, o := range orgs {
			out = append(out, appkit.Option{Title: o.Login, Value: o.Login})
		}
		if at = next; at == nil || len(out) > maxOptions {
			return out[:min(len(out), maxOptions)], nil
		}
	}
}

// repoOptions serves the datalist of the repos filter: the full names of
// the owner's repositories.
func (a *App) repoOptions(ctx context.Context, req *appkit.DatalistRequest) ([]appkit.Option, error) {
	owner, _ := a.owner.Get(req.DependsOn)
	c, err := a.session(req.Account)
	if err != nil {
		return nil, err
	}
	first, err := a.reposURL(ctx, c, owner)
	if err != nil {
		return nil, err
	}
	var out []appkit.Option
	var at *upstream.Cursor
	for {
		repos, next, err := fetch[repository](ctx, c, first, at)
		if err != nil {
			return nil, err
		}
		for _, r := range repos {
			out = append(out, appkit.Option{Title: r.FullName, Value: r.FullName})
		}
		if at = next; at == nil || len(out) > maxOptions {
			return out[:min(len(out), maxOptions)], nil
		}
	}
}

// selection returns a request's owner and repos filters.
func (a *App) selection(req *appkit.DataRequest) (string, []string) {
	owner, _ := a.owner.Get(req.Filter)
	repos, _ := a.repos.Get(req.Filter)
	return owner, repos
}

// reposURL is the first page of the owner's repository list: an
// organization's or a user's (GET /users/{owner} says which).
func (a *App) reposURL(ctx context.Context, c *session, owner string) (string, error) {
	if owner == "" || strings.ContainsAny(owner, "/?#%") {
		return "", appkit.BadRequest("owner: want a GitHub login, got %q", owner)
	}
	var u account
	if err := c.get(ctx, "/users/"+url.PathEscape(owner), &u); err != nil {
		return "", err
	}
	if u.Type == "Organization" {
		return "/orgs/" + url.PathEscape(u.Login) + "/repos?per_page=100", nil
	}
	return "/users/" + url.PathEscape(u.Login) + "/repos?per_page=100", nil
}

// repository is GitHub's repository object.
type repository struct {
	ID            int64     `json:"id"`
	FullName      string    `json:"full_name"`
	Owner         account   `json:"owner"`
	Description   string    `json:"description"`
	Private       bool      `json:"private"`
	Fork          bool      `json:"fork"`
	Archived      bool      `json:"archived"`
	DefaultBranch string    `json:"default_branch"`
	Stars         int       `json:"stargazers_count"`
	HTMLURL       string    `json:"html_url"`
	Created       time.Time `json:"created_at"`
	Updated       time.Time `json:"updated_at"`
	Pushed        time.Time `json:"pushed_at"`
}

// repositories pages through the owner's repositories, keeping those the
// repos filter names (all without it).
func (a *App) repositories(ctx context.Context, req *appkit.DataRequest, cur *Cursor) (*appkit.Page[Repository, Cursor], error) {
	owner, names := a.selection(req)
	c, err := a.session(req.Account)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		cur = &Cursor{}
		if cur.List, err = a.reposURL(ctx, c, owner); err != nil {
			return nil, err
		}
	}
	list, next, err := fetch[repository](ctx, c, cur.List, cur.ListAt)
	if err != nil {
		return nil, err
	}
	page := &appkit.Page[Repository, Cursor]{}
	for _, r := range list {
		if len(names) == 0 || slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, r.FullName) }) {
			page.Items = append(page.Items, Repository{
				ID: r.FullName, Name: r.FullName, GitHubID: r.ID, Owner: r.Owner.Login, Description: r.Description,
				Private: r.Private, Fork: r.Fork, Archived: r.Archived, DefaultBranch: r.DefaultBranch, Stars: r.Stars,
				URL: r.HTMLURL, Created: r.Created, Updated: r.Updated, Pushed: r.Pushed,
			})
		}
	}
	if next != nil {
		page.Next = &Cursor{List: cur.List, ListAt: next}
	}
	return page, nil
}

// walk reads the next GitHub page of one repository's endpoint, for a type
// whose items live in repositories: the repos of the filter, else every
// repository of the owner (whose list is read a page at a time as the walk
// goes). first returns a repository's first page path for a step (of
// steps); read reads one page. It returns the cursor of the following call,
// nil at the end.
func (a *App) walk(ctx context.Context, req *appkit.DataRequest, cur *Cursor, steps int,
	first func(repo string, step int) string, read func(c *session, repo string, step int, path string, at *upstream.Cursor) (*upstream.Cursor, error)) (*Cursor, error) {
	c, err := a.session(req.Account)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		owner, repos := a.selection(req)
		cur = &Cursor{Repos: repos}
		if len(repos) == 0 {
			if cur.List, err = a.reposURL(ctx, c, owner); err != nil {
				return nil, err
			}
		}
	}
	next := *cur
	if len(next.Repos) == 0 { // the next page of the owner's repositories
		if next.List == "" {
			return nil, nil
		}
		list, at, err := fetch[repository](ctx, c, next.List, next.ListAt)
		if err != nil {
			return nil, err
		}
		for _, r := range list {
			next.Repos = append(next.Repos, r.FullName)
		}
		if next.ListAt = at; at == nil {
			next.List = ""
		}
		return more(&next), nil
	}
	repo := next.Repos[0]
	if next.At, err = read(c, repo, next.Step, first(repo, next.Step), next.At); err != nil {
		return nil, err
	}
	if next.At == nil {
		if next.Step++; next.Step >= steps {
			next.Repos, next.Step = next.Repos[1:], 0
		}
	}
	return more(&next), nil
}

// more is c, or nil when nothing is left to walk.
func more(c *Cursor) *Cursor {
	if len(c.Repos) == 0 && c.List == "" {
		return nil
	}
	return c
}

// repoPath is repos/{owner}/{name}/ of a full name.
func repoPath(fullName string) string {
	o, n, _ := strings.Cut(fullName, "/")
	return "/repos/" + url.PathEscape(o) + "/" + url.PathEscape(n) + "/"
}

// issue is GitHub's issue and pull request object.
type issue struct {
	ID          int64      `json:"id"`
	Number      int        `json:"number"`
	Title       string     `json:"title"`
	Body        string     `json:"body"`
	State       string     `json:"state"`
	User        account    `json:"user"`
	Assignees   []account  `json:"assignees"`
	Labels      []label    `json:"labels"`
	Milestone   *milestone `json:"milestone"`
	HTMLURL     string     `json:"html_url"`
	Created     time.Time  `json:"created_at"`
	Updated     time.Time  `json:"updated_at"`
	Closed      *time.Time `json:"closed_at"`
	PullRequest *struct{}  `json:"pull_request"`
	Draft       bool       `json:"draft"`
	MergedAt    *time.Time `json:"merged_at"`
	Head        struct {
		Ref string `json:"ref"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
}

// common returns the fields issues and pull requests share.
func (is *issue) common() (id, author string, assignees, labels []string, milestone string, closed time.Time) {
	for _, u := range is.Assignees {
		assignees = append(assignees, strconv.FormatInt(u.ID, 10))
	}
	for _, l := range is.Labels {
		labels = append(labels, strconv.FormatInt(l.ID, 10))
	}
	if is.Milestone != nil {
		milestone = strconv.FormatInt(is.Milestone.ID, 10)
	}
	if is.Closed != nil {
		closed = *is.Closed
	}
	return strconv.FormatInt(is.ID, 10), strconv.FormatInt(is.User.ID, 10), assignees, labels, milestone, closed
}

// perRepo is the data handler of a type read from one list endpoint per
// repository: path returns its path under /repos/{o}/{r}/ and whether it
// lists changes (a delta page); item maps each item of the GitHub type Raw
// (false leaves it out).
func perRepo[Raw, T any](a *App, path func(req *appkit.DataRequest) (string, bool), item func(repo string, r *Raw) (T, bool)) appkit.DataHandler {
	return appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, cur *Cursor) (*appkit.Page[T, Cursor], error) {
		rest, delta := path(req)
		page := &appkit.Page[T, Cursor]{Delta: delta}
		next, err := a.walk(ctx, req, cur, 1, func(repo string, _ int) string { return repoPath(repo) + rest },
			func(c *session, repo string, _ int, p string, at *upstream.Cursor) (*upstream.Cursor, error) {
				list, next, err := fetch[Raw](ctx, c, p, at)
				for i := range list {
					if it, ok := item(repo, &list[i]); ok {
						page.Items = append(page.Items, it)
					}
				}
				return next, err
			})
		page.Next = next
		return page, err
	})
}

// fixed is a path that does not depend on the request.
func fixed(path string) func(*appkit.DataRequest) (string, bool) {
	return func(*appkit.DataRequest) (string, bool) { return path, false }
}

// issuesPath lists every issue, or after a run those updated since an hour
// before it (GitHub's since).
func issuesPath(req *appkit.DataRequest) (string, bool) {
	if req.LastSynchronizedAt.IsZero() {
		return "issues?state=all&per_page=100", false
	}
	return "issues?state=all&per_page=100&since=" + req.LastSynchronizedAt.Add(-DeltaMargin).UTC().Format(time.RFC3339), true
}

// toIssue maps an issue; pull requests, which GitHub lists with issues,
// are left to pull_request.
func toIssue(repo string, is *issue) (Issue, bool) {
	id, author, assignees, labels, milestone, closed := is.common()
	return Issue{
		ID: id, Name: is.Title, Number: is.Number, Body: is.Body, State: is.State, Author: author,
		Assignees: assignees, Labels: labels, Milestone: milestone, Repository: repo,
		URL: is.HTMLURL, Created: is.Created, Updated: is.Updated, Closed: closed,
	}, is.PullRequest == nil
}

func toPull(repo string, pr *issue) (PullRequest, bool) {
	id, author, assignees, labels, milestone, closed := pr.common()
	return PullRequest{
		ID: id, Name: pr.Title, Number: pr.Number, Body: pr.Body, State: pr.State, Author: author,
		Assignees: assignees, Labels: labels, Milestone: milestone, Repository: repo,
		Draft: pr.Draft, Merged: pr.MergedAt != nil, Head: pr.Head.Ref, Base: pr.Base.Ref,
		URL: pr.HTMLURL, Created: pr.Created, Updated: pr.Updated, Closed: closed,
	}, true
}

// label is GitHub's label object.
type label struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description"`
}

func toLabel(repo string, l *label) (Label, bool) {
	return Label{ID: strconv.FormatInt(l.ID, 10), Name: l.Name, Color: l.Color, Description: l.Description, Repository: repo}, true
}

// milestone is GitHub's milestone object.
type milestone struct {
	ID          int64      `json:"id"`
	Number      int        `json:"number"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	State       string     `json:"state"`
	Due         *time.Time `json:"due_on"`
	Created     time.Time  `json:"created_at"`
	Closed      *time.Time `json:"closed_at"`
}

func toMilestone(repo string, m *milestone) (Milestone, bool) {
	return Milestone{
		ID: strconv.FormatInt(m.ID, 10), Name: m.Title, Number: m.Number, Description: m.Description, State: m.State,
		Due: deref(m.Due), Repository: repo, Created: m.Created, Closed: deref(m.Closed),
	}, true
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// users pages through the users met in the selected repositories: their
// assignees (GET .../assignees), then the authors and assignees of their
// issues and pull requests (GET .../issues lists both), each user once: the
// cursor carries the ids already sent.
func (a *App) users(ctx context.Context, req *appkit.DataRequest, cur *Cursor) (*appkit.Page[User, Cursor], error) {
	seen := map[string]bool{}
	var sent []string
	if cur != nil {
		sent = cur.Seen
		for _, id := range cur.Seen {
			seen[id] = true
		}
	}
	page := &appkit.Page[User, Cursor]{}
	add := func(u account) {
		if id := strconv.FormatInt(u.ID, 10); u.ID != 0 && !seen[id] {
			seen[id] = true
			sent = append(sent, id)
			page.Items = append(page.Items, u.user())
		}
	}
	next, err := a.walk(ctx, req, cur, 2, func(repo string, step int) string {
		if step == 0 {
			return repoPath(repo) + "assignees?per_page=100"
		}
		return repoPath(repo) + "issues?state=all&per_page=100"
	}, func(c *session, _ string, step int, p string, at *upstream.Cursor) (*upstream.Cursor, error) {
		if step == 0 {
			list, next, err := fetch[account](ctx, c, p, at)
			for _, u := range list {
				add(u)
			}
			return next, err
		}
		list, next, err := fetch[issue](ctx, c, p, at)
		for _, is := range list {
			add(is.User)
			for _, u := range is.Assignees {
				add(u)
			}
		}
		return next, err
	})
	if next != nil {
		next.Seen = sent
	}
	page.Next = next
	return page, err
}
