// Package tracker is the appkit example synchronization app: a task
// tracker's projects and tasks, generated deterministically so that it works
// offline at any size.
//
// Build it in process with [New] (the host and the benchmarks do) or run it
// with `go run ./examples/tracker`. The contract that other tools script
// against:
//
//   - authentication id "token" with one field "token"; the token [DemoToken]
//     ("demo") is valid, any other is refused with 401 (on /validate, and on
//     data and datalist, which check the account again);
//   - types "project" and "task"; each task belongs to one project through its
//     "project" field (a many-to-one relation, declared once, on task);
//   - filters "projects" (multidropdown fed by the datalist), "status"
//     (multidropdown fed by the datalist) and "due" (a date filter: the
//     date-range grammar);
//   - pages of at most [PageSize] items with the cursor [Cursor];
//   - delta synchronization of tasks when lastSynchronizedAt is set.
//
// # The dataset
//
// Project i (1..Projects) and task j (1..Tasks) are computed from their index
// by a hash ([Dataset]); nothing is stored, so a page of a million-task
// dataset costs the same as a page of a small one. Times are relative to the
// fixed [Epoch] and evaluated at the app's clock (Config.Now): a task is
// created in the year before Epoch; from Epoch on it is updated every 2 to 120
// days (its own period), each update moving its status one step and
// changing its priority; one task in 50 is deleted at a time within the two
// years after Epoch. A full synchronization returns the tasks live at "now".
//
// # Delta synchronization
//
// When the data request carries lastSynchronizedAt and no task filter is set
// (none of due, projects and status), task pages answer delta relative to
// cutoff = lastSynchronizedAt − [SafetyMargin] (one hour, for clock skew
// between the service and the app and for runs that overlapped an update):
//
//   - a task updated after the cutoff: SET with only the fields an update
//     changes (id, status, priority, updated) when the service surely holds
//     it (it existed all through [cutoff, lastSynchronizedAt]), otherwise SET
//     with the full item;
//   - a task deleted after the cutoff: removed (Page.Removed), when the
//     service may hold it;
//   - anything else is left out.
//
// The partial SET works because every other field of [TaskItem] never
// changes after a task is created and can be left out: left out, it stays
// as the service has it.
//
// With any task filter set, pages answer full (every live matching task):
// a filter may select other tasks than at the last run (a relative due
// range such as "this week" moves by itself, and the user may have edited
// the selection of projects or statuses since), which a delta could not
// express.
//
// Projects never change after creation and are always answered full.
//
// # Paging
//
// The cursor is the position in the index space. Each page examines at most
// [ScanLimit] indices and returns at most [PageSize] items, so with filters
// or in delta mode pages are often short or empty; hasNext stays true until
// the index space is exhausted (a client must not stop on a short page).
package tracker

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/daterange"
)

// DemoToken is the one valid token.
const DemoToken = "demo"

// PageSize is the most items a data page holds.
const PageSize = 500

// ScanLimit is the most indices one data page examines, which bounds a
// page's cost when filters or delta mode drop most items.
const ScanLimit = 20 * PageSize

// SafetyMargin is subtracted from lastSynchronizedAt before looking for
// changes, so that a change is never missed because of clock skew or a run
// that overlapped it; changes inside the margin are sent again, which SET
// makes harmless.
const SafetyMargin = time.Hour

// Config sizes the dataset and sets the clock. The zero Config is valid:
// 10 projects, 500 tasks, the wall clock.
type Config struct {
	// Projects is the number of projects: 0 means [DefaultProjects]; values
	// are clamped to 1..[MaxProjects].
	Projects int
	// Tasks is the number of tasks: 0 means [DefaultTasks]; values are
	// clamped to 1..[MaxTasks].
	Tasks int
	// Now is the dataset's clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the request log; nil means appkit's default (stderr).
	Logger *zerolog.Logger
}

// Cursor is the tracker's pagination cursor (nextPageConfig): the 0-based
// position in the index space of the requested type where the next page
// starts.
type Cursor struct {
	Next int `json:"next"`
}

// The filter ids.
const (
	FilterProjects = "projects"
	FilterStatus   = "status"
	FilterDue      = "due"
)

// tracker serves one dataset.
type tracker struct {
	ds  Dataset
	now func() time.Time

	projectsFilter *appkit.FilterOf[[]string]
	statusFilter   *appkit.FilterOf[[]string]
	dueFilter      *appkit.FilterOf[daterange.Range]
}

// DatasetOf returns the dataset that [New] serves for cfg (after defaults
// and clamping).
func DatasetOf(cfg Config) Dataset {
	clamp := func(v, def, max int) int {
		switch {
		case v == 0:
			return def
		case v < 1:
			return 1
		case v > max:
			return max
		}
		return v
	}
	return Dataset{Projects: clamp(cfg.Projects, DefaultProjects, MaxProjects), Tasks: clamp(cfg.Tasks, DefaultTasks, MaxTasks)}
}

// New returns the tracker app for cfg.
func New(cfg Config) *appkit.App {
	t := &tracker{ds: DatasetOf(cfg), now: cfg.Now}
	if t.now == nil {
		t.now = time.Now
	}
	t.projectsFilter = appkit.MultiDropdownFilter(FilterProjects, "Projects", t.projectOptions).Optional()
	t.statusFilter = appkit.MultiDropdownFilter(FilterStatus, "Status", statusOptions).Optional()
	t.dueFilter = appkit.DateRangeFilter(FilterDue, "Due").Optional()
	return &appkit.App{
		ID:          "tracker",
		Name:        "Tracker",
		Version:     "1.0.0",
		Description: "Projects and tasks of a task tracker, generated deterministically (appkit example)",
		Website:     "https://github.com/appkitgo/appkit/tree/main/examples/tracker",
		Auth:        []appkit.Auth{appkit.TokenAuth("API token", "Your tracker API token (the demo token is \"demo\")", validateToken)},
		Sync: &appkit.Sync{
			Types: []appkit.Type{
				{ID: "project", Name: "Projects", Default: true, Data: appkit.Pages(t.projects)},
				{ID: "task", Name: "Tasks", Default: true, Delta: true, Data: appkit.Pages(t.tasks)},
			},
			Filters:        []appkit.Filter{t.projectsFilter, t.statusFilter, t.dueFilter},
			ValidateFilter: t.validateFilter,
			DeltaMargin:    SafetyMargin,
		},
		Logo:   appkit.LogoSVG(logo),
		Logger: cfg.Logger,
	}
}

var logo = []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">` +
	`<rect width="64" height="64" rx="12" fill="#2b6cb0"/>` +
	`<path d="M16 22h32M16 34h32M16 46h20" stroke="#fff" stroke-width="5" stroke-linecap="round"/>` +
	`<path d="M42 44l4 4 8-10" fill="none" stroke="#9ae6b4" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/>` +
	`</svg>`)

func validateToken(_ context.Context, token string) (string, error) {
	if subtle.ConstantTimeCompare([]byte(token), []byte(DemoToken)) != 1 {
		return "", appkit.InvalidAccount("invalid token")
	}
	return "Demo tracker", nil
}

// checkAccount refuses data and datalist requests of an account whose token
// is not valid (the service sends the stored account with every call).
func checkAccount(a appkit.Account) error {
	token, _ := appkit.TokenAuthToken.Get(a)
	_, err := validateToken(context.Background(), token)
	return err
}

// query is the decoded filter of a request.
type query struct {
	projects map[int]bool    // nil: every project
	statuses map[string]bool // nil: every status
	due      dayRange
}

func (t *tracker) query(f appkit.Filters) query {
	var q query
	if ids, _ := t.projectsFilter.Get(f); len(ids) > 0 {
		// Unknown ids select nothing (filter/validate refuses them; a saved
		// filter may outlive a smaller dataset).
		q.projects = make(map[int]bool, len(ids))
		for _, id := range ids {
			if i, ok := ParseProjectID(id, t.ds.Projects); ok {
				q.projects[i] = true
			}
		}
	}
	if ss, _ := t.statusFilter.Get(f); len(ss) > 0 {
		q.statuses = make(map[string]bool, len(ss))
		for _, s := range ss {
			q.statuses[s] = true
		}
	}
	if r, ok := t.dueFilter.Get(f); ok {
		q.due = dueRange(r)
	}
	return q
}

// static reports whether task j passes the filters on fields that never
// change (project and due day).
func (q *query) static(ds *Dataset, j int) bool {
	if q.projects != nil && !q.projects[ds.taskProject(j)] {
		return false
	}
	return q.due.contains(taskDue(j))
}

func (q *query) status(s string) bool { return q.statuses == nil || q.statuses[s] }

func (t *tracker) validateFilter(_ context.Context, req *appkit.Request) error {
	// The account first: a wrong token learns nothing about the data.
	if err := checkAccount(req.Account); err != nil {
		return err
	}
	var bad []string
	ids, _ := t.projectsFilter.Get(req.Filter)
	for _, id := range ids {
		if _, ok := ParseProjectID(id, t.ds.Projects); !ok {
			bad = append(bad, fmt.Sprintf("%q", id))
		}
	}
	if len(bad) > 0 {
		return appkit.BadRequest("filter %q: unknown project(s) %s", FilterProjects, strings.Join(bad, ", "))
	}
	statuses, _ := t.statusFilter.Get(req.Filter)
	for _, s := range statuses {
		if !isStatus(s) {
			return appkit.BadRequest("filter %q: unknown status %q (want one of %s)", FilterStatus, s, strings.Join(Statuses, ", "))
		}
	}
	return nil
}

func isStatus(s string) bool {
	for _, v := range Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// projectOptions serves the projects filter's datalist.
func (t *tracker) projectOptions(_ context.Context, req *appkit.DatalistRequest) ([]appkit.Option, error) {
	if err := checkAccount(req.Account); err != nil {
		return nil, err
	}
	out := make([]appkit.Option, t.ds.Projects)
	for i := range out {
		p := t.ds.Project(i + 1)
		out[i] = appkit.Option{Title: p.Name, Value: p.ID}
	}
	return out, nil
}

// statusOptions serves the status filter's datalist.
func statusOptions(_ context.Context, req *appkit.DatalistRequest) ([]appkit.Option, error) {
	if err := checkAccount(req.Account); err != nil {
		return nil, err
	}
	out := make([]appkit.Option, len(Statuses))
	for i, s := range Statuses {
		out[i] = appkit.Option{Title: s, Value: s}
	}
	return out, nil
}

// start checks a data request's account, and its cursor against the size
// of the index space, and returns where the page starts.
func start(req *appkit.DataRequest, c *Cursor, size int) (int, error) {
	if err := checkAccount(req.Account); err != nil {
		return 0, err
	}
	if c == nil {
		return 0, nil
	}
	if c.Next < 0 || c.Next >= size {
		return 0, appkit.BadRequest("pagination: next %d is outside the index space 0..%d", c.Next, size-1)
	}
	return c.Next, nil
}

func (t *tracker) projects(ctx context.Context, req *appkit.DataRequest, c *Cursor) (*appkit.Page[ProjectItem, Cursor], error) {
	from, err := start(req, c, t.ds.Projects)
	if err != nil {
		return nil, err
	}
	q := t.query(req.Filter)
	page := &appkit.Page[ProjectItem, Cursor]{Items: make([]ProjectItem, 0, min(PageSize, t.ds.Projects-from))}
	i := from
	for ; i < t.ds.Projects && i-from < ScanLimit && len(page.Items) < PageSize; i++ {
		if q.projects != nil && !q.projects[i+1] {
			continue
		}
		page.Items = append(page.Items, newProjectItem(t.ds.Project(i+1)))
	}
	if i < t.ds.Projects {
		page.Next = &Cursor{Next: i}
	}
	return page, ctx.Err()
}

func (t *tracker) tasks(ctx context.Context, req *appkit.DataRequest, c *Cursor) (*appkit.Page[TaskItem, Cursor], error) {
	from, err := start(req, c, t.ds.Tasks)
	if err != nil {
		return nil, err
	}
	q := t.query(req.Filter)
	now := t.now().UTC()
	// Delta only when no filter can have moved the task set: a due range
	// (often relative: "this week") or a selection of projects or statuses
	// may differ from the last run's, so those runs answer full.
	cutoff, delta := req.Since() // lastSynchronizedAt − SafetyMargin
	delta = delta && !req.Filter.Any()
	page := &appkit.Page[TaskItem, Cursor]{Items: make([]TaskItem, 0, 64), Delta: delta}
	i := from
	for ; i < t.ds.Tasks && i-from < ScanLimit && len(page.Items)+len(page.Removed) < PageSize; i++ {
		if i&1023 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		j := i + 1
		if !q.static(&t.ds, j) {
			continue
		}
		if delta {
			t.deltaItem(page, j, cutoff, req.LastSynchronizedAt, now)
		} else if item, ok := t.fullItem(j, &q, now); ok {
			page.Items = append(page.Items, item)
		}
	}
	if i < t.ds.Tasks {
		page.Next = &Cursor{Next: i}
	}
	return page, nil
}

// fullItem returns task j when it is live at now and passes the status
// filter.
func (t *tracker) fullItem(j int, q *query, now time.Time) (TaskItem, bool) {
	tl := taskTimeline(j)
	if !tl.deleted.IsZero() && !tl.deleted.After(now) {
		return TaskItem{}, false
	}
	if q.statuses != nil {
		k, _ := tl.updates(now)
		if !q.status(status(j, k)) {
			return TaskItem{}, false
		}
	}
	task := t.ds.Task(j, now)
	return newTaskItem(&task), true
}

// deltaItem adds to page what changed about task j since the last run; it
// runs only without filters. The service's copy is as of some moment in
// [cutoff, last]: a partial SET is sent only when the task existed during
// all of it, a removal when it existed at some moment of it.
func (t *tracker) deltaItem(page *appkit.Page[TaskItem, Cursor], j int, cutoff, last, now time.Time) {
	tl := taskTimeline(j)
	always, ever := !tl.created.After(cutoff), !tl.created.After(last)
	if !tl.deleted.IsZero() && !tl.deleted.After(now) {
		if tl.deleted.After(cutoff) && ever {
			page.Removed = append(page.Removed, TaskID(j))
		}
		return
	}
	kNow, updated := tl.updates(now)
	if !updated.After(cutoff) && always {
		return
	}
	if always {
		page.Items = append(page.Items, TaskItem{ID: TaskID(j), Status: status(j, kNow), Priority: priority(j, kNow), Updated: updated})
		return
	}
	task := t.ds.Task(j, now)
	page.Items = append(page.Items, newTaskItem(&task))
}

// ProjectItem is a project as the app sends it: the struct declares the
// project type's schema.
type ProjectItem struct {
	ID          string    `appkit:"id"`
	Name        string    `appkit:"name"`
	Description string    `appkit:"description,md"`
	URL         string    `appkit:"url,url,name=URL"`
	Created     time.Time `appkit:"created,readonly"`
}

func newProjectItem(p Project) ProjectItem {
	return ProjectItem{ID: p.ID, Name: p.Name, Description: p.Description, URL: p.URL, Created: p.Created}
}

// TaskItem is a task as the app sends it: the struct declares the task
// type's schema. The fields an update never changes are left out of a
// partial task (id, status, priority, updated) in a delta page: omitempty
// for those that are never empty, a pointer (nil: left out) for the tags,
// which may be.
type TaskItem struct {
	ID          string     `appkit:"id"`
	Name        string     `appkit:"name,omitempty"`
	Description string     `appkit:"description,md,omitempty"`
	Status      string     `appkit:"status,single-select,options=todo|doing|done"`
	Priority    int        `appkit:"priority,desc=1 (highest) to 5"`
	Estimate    float64    `appkit:"estimate,format=Number,precision=1,unit=h,omitempty"`
	Due         appkit.Day `appkit:"due,omitempty"`
	Created     time.Time  `appkit:"created,readonly,omitempty"`
	Updated     time.Time  `appkit:"updated,readonly"`
	Assignee    string     `appkit:"assignee,email,omitempty"`
	URL         string     `appkit:"url,url,name=URL,omitempty"`
	Tags        *[]string  `appkit:"tags,multi-select,options=bug|feature|chore|docs|security|performance"`
	Project     string     `appkit:"project,ref=project,inverse=Tasks,omitempty"`
}

func newTaskItem(t *Task) TaskItem {
	return TaskItem{
		ID: t.ID, Name: t.Name, Description: t.Description, Status: t.Status,
		Priority: t.Priority, Estimate: t.Estimate, Due: appkit.DayOf(t.Due),
		Created: t.Created, Updated: t.Updated,
		Assignee: t.Assignee, URL: t.URL, Tags: &t.Tags, Project: t.ProjectID,
	}
}
