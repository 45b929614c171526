// Package standin is a stand-in for the part of the GitHub REST API that
// examples/github reads: users, organizations, repositories, issues, pull
// requests, labels, milestones and assignees, generated deterministically,
// served with GitHub's paging (the Link header, per_page at most 100,
// page numbers), its state and since parameters, its rate-limit headers,
// and failures injected on demand (a 502, a rate-limited answer). Tests of
// the example sync it completely and record its answers; it never reaches
// the network.
package standin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Token is the one personal access token the stand-in accepts.
const Token = "ghp_standin0123456789abcdefghijklmnopqrstuv"

// Epoch is the time of the first generated item.
var Epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// RateLimit is the limit announced in X-RateLimit-Limit.
const RateLimit = 5000

// User is a GitHub account: a user or an organization.
type User struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
	Type  string `json:"type"` // User, Organization or Bot
}

// Repo is a repository.
type Repo struct {
	ID            int64
	Owner         *User
	Name          string
	Description   string
	Private, Fork bool
	Stars         int
	Created       time.Time
	Labels        []Label
	Milestones    []Milestone
	Assignees     []*User
	Issues        []*Issue // issues and pull requests by number - 1
}

// FullName is owner/name.
func (r *Repo) FullName() string { return r.Owner.Login + "/" + r.Name }

// Label is a repository's label.
type Label struct {
	ID                 int64
	Name, Color, About string
}

// Milestone is a repository's milestone.
type Milestone struct {
	ID, Number     int64
	Title, State   string
	Due, Created   time.Time
	Closed         time.Time
	Open, Finished int
}

// Issue is an issue or, with PR set, a pull request.
type Issue struct {
	ID, PRID                 int64
	Number                   int
	Title, Body, State       string
	Author                   *User
	Assignees                []*User
	Labels                   []int // indexes into the repo's Labels
	Milestone                int   // index into the repo's Milestones + 1; 0 is none
	Created, Updated, Closed time.Time
	PR                       bool
	Draft, Merged            bool
	Head, Base               string
}

// Data is the stand-in's content.
type Data struct {
	Me    *User   // the token's owner
	Orgs  []*User // the organizations Me belongs to
	Users []*User // every account, organizations included
	Repos []*Repo
}

// Generate returns a deterministic dataset: the user "octocat" in two
// organizations, and repos repositories per owner (three owners), each with
// issues issues and pull requests (every third one a pull request).
func Generate(repos, issues int) *Data {
	d := &Data{}
	var nextID int64 = 1000
	id := func() int64 { nextID++; return nextID }
	newUser := func(login, typ string) *User {
		u := &User{ID: id(), Login: login, Type: typ}
		d.Users = append(d.Users, u)
		return u
	}
	d.Me = newUser("octocat", "User")
	d.Orgs = []*User{newUser("octo-org", "Organization"), newUser("hubbers", "Organization")}
	people := []*User{d.Me, newUser("mona", "User"), newUser("hubot", "Bot"), newUser("defunkt", "User"), newUser("pjhyett", "User")}
	for oi, owner := range []*User{d.Me, d.Orgs[0], d.Orgs[1]} {
		for ri := range repos {
			r := &Repo{
				ID: id(), Owner: owner, Name: fmt.Sprintf("repo-%d", ri+1), Description: fmt.Sprintf("Repository %d of %s", ri+1, owner.Login),
				Private: ri%3 == 2, Fork: ri%4 == 3, Stars: (oi + 1) * (ri + 7), Created: Epoch.AddDate(0, 0, -30*(ri+1)),
			}
			for li, name := range []string{"bug", "enhancement", "question"} {
				r.Labels = append(r.Labels, Label{ID: id(), Name: name, Color: []string{"d73a4a", "a2eeef", "d876e3"}[li], About: "Issues of kind " + name})
			}
			for mi := range 2 {
				m := Milestone{ID: id(), Number: int64(mi + 1), Title: fmt.Sprintf("v%d.0", mi+1), State: []string{"closed", "open"}[mi],
					Due: Epoch.AddDate(0, mi+1, 0), Created: r.Created}
				if m.State == "closed" {
					m.Closed = Epoch.AddDate(0, 0, 20)
				}
				r.Milestones = append(r.Milestones, m)
			}
			r.Assignees = []*User{people[(ri+oi)%len(people)], people[(ri+oi+1)%len(people)]}
			for n := 1; n <= issues; n++ {
				at := Epoch.Add(time.Duration(n*(ri+1)) * time.Hour)
				is := &Issue{
					ID: id(), Number: n, Title: fmt.Sprintf("%s #%d: %s", r.Name, n, []string{"crash on start", "add dark mode", "docs are unclear", "slow search"}[n%4]),
					Body: fmt.Sprintf("Steps:\n\n1. run `app`\n2. see **issue %d**", n), State: []string{"open", "closed"}[n%2],
					Author: people[(n+ri)%len(people)], Labels: []int{n % 3}, Milestone: n % 3,
					Created: at, Updated: at.Add(time.Duration(n%5) * 24 * time.Hour),
					PR: n%3 == 0,
				}
				if n%4 == 1 {
					is.Assignees = []*User{r.Assignees[0]}
				} else if n%4 == 2 {
					is.Assignees = []*User{r.Assignees[0], r.Assignees[1]}
				}
				if is.State == "closed" {
					is.Closed = is.Updated
				}
				if is.PR {
					is.PRID = id()
					is.Draft, is.Merged = n%9 == 0 && is.State == "open", is.State == "closed" && n%2 == 1
					is.Head, is.Base = fmt.Sprintf("feature-%d", n), "main"
				}
				r.Issues = append(r.Issues, is)
			}
			d.Repos = append(d.Repos, r)
		}
	}
	return d
}

// Fault is a failure answered instead of a request.
type Fault struct {
	// Path is matched against the request's path (exact).
	Path string
	// Page, when not 0, restricts the fault to that page parameter.
	Page int
	// Status is the answer's status: 502 for an outage, 429 (or 403) with
	// rate-limit headers for a limit.
	Status int
	// Times is how many matching requests fail (0 counts as 1).
	Times int
}

// Server is a running stand-in.
type Server struct {
	*httptest.Server
	// Data is served; do not change it while requests run.
	Data *Data
	// MaxPerPage caps per_page (0: 100, as GitHub does); a small cap makes
	// a small dataset span many pages.
	MaxPerPage int

	mu       sync.Mutex
	now      func() time.Time
	faults   []*Fault
	requests []string // "GET /path?query", in order
	limited  int      // requests answered while limited
	reset    time.Time
}

// New serves d until the test ends. now is the stand-in's clock (nil:
// the wall clock); rate-limit resets are computed with it.
func New(t interface{ Cleanup(func()) }, d *Data, now func() time.Time) *Server {
	if now == nil {
		now = time.Now
	}
	s := &Server{Data: d, now: now}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Fail injects f: the next f.Times requests that match answer f.Status.
func (s *Server) Fail(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times == 0 {
		f.Times = 1
	}
	s.faults = append(s.faults, &f)
}

// Requests returns the requests served so far, "GET /path?query" each.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// LimitedHits returns how many requests arrived while the rate limit was
// exhausted (after a rate-limited answer, before its reset).
func (s *Server) LimitedHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limited
}

// ResetAfter is how long after a rate-limited answer the limit resets.
const ResetAfter = 90 * time.Second

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	s.mu.Lock()
	s.requests = append(s.requests, r.Method+" "+r.URL.RequestURI())
	if now.Before(s.reset) {
		s.limited++
	}
	var fault *Fault
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	for _, f := range s.faults {
		if f.Times > 0 && f.Path == r.URL.Path && (f.Page == 0 || f.Page == max(page, 1)) {
			f.Times--
			fault = f
			break
		}
	}
	reset := now.Add(ResetAfter).Truncate(time.Second)
	if fault != nil && (fault.Status == http.StatusTooManyRequests || fault.Status == http.StatusForbidden) {
		s.reset = reset
	}
	s.mu.Unlock()

	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
	if r.Header.Get("Authorization") != "Bearer "+Token {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
		return
	}
	if fault != nil && fault.Status >= 500 {
		// A gateway error comes from GitHub's edge, without the API's
		// rate-limit headers.
		h.Set("Content-Type", "text/html")
		w.WriteHeader(fault.Status)
		fmt.Fprint(w, "<html><body>Bad gateway</body></html>")
		return
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(RateLimit))
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Remaining", "4000")
	if fault != nil {
		switch fault.Status {
		case http.StatusTooManyRequests, http.StatusForbidden:
			h.Set("X-RateLimit-Remaining", "0")
			if fault.Status == http.StatusTooManyRequests { // a secondary limit
				h.Set("Retry-After", strconv.Itoa(int(ResetAfter/time.Second)))
			}
			writeJSON(w, fault.Status, map[string]string{"message": "API rate limit exceeded for user ID 1001."})
		default:
			writeJSON(w, fault.Status, map[string]string{"message": http.StatusText(fault.Status)})
		}
		return
	}
	if r.Method != http.MethodGet {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	s.route(w, r)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	d := s.Data
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	q := r.URL.Query()
	notFound := func() { writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"}) }
	switch {
	case r.URL.Path == "/user":
		writeJSON(w, 200, s.userJSON(d.Me))
	case r.URL.Path == "/user/orgs":
		list := make([]any, 0, len(d.Orgs))
		for _, o := range d.Orgs {
			list = append(list, map[string]any{"id": o.ID, "login": o.Login, "description": "The " + o.Login + " organization"})
		}
		s.paged(w, r, list)
	case len(parts) == 2 && parts[0] == "users":
		if u := d.user(parts[1]); u != nil {
			writeJSON(w, 200, s.userJSON(u))
		} else {
			notFound()
		}
	case len(parts) == 3 && (parts[0] == "users" || parts[0] == "orgs") && parts[2] == "repos":
		u := d.user(parts[1])
		if u == nil || (parts[0] == "orgs") != (u.Type == "Organization") {
			notFound()
			return
		}
		var list []any
		for _, rp := range d.Repos {
			if rp.Owner == u && (parts[0] == "orgs" || !rp.Private) { // /users/{u}/repos: public ones only
				list = append(list, s.repoJSON(rp))
			}
		}
		s.paged(w, r, list)
	case len(parts) == 4 && parts[0] == "repos":
		rp := d.repo(parts[1], parts[2])
		if rp == nil {
			notFound()
			return
		}
		state := q.Get("state")
		if state == "" {
			state = "open" // GitHub's default: a client that wants everything says state=all
		}
		keep := func(st string) bool { return state == "all" || state == st }
		var list []any
		switch parts[3] {
		case "issues":
			var since time.Time
			if v := q.Get("since"); v != "" {
				var err error
				if since, err = time.Parse(time.RFC3339, v); err != nil {
					writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed: since"})
					return
				}
			}
			// Most recently created first, as GitHub lists them.
			for i := len(rp.Issues) - 1; i >= 0; i-- {
				is := rp.Issues[i]
				if keep(is.State) && !is.Updated.Before(since) {
					list = append(list, s.issueJSON(rp, is, false))
				}
			}
		case "pulls":
			for i := len(rp.Issues) - 1; i >= 0; i-- {
				if is := rp.Issues[i]; is.PR && keep(is.State) {
					list = append(list, s.issueJSON(rp, is, true))
				}
			}
		case "labels":
			for _, l := range rp.Labels {
				list = append(list, labelJSON(l))
			}
		case "milestones":
			for _, m := range rp.Milestones {
				if keep(m.State) {
					list = append(list, milestoneJSON(m))
				}
			}
		case "assignees":
			for _, u := range rp.Assignees {
				list = append(list, s.userJSON(u))
			}
		default:
			notFound()
			return
		}
		s.paged(w, r, list)
	default:
		notFound()
	}
}

// paged answers one page of list, with GitHub's Link header.
func (s *Server) paged(w http.ResponseWriter, r *http.Request, list []any) {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per < 1 {
		per = 30
	}
	if s.MaxPerPage > 0 {
		per = min(per, s.MaxPerPage)
	}
	per = min(per, 100)
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	last := max(1, (len(list)+per-1)/per)
	link := func(p int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		v := r.URL.Query()
		v.Set("page", strconv.Itoa(p))
		u.RawQuery = v.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	from := min((page-1)*per, len(list))
	writeJSON(w, 200, append([]any{}, list[from:min(from+per, len(list))]...))
}

func (d *Data) user(login string) *User {
	for _, u := range d.Users {
		if strings.EqualFold(u.Login, login) {
			return u
		}
	}
	return nil
}

func (d *Data) repo(owner, name string) *Repo {
	for _, r := range d.Repos {
		if strings.EqualFold(r.Owner.Login, owner) && strings.EqualFold(r.Name, name) {
			return r
		}
	}
	return nil
}

// Repo returns the repository of a full name, or nil.
func (d *Data) Repo(fullName string) *Repo {
	owner, name, _ := strings.Cut(fullName, "/")
	return d.repo(owner, name)
}

func (s *Server) userJSON(u *User) map[string]any {
	return map[string]any{
		"login": u.Login, "id": u.ID, "type": u.Type, "site_admin": false,
		"avatar_url": "https://avatars.example.com/u/" + strconv.FormatInt(u.ID, 10),
		"html_url":   "https://github.example.com/" + u.Login, "url": s.URL + "/users/" + u.Login,
	}
}

func (s *Server) repoJSON(r *Repo) map[string]any {
	return map[string]any{
		"id": r.ID, "name": r.Name, "full_name": r.FullName(), "owner": s.userJSON(r.Owner),
		"private": r.Private, "fork": r.Fork, "description": r.Description, "archived": false,
		"html_url": "https://github.example.com/" + r.FullName(), "default_branch": "main",
		"stargazers_count": r.Stars, "created_at": stamp(r.Created), "updated_at": stamp(r.Created.AddDate(0, 0, 3)),
		"pushed_at": stamp(r.Created.AddDate(0, 0, 5)),
	}
}

func labelJSON(l Label) map[string]any {
	return map[string]any{"id": l.ID, "name": l.Name, "color": l.Color, "description": l.About, "default": false}
}

func milestoneJSON(m Milestone) map[string]any {
	return map[string]any{
		"id": m.ID, "number": m.Number, "title": m.Title, "state": m.State, "description": "Release " + m.Title,
		"open_issues": m.Open, "closed_issues": m.Finished, "due_on": stamp(m.Due), "created_at": stamp(m.Created),
		"updated_at": stamp(m.Created), "closed_at": stamp(m.Closed),
	}
}

func (s *Server) issueJSON(r *Repo, is *Issue, pull bool) map[string]any {
	labels := []any{}
	for _, li := range is.Labels {
		labels = append(labels, labelJSON(r.Labels[li]))
	}
	assignees := []any{}
	for _, u := range is.Assignees {
		assignees = append(assignees, s.userJSON(u))
	}
	var milestone, assignee any
	if is.Milestone > 0 {
		milestone = milestoneJSON(r.Milestones[is.Milestone-1])
	}
	if len(is.Assignees) > 0 {
		assignee = s.userJSON(is.Assignees[0])
	}
	kind := "issues"
	if is.PR {
		kind = "pull"
	}
	out := map[string]any{
		"id": is.ID, "number": is.Number, "title": is.Title, "body": is.Body, "state": is.State,
		"user": s.userJSON(is.Author), "assignee": assignee, "assignees": assignees, "labels": labels, "milestone": milestone,
		"created_at": stamp(is.Created), "updated_at": stamp(is.Updated), "closed_at": stamp(is.Closed),
		"html_url": fmt.Sprintf("https://github.example.com/%s/%s/%d", r.FullName(), kind, is.Number),
		"comments": is.Number % 4, "locked": false,
	}
	if pull {
		var merged any
		if is.Merged {
			merged = stamp(is.Closed)
		}
		out["id"], out["draft"], out["merged_at"] = is.PRID, is.Draft, merged
		out["head"] = map[string]any{"ref": is.Head, "label": r.Owner.Login + ":" + is.Head, "sha": fmt.Sprintf("%040x", is.PRID)}
		out["base"] = map[string]any{"ref": is.Base, "label": r.Owner.Login + ":" + is.Base, "sha": fmt.Sprintf("%040x", is.ID)}
		delete(out, "comments")
	} else if is.PR {
		out["pull_request"] = map[string]any{"url": fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, r.FullName(), is.Number)}
	}
	return out
}

// stamp is GitHub's time format; the zero time is null.
func stamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
