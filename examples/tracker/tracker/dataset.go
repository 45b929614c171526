package tracker

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Epoch is the fixed origin of the dataset's timeline: every task was created
// in the year before it, and updates and deletions happen after it.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Limits and defaults of the dataset's size.
const (
	DefaultProjects = 10
	DefaultTasks    = 500
	MaxProjects     = 100_000
	MaxTasks        = 100_000_000
)

// Statuses are the values of a task's status, in workflow order.
var Statuses = []string{"todo", "doing", "done"}

// Tags are the options of a task's multi-select tags field.
var Tags = []string{"bug", "feature", "chore", "docs", "security", "performance"}

// The timeline of a task (see [Dataset.Task]).
const (
	createdSpan   = 365 * 24 * time.Hour // tasks are created in the year before Epoch
	minPeriod     = 2 * 24 * time.Hour   // shortest interval between two updates of a task
	maxPeriod     = 120 * 24 * time.Hour // longest
	deleteSpan    = 730 * 24 * time.Hour // deletions happen within two years after Epoch
	deleteEveryNd = 50                   // one task in 50 (2%) is deleted at some point
	dueBefore     = 60                   // due days run from Epoch-60d ...
	dueSpan       = 240                  // ... over 240 days
)

var (
	verbs   = []string{"Fix", "Design", "Review", "Document", "Refactor", "Test", "Deploy", "Investigate", "Plan", "Migrate"}
	objects = []string{"login page", "billing export", "search index", "onboarding email", "API rate limits", "mobile layout",
		"audit log", "invoice PDF", "dark mode", "cache layer", "webhook retries", "CSV import"}
	people     = []string{"ada", "grace", "alan", "barbara", "edsger", "frances", "ken", "margaret"}
	adjectives = []string{"Silver", "Amber", "Quiet", "Rapid", "Northern", "Hidden", "Bright", "Iron"}
	nouns      = []string{"Falcon", "Harbor", "Lantern", "Meadow", "Summit", "Compass", "Orchard", "Beacon"}
)

// Dataset is the deterministic tracker dataset: projects 1..Projects and
// tasks 1..Tasks, each computed from its index by a cheap hash. Nothing is
// stored: any project or task, at any point of its timeline, costs O(1) to
// compute, so a page costs O(page) whatever the dataset's size.
type Dataset struct {
	Projects int
	Tasks    int
}

// Project is one project.
type Project struct {
	Index       int
	ID          string
	Name        string
	Description string
	URL         string
	Created     time.Time
}

// Task is one task as it is at a given time (see [Dataset.Task]).
type Task struct {
	Index       int
	ID          string
	Name        string
	Description string
	Status      string
	Priority    int
	Estimate    float64
	Due         time.Time // midnight UTC of the due day
	Created     time.Time
	Updated     time.Time // the last update at or before the time asked for, or Created
	Assignee    string
	URL         string
	Tags        []string
	Project     int    // index of the task's project
	ProjectID   string // id of the task's project
	// DeletedAt is when the task is deleted; zero for the 98% of tasks that
	// never are.
	DeletedAt time.Time
}

// Live reports whether the task exists at the time at.
func (t *Task) Live(at time.Time) bool { return t.DeletedAt.IsZero() || t.DeletedAt.After(at) }

// ProjectID returns the id of project i ("p<i>").
func ProjectID(i int) string { return "p" + strconv.Itoa(i) }

// TaskID returns the id of task j ("t<j>").
func TaskID(j int) string { return "t" + strconv.Itoa(j) }

// ParseProjectID returns the index of a project id, or false when the id is
// not of the form p<i> with 1 <= i <= projects.
func ParseProjectID(id string, projects int) (int, bool) {
	rest, ok := strings.CutPrefix(id, "p")
	if !ok || rest == "" || rest[0] == '0' || len(rest) > 9 {
		return 0, false
	}
	i := 0
	for _, c := range []byte(rest) {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
	}
	if i > projects {
		return 0, false
	}
	return i, true
}

// mix is the splitmix64 finalizer: a cheap, well-spread 64-bit hash.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// hash derives an independent value per (index, salt).
func hash(i int, salt uint64) uint64 { return mix(uint64(i)*0x100000001b3 ^ salt<<56 ^ salt) }

func pick(list []string, h uint64) string { return list[h%uint64(len(list))] }

// Project returns project i (1 <= i <= d.Projects; other values give a
// project that the app never serves).
func (d *Dataset) Project(i int) Project {
	h := hash(i, 101)
	name := pick(adjectives, h) + " " + pick(nouns, h>>8) + " " + strconv.Itoa(i)
	return Project{
		Index: i, ID: ProjectID(i), Name: name,
		Description: "The **" + name + "** project.\n\nLead: " + pick(people, h>>16) + "@example.com",
		URL:         "https://tracker.example.com/projects/" + strconv.Itoa(i),
		Created:     Epoch.Add(-createdSpan - time.Duration(h>>24%uint64(createdSpan/time.Second))*time.Second),
	}
}

// timeline is the static part of task j's life: enough to know its update
// count and deletion at any time without building the whole task.
type timeline struct {
	created time.Time
	period  time.Duration // interval between updates
	phase   time.Duration // first update at Epoch+phase
	deleted time.Time     // zero: never
}

func taskTimeline(j int) timeline {
	created := Epoch.Add(-time.Duration(hash(j, 1)%uint64(createdSpan/time.Second)+1) * time.Second)
	period := minPeriod + time.Duration(hash(j, 2)%uint64((maxPeriod-minPeriod)/time.Second))*time.Second
	phase := time.Duration(hash(j, 3)%uint64(period/time.Second)) * time.Second
	tl := timeline{created: created, period: period, phase: phase}
	if hash(j, 4)%deleteEveryNd == 0 {
		tl.deleted = Epoch.Add(time.Duration(hash(j, 5)%uint64(deleteSpan/time.Second)) * time.Second)
	}
	return tl
}

// updates returns how many updates happened at or before t, and the time
// of the last one (created when none).
func (tl *timeline) updates(t time.Time) (int64, time.Time) {
	first := Epoch.Add(tl.phase)
	if t.Before(first) {
		return 0, tl.created
	}
	k := int64(t.Sub(first)/tl.period) + 1
	return k, first.Add(time.Duration(k-1) * tl.period)
}

// status returns task j's status after k updates: each update moves it one
// step along todo → doing → done → todo (reopened).
func status(j int, k int64) string {
	return Statuses[(hash(j, 6)+uint64(k))%uint64(len(Statuses))]
}

// priority returns task j's priority (1..5) after k updates.
func priority(j int, k int64) int { return 1 + int((hash(j, 7)+uint64(k)*3)%5) }

// Task returns task j (1 <= j <= d.Tasks) as it is at time at: its status,
// priority and updated time follow its updates up to then. Whether it is
// still live at that time is [Task.Live].
func (d *Dataset) Task(j int, at time.Time) Task {
	tl := taskTimeline(j)
	k, updated := tl.updates(at)
	h := hash(j, 8)
	p := d.taskProject(j)
	name := pick(verbs, h) + " " + pick(objects, h>>8)
	est := 0.5 * float64(1+h>>16%32)
	assignee := pick(people, h>>24) + "@example.com"
	var tags []string
	for i, tag := range Tags {
		if h>>(32+2*i)&3 == 0 {
			tags = append(tags, tag)
		}
	}
	if tags == nil {
		tags = []string{}
	}
	return Task{
		Index: j, ID: TaskID(j), Name: name,
		Description: fmt.Sprintf("**%s** in project %s.\n\n- estimate: %.1f h\n- owner: %s\n", name, ProjectID(p), est, assignee),
		Status:      status(j, k), Priority: priority(j, k), Estimate: est,
		Due:     taskDue(j),
		Created: tl.created, Updated: updated, Assignee: assignee,
		URL: "https://tracker.example.com/tasks/" + strconv.Itoa(j), Tags: tags,
		Project: p, ProjectID: ProjectID(p), DeletedAt: tl.deleted,
	}
}

// taskProject returns the index of task j's project without building the
// task.
func (d *Dataset) taskProject(j int) int { return 1 + int(hash(j, 9)%uint64(d.Projects)) }

// taskDue returns task j's due day without building the task.
func taskDue(j int) time.Time { return Epoch.AddDate(0, 0, int(hash(j, 10)%dueSpan)-dueBefore) }
