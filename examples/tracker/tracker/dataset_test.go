package tracker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/golden"
)

func TestParseProjectID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want int
		ok   bool
	}{
		{"p1", 1, true}, {"p10", 10, true}, {"p11", 0, false}, {"p0", 0, false}, {"p01", 0, false},
		{"p", 0, false}, {"", 0, false}, {"P1", 0, false}, {"p-1", 0, false}, {"p+1", 0, false},
		{"p1 ", 0, false}, {"t1", 0, false}, {"p99999999999999999999", 0, false},
	} {
		got, ok := ParseProjectID(tc.id, 10)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseProjectID(%q) = %d, %v; want %d, %v", tc.id, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseProjectID(f *testing.F) {
	for _, s := range []string{"p1", "p0", "p01", "p-1", "p1000000", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		i, ok := ParseProjectID(id, MaxProjects)
		if ok && (ProjectID(i) != id || i < 1 || i > MaxProjects) {
			t.Errorf("ParseProjectID(%q) = %d, which is not the id's index", id, i)
		}
		if !ok && i != 0 {
			t.Errorf("ParseProjectID(%q) failed but returned %d", id, i)
		}
	})
}

func TestDatasetIsDeterministic(t *testing.T) {
	a, b := DatasetOf(Config{Projects: 50, Tasks: 1000}), DatasetOf(Config{Projects: 50, Tasks: 1000})
	for j := 1; j <= 1000; j += 37 {
		if x, y := a.Task(j, testNow), b.Task(j, testNow); !reflect.DeepEqual(x, y) {
			t.Fatalf("task %d differs: %+v %+v", j, x, y)
		}
	}
	if !reflect.DeepEqual(a.Project(7), b.Project(7)) {
		t.Fatal("project 7 differs")
	}
	// The same dataset across versions: apps, tests and documentation
	// depend on its values, so a change to the generator must be seen (and
	// the golden file rewritten with -update on purpose).
	var sample bytes.Buffer
	for _, i := range []int{1, 7, 50} {
		fmt.Fprintf(&sample, "%+v\n", a.Project(i))
	}
	for _, j := range []int{1, 2, 37, 500, 999, 1000} {
		for _, at := range []time.Time{Epoch, testNow} {
			task := a.Task(j, at)
			fmt.Fprintf(&sample, "%s %+v\n", at.Format(time.DateOnly), task)
		}
	}
	golden.Check(t, "dataset.golden.txt", sample.Bytes(), *update)
}

// TestTaskTimeline checks every task's life against its rules: created in
// the year before Epoch, updates only after Epoch and never in the future,
// fields that change only with an update, about 2% deleted.
func TestTaskTimeline(t *testing.T) {
	ds := DatasetOf(Config{Projects: 13, Tasks: 20_000})
	deleted := 0
	for j := 1; j <= ds.Tasks; j++ {
		task := ds.Task(j, testNow)
		if !task.Created.Before(Epoch) || task.Created.Before(Epoch.Add(-createdSpan)) {
			t.Fatalf("task %d created %v", j, task.Created)
		}
		if task.Updated.Before(task.Created) || task.Updated.After(testNow) {
			t.Fatalf("task %d updated %v (created %v, now %v)", j, task.Updated, task.Created, testNow)
		}
		// Just before its last update the task had another status; at the
		// update and until now it has this one.
		if task.Updated.After(task.Created) {
			before := ds.Task(j, task.Updated.Add(-time.Second))
			at := ds.Task(j, task.Updated)
			if before.Status == task.Status || at.Status != task.Status || at.Priority != task.Priority {
				t.Fatalf("task %d: status %s before its update at %v, %s at it, %s now", j, before.Status, task.Updated, at.Status, task.Status)
			}
		}
		if task.Project < 1 || task.Project > ds.Projects || task.ProjectID != ProjectID(task.Project) {
			t.Fatalf("task %d in project %d (%s)", j, task.Project, task.ProjectID)
		}
		if task.Priority < 1 || task.Priority > 5 || task.Estimate <= 0 || !isStatus(task.Status) || task.Tags == nil {
			t.Fatalf("task %d: %+v", j, task)
		}
		if !task.DeletedAt.IsZero() {
			deleted++
			if task.DeletedAt.Before(Epoch) || task.Live(task.DeletedAt) || !task.Live(task.DeletedAt.Add(-time.Nanosecond)) {
				t.Fatalf("task %d deleted at %v", j, task.DeletedAt)
			}
		}
	}
	if deleted < ds.Tasks/100 || deleted > ds.Tasks*3/100 {
		t.Errorf("%d of %d tasks are ever deleted, want about 2%%", deleted, ds.Tasks)
	}
}

func TestDatasetOf(t *testing.T) {
	for _, tc := range []struct {
		in   Config
		want Dataset
	}{
		{Config{}, Dataset{DefaultProjects, DefaultTasks}},
		{Config{Projects: -3, Tasks: -1}, Dataset{1, 1}},
		{Config{Projects: 1 << 40, Tasks: 1 << 40}, Dataset{MaxProjects, MaxTasks}},
		{Config{Projects: 3, Tasks: 7}, Dataset{3, 7}},
	} {
		if got := DatasetOf(tc.in); got != tc.want {
			t.Errorf("DatasetOf(%+v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestDueRange(t *testing.T) {
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	at := func(s string) time.Time {
		v, err := time.Parse("2006-01-02T15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name string
		r    dayRange
		want bool
	}{
		{"open", dayRange{}, true},
		{"starts that day", dayRange{lo: at("2026-03-10T00:00:00"), hasLo: true}, true},
		{"starts late that day", dayRange{lo: at("2026-03-10T23:59:59"), hasLo: true}, true},
		{"starts the next day", dayRange{lo: at("2026-03-11T00:00:00"), hasLo: true}, false},
		{"ends that day", dayRange{hi: at("2026-03-10T00:00:00"), hasHi: true}, true},
		{"ends the day before", dayRange{hi: at("2026-03-09T23:59:59"), hasHi: true}, false},
		{"around", dayRange{lo: at("2026-03-01T00:00:00"), hi: at("2026-03-31T23:59:59"), hasLo: true, hasHi: true}, true},
		{"after", dayRange{lo: at("2026-04-01T00:00:00"), hi: at("2026-04-30T23:59:59"), hasLo: true, hasHi: true}, false},
	} {
		if got := tc.r.contains(day); got != tc.want {
			t.Errorf("%s: contains = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// BenchmarkPage serves a first page and a page near the end of a
// million-task dataset and reports far/first: about 1 when pages are
// generated on demand (a scan from the start would make it ~2000).
func BenchmarkPage(b *testing.B) {
	h := newHandler(b, Config{Projects: 1000, Tasks: 1_000_000})
	body := func(next *Cursor) string {
		raw, _ := json.Marshal(map[string]any{"requestedType": "task", "account": demo, "pagination": next})
		return string(raw)
	}
	first, far := body(nil), body(&Cursor{Next: 998_000})
	serve := func(n int, req string) time.Duration {
		start := time.Now()
		for range n {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequestWithContext(context.Background(), "POST", pathData, strings.NewReader(req)))
			if rec.Code != 200 {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
		return time.Since(start)
	}
	base := serve(max(b.N/4, 1), first) // baseline: the first page
	b.ResetTimer()
	d := serve(b.N, far)
	b.StopTimer()
	b.ReportMetric(float64(d)/float64(b.N)/(float64(base)/float64(max(b.N/4, 1))), "far/first")
}
