package tracker

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/golden"
	"github.com/rs/zerolog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testNow is the clock of the tests: 200 days after Epoch.
var testNow = Epoch.Add(200 * 24 * time.Hour)

func newHandler(t testing.TB, cfg Config) http.Handler {
	t.Helper()
	nop := zerolog.Nop()
	cfg.Logger = &nop
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return testNow }
	}
	h, err := New(cfg).Handler()
	if err != nil {
		t.Fatalf("Handler: %v", err)
	}
	return h
}

func do(t testing.TB, h http.Handler, method, path, body string) (int, []byte, http.Header) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	return rec.Code, rec.Body.Bytes(), rec.Header()
}

func post(t testing.TB, h http.Handler, path string, body any) (int, []byte) {
	t.Helper()
	b, ok := body.(string)
	if !ok {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		b = string(raw)
	}
	code, out, _ := do(t, h, http.MethodPost, path, b)
	return code, out
}

const (
	pathConfig   = "/api/v1/synchronizer/config"
	pathSchema   = "/api/v1/synchronizer/schema"
	pathData     = "/api/v1/synchronizer/data"
	pathDatalist = "/api/v1/synchronizer/datalist"
	pathFilter   = "/api/v1/synchronizer/filter/validate"
)

var demo = map[string]any{"token": DemoToken}

func TestGolden(t *testing.T) {
	h := newHandler(t, Config{})
	for _, tc := range []struct {
		file, method, path, body string
	}{
		{"descriptor.golden.json", http.MethodGet, "/", ""},
		{"config.golden.json", http.MethodPost, pathConfig, `{"account":{"token":"demo"}}`},
		{"schema.golden.json", http.MethodPost, pathSchema, `{"types":["project","task"],"account":{"token":"demo"}}`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			code, body, hdr := do(t, h, tc.method, tc.path, tc.body)
			if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
				t.Fatalf("status %d, content type %q: %s", code, hdr.Get("Content-Type"), body)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, body, "", "  "); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.file, pretty.Bytes(), *update)
		})
	}
}

// postCase is a POST of body and the answer it must get: the status and a
// substring of the body (an error answer carries a message).
type postCase struct {
	name, body string
	code       int
	want       string
}

// checkPosts posts the body of each case to path on h, a subtest a case.
func checkPosts(t *testing.T, h http.Handler, path string, cases []postCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, h, path, tc.body)
			if code != tc.code || !strings.Contains(string(body), tc.want) || code >= 400 && !strings.Contains(string(body), `"message"`) {
				t.Errorf("got %d %s, want %d containing %s", code, body, tc.code, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	h := newHandler(t, Config{})
	checkPosts(t, h, "/validate", []postCase{
		{"demo token", `{"id":"token","fields":{"token":"demo"}}`, 200, `{"name":"Demo tracker"}`},
		{"other token", `{"id":"token","fields":{"token":"demo2"}}`, 401, `"message":"invalid token"`},
		{"empty token", `{"id":"token","fields":{"token":""}}`, 401, `token is missing`},
		{"missing token", `{"id":"token","fields":{}}`, 401, `token is missing`},
		{"missing id", `{"fields":{"token":"demo"}}`, 400, `id is required`},
		{"unknown authentication", `{"id":"basic","fields":{"token":"demo"}}`, 401, `unknown authentication`},
		{"malformed JSON", `{"id":"token",`, 400, `malformed JSON`},
	})
}

func TestLogo(t *testing.T) {
	code, body, hdr := do(t, newHandler(t, Config{}), http.MethodGet, "/logo", "")
	if code != 200 || hdr.Get("Content-Type") != "image/svg+xml" || !bytes.HasPrefix(body, []byte("<svg")) {
		t.Errorf("got %d %q %.40s", code, hdr.Get("Content-Type"), body)
	}
}

func TestConfigAndSchemaErrors(t *testing.T) {
	h := newHandler(t, Config{})
	checkPosts(t, h, pathConfig, []postCase{
		{"config without account", ``, 200, `"types":[{"id":"project"`},
		{"config malformed", `{"account":`, 400, `malformed JSON`},
		{"config wrong shape", `{"account":[1]}`, 400, `account`},
	})
	checkPosts(t, h, pathSchema, []postCase{
		{"one type", `{"types":["task"]}`, 200, `"relation":{"cardinality":"many-to-one","name":"Project","targetType":"project","targetName":"Tasks","targetFieldId":"id"}`},
		{"unknown type", `{"types":["task","bug"]}`, 400, `unknown type \"bug\"`},
		{"no types", `{"types":[]}`, 400, `types`},
		{"malformed", `{"types":`, 400, `malformed JSON`},
	})
}

// dataPage is the decoded answer of one data call.
type dataPage struct {
	Items               []map[string]any `json:"items"`
	SynchronizationType string           `json:"synchronizationType"`
	Pagination          struct {
		HasNext        bool            `json:"hasNext"`
		NextPageConfig json.RawMessage `json:"nextPageConfig"`
	} `json:"pagination"`
}

// walk loads every page of a type the way the service does, following
// nextPageConfig until hasNext is false, and returns the items and the
// number of pages.
func walk(t *testing.T, h http.Handler, req map[string]any) ([]map[string]any, int) {
	t.Helper()
	var items []map[string]any
	req["pagination"] = nil
	for pages := 1; ; pages++ {
		code, body := post(t, h, pathData, req)
		if code != 200 {
			t.Fatalf("page %d: status %d: %s", pages, code, body)
		}
		var p dataPage
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		if p.Items == nil || len(p.Items) > PageSize {
			t.Fatalf("page %d: %d items (nil: %v)", pages, len(p.Items), p.Items == nil)
		}
		wantType := "full"
		f, _ := req["filter"].(map[string]any)
		if req["lastSynchronizedAt"] != nil && req["requestedType"] == "task" && f["due"] == nil && isEmpty(f["projects"]) && isEmpty(f["status"]) {
			wantType = "delta"
		}
		if p.SynchronizationType != wantType {
			t.Fatalf("page %d: synchronizationType %q, want %q", pages, p.SynchronizationType, wantType)
		}
		items = append(items, p.Items...)
		if !p.Pagination.HasNext {
			return items, pages
		}
		req["pagination"] = p.Pagination.NextPageConfig
		if pages > 100_000 {
			t.Fatal("no end")
		}
	}
}

// liveTasks computes, independently of the handlers, the ids of the tasks
// that a full sync at now must deliver under keep.
func liveTasks(ds Dataset, now time.Time, keep func(*Task) bool) map[string]*Task {
	out := map[string]*Task{}
	for j := 1; j <= ds.Tasks; j++ {
		task := ds.Task(j, now)
		if task.Live(now) && (keep == nil || keep(&task)) {
			out[task.ID] = &task
		}
	}
	return out
}

func TestFullSync(t *testing.T) {
	cfg := Config{Projects: 7, Tasks: 1700}
	h := newHandler(t, cfg)
	ds := DatasetOf(cfg)

	projects, _ := walk(t, h, map[string]any{"requestedType": "project", "types": []string{"project", "task"}, "account": demo})
	pids := map[string]bool{}
	for _, p := range projects {
		pids[p["id"].(string)] = true
	}
	if len(pids) != 7 || len(projects) != 7 {
		t.Fatalf("%d projects, %d distinct ids, want 7", len(projects), len(pids))
	}

	items, pages := walk(t, h, map[string]any{"requestedType": "task", "types": []string{"project", "task"}, "account": demo})
	want := liveTasks(ds, testNow, nil)
	if len(want) == ds.Tasks || len(want) < ds.Tasks*9/10 {
		t.Fatalf("test dataset: %d of %d tasks live: want a few deleted", len(want), ds.Tasks)
	}
	if pages < 4 {
		t.Errorf("%d pages for %d tasks", pages, len(items))
	}
	if len(items) != len(want) {
		t.Errorf("got %d tasks, want the %d live ones", len(items), len(want))
	}
	seen := map[string]bool{}
	for _, it := range items {
		id, _ := it["id"].(string)
		if seen[id] {
			t.Errorf("task %s delivered twice", id)
		}
		seen[id] = true
		if want[id] == nil {
			t.Errorf("task %s is not live", id)
		}
		if !pids[it["project"].(string)] {
			t.Errorf("task %s: project %v does not exist", id, it["project"])
		}
		for _, f := range []string{"name", "description", "status", "priority", "estimate", "due", "created", "updated", "assignee", "url", "tags"} {
			if _, ok := it[f]; !ok {
				t.Errorf("task %s has no %s", id, f)
			}
		}
		if _, ok := it["__syncAction"]; ok {
			t.Errorf("full item carries __syncAction: %v", it)
		}
	}
}

func TestFilters(t *testing.T) {
	cfg := Config{Projects: 9, Tasks: 3000}
	ds := DatasetOf(cfg)
	h := newHandler(t, cfg)
	feb1, feb28 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		filter map[string]any
		keep   func(*Task) bool
	}{
		{"projects", map[string]any{"projects": []string{"p2", "p5"}},
			func(t *Task) bool { return t.ProjectID == "p2" || t.ProjectID == "p5" }},
		{"projects as numbers and unknown ids", map[string]any{"projects": []any{"p3", "p99", "x"}},
			func(t *Task) bool { return t.ProjectID == "p3" }},
		{"empty projects selects all", map[string]any{"projects": []string{}}, nil},
		{"status", map[string]any{"status": []string{"doing"}},
			func(t *Task) bool { return t.Status == "doing" }},
		{"due closed range", map[string]any{"due": map[string]any{"_min": "2026-02-01T00:00:00.000", "_max": "2026-02-28T23:59:59.999"}},
			func(t *Task) bool { return !t.Due.Before(feb1) && !t.Due.After(feb28) }},
		{"due from", map[string]any{"due": map[string]any{"_min": "2026-02-01T00:00:00.000"}},
			func(t *Task) bool { return !t.Due.Before(feb1) }},
		{"due to", map[string]any{"due": map[string]any{"_max": "2026-02-28T23:59:59.999", "_min": nil}},
			func(t *Task) bool { return !t.Due.After(feb28) }},
		{"due inside one day", map[string]any{"due": map[string]any{"_min": "2026-02-01T10:00:00", "_max": "2026-02-01T11:00:00"}},
			func(t *Task) bool { return t.Due.Equal(feb1) }},
		{"all together", map[string]any{"projects": []string{"p1"}, "status": []string{"todo", "done"},
			"due": map[string]any{"_min": "2026-02-01T00:00:00.000", "_max": "2026-02-28T23:59:59.999"}},
			func(t *Task) bool {
				return t.ProjectID == "p1" && t.Status != "doing" && !t.Due.Before(feb1) && !t.Due.After(feb28)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items, _ := walk(t, h, map[string]any{"requestedType": "task", "types": []string{"task"}, "account": demo, "filter": tc.filter})
			want := liveTasks(ds, testNow, tc.keep)
			if len(want) == 0 {
				t.Fatal("test filter keeps nothing")
			}
			if len(items) != len(want) {
				t.Errorf("got %d tasks, want %d", len(items), len(want))
			}
			for _, it := range items {
				if want[it["id"].(string)] == nil {
					t.Errorf("task %v (project %v, status %v, due %v) does not satisfy the filter", it["id"], it["project"], it["status"], it["due"])
				}
			}
		})
	}
	t.Run("projects type", func(t *testing.T) {
		items, _ := walk(t, h, map[string]any{"requestedType": "project", "account": demo, "filter": map[string]any{"projects": []string{"p4", "p9"}}})
		if len(items) != 2 || items[0]["id"] != "p4" || items[1]["id"] != "p9" {
			t.Errorf("got %v", items)
		}
	})
}

// isEmpty reports whether a list filter's value selects nothing (no filter).
func isEmpty(v any) bool {
	l, ok := v.([]string)
	return v == nil || ok && len(l) == 0
}

// apply plays the service: SET merges the item's fields into the entity
// (creating it), REMOVE deletes it.
func apply(store map[string]map[string]any, items []map[string]any, t *testing.T) (sets, removes int) {
	for _, it := range items {
		id := it["id"].(string)
		switch it["__syncAction"] {
		case "SET":
			sets++
			e := store[id]
			if e == nil {
				e = map[string]any{}
				store[id] = e
			}
			for k, v := range it {
				if k != "__syncAction" {
					e[k] = v
				}
			}
		case "REMOVE":
			removes++
			if len(it) != 2 {
				t.Errorf("REMOVE item with extra fields: %v", it)
			}
			delete(store, id)
		default:
			t.Fatalf("delta item without a valid __syncAction: %v", it)
		}
	}
	return sets, removes
}

func TestDelta(t *testing.T) {
	cfg := Config{Projects: 5, Tasks: 4000}
	last := testNow.Add(-30 * 24 * time.Hour)
	for _, tc := range []struct {
		name   string
		filter map[string]any
	}{
		{"no filter", nil},
		{"empty status filter", map[string]any{"status": []string{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := func() map[string]any {
				return map[string]any{"requestedType": "task", "types": []string{"project", "task"}, "account": demo, "filter": tc.filter}
			}
			// The service's copy after a full sync at the time of the last run.
			before, _ := walk(t, newHandler(t, Config{Projects: cfg.Projects, Tasks: cfg.Tasks, Now: func() time.Time { return last }}), req())
			store := map[string]map[string]any{}
			for _, it := range before {
				store[it["id"].(string)] = it
			}
			h := newHandler(t, cfg)
			dreq := req()
			dreq["lastSynchronizedAt"] = last.Format(time.RFC3339)
			delta, _ := walk(t, h, dreq)
			sets, removes := apply(store, delta, t)
			if sets == 0 || removes == 0 {
				t.Errorf("delta has %d SET and %d REMOVE items; the test wants both", sets, removes)
			}
			if sets+removes >= len(before) {
				t.Errorf("delta of %d items is not smaller than the full sync of %d", sets+removes, len(before))
			}
			full, _ := walk(t, h, req())
			got := map[string]map[string]any{}
			for _, it := range full {
				got[it["id"].(string)] = it
			}
			for _, it := range delta {
				if it["__syncAction"] == "REMOVE" && got[it["id"].(string)] != nil {
					t.Errorf("removed task %v is in the next full sync", it["id"])
				}
			}
			if len(store) != len(got) {
				t.Errorf("full sync then delta gives %d tasks; a full sync now gives %d", len(store), len(got))
			}
			for id, want := range got {
				if !reflect.DeepEqual(store[id], want) {
					t.Errorf("task %s after delta:\n%v\nwant\n%v", id, store[id], want)
					break
				}
			}
		})
	}
}

// A run with a due or projects filter answers full even after a previous
// run: those filters may select other tasks than last time (a relative due
// range moves by itself), which a delta cannot express.
func TestFilteredRunsAnswerFull(t *testing.T) {
	h := newHandler(t, Config{Projects: 5, Tasks: 3000})
	last := testNow.Add(-30 * 24 * time.Hour)
	for _, filter := range []map[string]any{
		{"projects": []string{"p2"}},
		{"due": map[string]any{"_min": "2026-01-01T00:00:00.000", "_max": nil}},
		{"status": []string{"todo", "doing"}},
	} {
		req := func() map[string]any {
			return map[string]any{"requestedType": "task", "account": demo, "filter": filter}
		}
		full, _ := walk(t, h, req())
		after := req()
		after["lastSynchronizedAt"] = last.Format(time.RFC3339)
		again, _ := walk(t, h, after) // walk checks synchronizationType full
		if len(full) == 0 || !reflect.DeepEqual(full, again) {
			t.Errorf("filter %v: %d items without lastSynchronizedAt, %d with; want the same full set", filter, len(full), len(again))
		}
	}
}

func TestDeltaIsPartialAndUsesTheMargin(t *testing.T) {
	h := newHandler(t, Config{Tasks: 2000})
	last := testNow.Add(-2 * time.Hour)
	items, _ := walk(t, h, map[string]any{"requestedType": "task", "account": demo, "lastSynchronizedAt": last.Format(time.RFC3339)})
	inMargin := 0
	for _, it := range items {
		if it["__syncAction"] != "SET" {
			continue
		}
		if len(it) != 5 {
			t.Errorf("SET of an existing task is not partial: %v", it)
		}
		u, err := time.Parse(time.RFC3339, it["updated"].(string))
		if err != nil || !u.After(last.Add(-SafetyMargin)) {
			t.Errorf("task %v updated %v, before the cutoff", it["id"], it["updated"])
		}
		if !u.After(last) {
			inMargin++
		}
	}
	if inMargin == 0 {
		t.Error("no task updated inside the safety margin was sent again")
	}
}

func TestDataErrors(t *testing.T) {
	h := newHandler(t, Config{Tasks: 1000})
	checkPosts(t, h, pathData, []postCase{
		{"unknown requestedType", `{"requestedType":"bug","account":{"token":"demo"}}`, 400, `unknown type \"bug\"`},
		{"missing requestedType", `{"account":{"token":"demo"}}`, 400, `requestedType is required`},
		{"malformed JSON", `{"requestedType":"task"`, 400, `malformed JSON`},
		{"not an object", `[1,2]`, 400, ``},
		{"bad token", `{"requestedType":"task","account":{"token":"nope"}}`, 401, `invalid token`},
		{"no account", `{"requestedType":"project"}`, 401, `invalid token`},
		{"cursor out of range", `{"requestedType":"task","account":{"token":"demo"},"pagination":{"next":1000}}`, 400, `outside the index space`},
		{"negative cursor", `{"requestedType":"task","account":{"token":"demo"},"pagination":{"next":-1}}`, 400, `outside the index space`},
		{"foreign cursor", `{"requestedType":"task","account":{"token":"demo"},"pagination":{"next":"x"}}`, 400, `pagination`},
		{"bad lastSynchronizedAt", `{"requestedType":"task","account":{"token":"demo"},"lastSynchronizedAt":"yesterday"}`, 400, `lastSynchronizedAt`},
		{"bad filter value", `{"requestedType":"task","account":{"token":"demo"},"filter":{"projects":{"a":1}}}`, 400, `filter \"projects\"`},
	})
}

func TestDatalist(t *testing.T) {
	h := newHandler(t, Config{Projects: 3})
	code, body := post(t, h, pathDatalist, `{"field":"projects","account":{"token":"demo"}}`)
	var got struct {
		Items []struct {
			Title string `json:"title"`
			Value string `json:"value"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &got); code != 200 || err != nil {
		t.Fatalf("got %d %s", code, body)
	}
	ds := DatasetOf(Config{Projects: 3})
	if len(got.Items) != 3 {
		t.Fatalf("got %d options", len(got.Items))
	}
	for i, it := range got.Items {
		if p := ds.Project(i + 1); it.Value != p.ID || it.Title != p.Name {
			t.Errorf("option %d = %+v, want %s %q", i, it, p.ID, p.Name)
		}
	}
	checkPosts(t, h, pathDatalist, []postCase{
		{"status", `{"field":"status","account":{"token":"demo"}}`, 200, `{"items":[{"title":"todo","value":"todo"},{"title":"doing","value":"doing"},{"title":"done","value":"done"}]}`},
		{"not a datalist filter", `{"field":"due","account":{"token":"demo"}}`, 400, `\"due\" is not a filter with a datalist`},
		{"unknown field", `{"field":"owner","account":{"token":"demo"}}`, 400, `\"owner\" is not a filter with a datalist`},
		{"missing field", `{"account":{"token":"demo"}}`, 400, `field is required`},
		{"bad token", `{"field":"projects","account":{"token":"x"}}`, 401, `invalid token`},
	})
}

func TestFilterValidate(t *testing.T) {
	h := newHandler(t, Config{Projects: 4})
	checkPosts(t, h, pathFilter, []postCase{
		{"empty", `{"types":["task"],"filter":{},"account":{"token":"demo"}}`, 204, ``},
		{"good", `{"types":["task"],"filter":{"projects":["p1","p4"],"status":["done"],"due":{"_min":"2026-01-01T00:00:00.000"}},"account":{"token":"demo"}}`, 204, ``},
		{"unknown project", `{"types":["task"],"filter":{"projects":["p1","p5","p01"]},"account":{"token":"demo"}}`, 400, `unknown project(s) \"p5\", \"p01\"`},
		{"unknown status", `{"types":["task"],"filter":{"status":["blocked"]},"account":{"token":"demo"}}`, 400, `unknown status \"blocked\"`},
		{"unknown type", `{"types":["bug"],"filter":{},"account":{"token":"demo"}}`, 400, `unknown type`},
		// The account is checked first: a wrong token learns nothing of
		// which projects exist.
		{"wrong token, unknown project", `{"types":["task"],"filter":{"projects":["p5"]},"account":{"token":"x"}}`, 401, `invalid token`},
		{"no account", `{"types":["task"],"filter":{}}`, 401, `invalid token`},
	})
}

// TestMillionTasks shows that pages are generated on demand: the first page
// and a page near the end of a million-task dataset are served without
// walking the index space in between.
func TestMillionTasks(t *testing.T) {
	h := newHandler(t, Config{Projects: 1000, Tasks: 1_000_000})
	page := func(cursor any) dataPage {
		t.Helper()
		code, body := post(t, h, pathData, map[string]any{"requestedType": "task", "account": demo, "pagination": cursor})
		var p dataPage
		if err := json.Unmarshal(body, &p); code != 200 || err != nil {
			t.Fatalf("got %d %s", code, body)
		}
		return p
	}
	first := page(nil)
	if len(first.Items) != PageSize || !first.Pagination.HasNext {
		t.Fatalf("first page: %d items, hasNext %v", len(first.Items), first.Pagination.HasNext)
	}
	var c Cursor
	if err := json.Unmarshal(first.Pagination.NextPageConfig, &c); err != nil || c.Next <= PageSize-1 || c.Next > PageSize+PageSize/10 {
		t.Fatalf("first cursor %s (%v)", first.Pagination.NextPageConfig, err)
	}
	far := page(Cursor{Next: 999_000})
	if len(far.Items) != PageSize || far.Items[0]["id"] != "t999001" || !far.Pagination.HasNext {
		t.Fatalf("far page: %d items from %v, hasNext %v", len(far.Items), far.Items[0]["id"], far.Pagination.HasNext)
	}
	last := page(Cursor{Next: 999_900})
	if last.Pagination.HasNext || len(last.Items) == 0 || len(last.Items) > 100 {
		t.Fatalf("last page: %d items, hasNext %v", len(last.Items), last.Pagination.HasNext)
	}
	for _, it := range last.Items {
		if id := it["id"].(string); len(id) != len("t1000000") && id < "t999901" {
			t.Errorf("last page holds %s", id)
		}
	}
}

// TestScanLimit: a filter that keeps almost nothing gives empty pages that
// still have a next page, each examining at most ScanLimit indices.
func TestScanLimit(t *testing.T) {
	h := newHandler(t, Config{Projects: 1000, Tasks: 3 * ScanLimit})
	code, body := post(t, h, pathData, map[string]any{"requestedType": "task", "account": demo,
		"filter": map[string]any{"projects": []string{"p7"}, "status": []string{"doing"}, "due": map[string]any{"_max": "2025-11-03T23:59:59.999"}}})
	var p dataPage
	if err := json.Unmarshal(body, &p); code != 200 || err != nil {
		t.Fatalf("got %d %s", code, body)
	}
	if !p.Pagination.HasNext || string(p.Pagination.NextPageConfig) != fmt.Sprintf(`{"next":%d}`, ScanLimit) {
		t.Errorf("got %d items, pagination %+v; want a next page at %d", len(p.Items), p.Pagination, ScanLimit)
	}
}
