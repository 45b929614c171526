package console_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
)

var runLink = regexp.MustCompile(`href="/runs/([0-9a-f-]{36})"`)

// runCount counts a sync's runs.
func (e *env) runCount(syncID string) int {
	e.t.Helper()
	runs, err := e.svc.SyncService.Runs(context.Background(), syncID, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	return len(runs)
}

// waitRun waits (testkit.WaitTimeout at most) until the sync's latest run
// has ended and returns it.
func (e *env) waitRun(syncID string) *apps.Run {
	e.t.Helper()
	var run *apps.Run
	testkit.WaitUntil(e.t, "the run of "+syncID+" to end", func() bool {
		runs, err := e.svc.SyncService.Runs(context.Background(), syncID, 1)
		if err != nil {
			e.t.Fatal(err)
		}
		if len(runs) > 0 && runs[0].Status != apps.StatusQueued && runs[0].Status != apps.StatusRunning {
			run = runs[0]
		}
		return run != nil
	})
	return run
}

// The whole path through the screens on both engines: register the
// tracker (bad addresses refused at the field), connect an account
// (a refused token shown, the password never echoed), set up a sync with a
// date filter (a bad statement refused at the field, nothing saved), see
// its run with counts, its exchanges checked, the data as a table with
// paging, sorting, filtering and relations as links.
func TestAppsToData(t *testing.T) {
	for name, dsn := range testkit.StoreDSNs(t) {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, dsn)
			b := e.browser()
			tok := b.signIn()
			appURL := trackerURL(t, 60)

			for _, bad := range []string{"", "not a url", "ftp://x/y", "http://127.0.0.1:1"} {
				r := b.post("/apps", url.Values{"url": {bad}, "csrf": {tok}})
				if r.code < 400 || !strings.Contains(r.body, `id="app-url-error"`) {
					t.Errorf("register %q: %d\n%.2000s", bad, r.code, r.body)
				}
			}
			if list, _ := e.svc.Registry.Apps(context.Background()); len(list) != 0 {
				t.Fatalf("a refused address was registered: %+v", list)
			}
			appPath := b.register(tok, appURL)
			page := b.get(appPath)
			for _, want := range []string{"Conformance of the descriptor", "Connect an account with", appURL + "/logo", "Read the descriptor again", "&#34;authentication&#34;"} {
				if !strings.Contains(page.body, want) {
					t.Errorf("the app page lacks %q", want)
				}
			}
			if r := b.post(appPath+"/refresh", url.Values{"csrf": {tok}}); r.code != http.StatusOK || !strings.Contains(r.body, "read again") {
				t.Errorf("refresh: %d", r.code)
			}

			// The account form, from the authentication's fields.
			form := b.get(appPath + "/accounts/new?auth=token")
			if form.code != http.StatusOK || !strings.Contains(form.body, `name="f.token"`) {
				t.Fatalf("account form: %d\n%s", form.code, form.body)
			}
			if r := b.get(appPath + "/accounts/new?auth=nope"); r.code != http.StatusNotFound {
				t.Errorf("unknown authentication: %d", r.code)
			}
			r := b.post(appPath+"/accounts", url.Values{"auth": {"token"}, "csrf": {tok}})
			if r.code != http.StatusBadRequest || !strings.Contains(r.body, `id="f.token-error"`) {
				t.Errorf("empty token: %d\n%.3000s", r.code, r.body)
			}
			r = b.post(appPath+"/accounts", url.Values{"auth": {"token"}, "f.token": {"wrong-secret-value"}, "csrf": {tok}})
			if r.code < 400 || !strings.Contains(r.body, "was not saved") || strings.Contains(r.body, "wrong-secret-value") {
				t.Errorf("refused token: %d\n%.3000s", r.code, r.body)
			}
			if accs, _ := e.svc.Registry.Accounts(context.Background(), ""); len(accs) != 0 {
				t.Fatalf("a refused account was saved")
			}
			r = b.post(appPath+"/accounts", url.Values{"auth": {"token"}, "f.token": {tracker.DemoToken}, "csrf": {tok}})
			if r.code != http.StatusOK || !strings.Contains(r.body, "validated by the app and saved") {
				t.Fatalf("account: %d\n%.3000s", r.code, r.body)
			}
			accID := regexp.MustCompile(`syncs/new\?account=([0-9a-f-]{36})`).FindStringSubmatch(r.body)
			if accID == nil {
				t.Fatalf("no sync link for the account:\n%s", r.body)
			}

			// The sync form from the app's config.
			sf := b.get(appPath + "/syncs/new?account=" + accID[1])
			for _, want := range []string{`name="types" value="task" checked`, `name="filter.due"`, `hx-get="/daterange"`, `name="filter.status" value="todo"`, `name="filter.projects" value="`} {
				if !strings.Contains(sf.body, want) {
					t.Errorf("the sync form lacks %q", want)
				}
			}
			bad := url.Values{"account": {accID[1]}, "types": {"task", "nope"}, "filter.due": {"the day after never"}, "every": {"often"}, "csrf": {tok}}
			r = b.post(appPath+"/syncs", bad)
			if r.code != http.StatusBadRequest {
				t.Errorf("bad sync form: %d", r.code)
			}
			for _, id := range []string{"types-error", "filter-due-error", "every-error"} {
				if !strings.Contains(r.body, `id="`+id+`"`) {
					t.Errorf("the refused sync form lacks the message %s", id)
				}
			}
			if !strings.Contains(r.body, `value="the day after never"`) {
				t.Error("the refused form did not keep the statement")
			}
			if syncs, _ := e.svc.SyncService.Syncs(context.Background(), ""); len(syncs) != 0 {
				t.Fatal("a refused sync was saved")
			}
			r = b.post(appPath+"/syncs", url.Values{"account": {accID[1]}, "types": {"project", "task"}, "filter.due": {"between 1 January 2025 and 31 December 2026"}, "filter.status": {"todo", "doing"}, "csrf": {tok}})
			if r.code != http.StatusSeeOther || !strings.HasPrefix(r.location, "/syncs/") {
				t.Fatalf("sync: %d\n%.3000s", r.code, r.body)
			}
			syncID := strings.TrimPrefix(r.location, "/syncs/")
			run := e.waitRun(syncID)
			if run.Status != apps.StatusSucceeded {
				t.Fatalf("run %s: %s", run.Status, run.Error)
			}
			sp := b.get(r.location)
			if !strings.Contains(sp.body, `<span class="type">task</span>`) || !strings.Contains(sp.body, "succeeded") || !strings.Contains(sp.body, `data-live="false"`) {
				t.Errorf("the sync page:\n%s", sp.body)
			}
			// The schedule: a bad one refused at the field, a good one saved.
			if r := b.post("/syncs/"+syncID+"/schedule", url.Values{"every": {"sometimes"}, "csrf": {tok}}); r.code != http.StatusBadRequest || !strings.Contains(r.body, `id="every-error"`) || !strings.Contains(r.body, `value="sometimes"`) {
				t.Errorf("bad schedule: %d", r.code)
			}
			if sy, _ := e.svc.SyncService.Sync(context.Background(), syncID); sy.Every != "" {
				t.Errorf("a refused schedule was saved: %q", sy.Every)
			}
			if r := b.post("/syncs/"+syncID+"/schedule", url.Values{"every": {"2h"}, "csrf": {tok}}); r.code != http.StatusSeeOther {
				t.Errorf("schedule: %d\n%s", r.code, r.body)
			}
			if sy, _ := e.svc.SyncService.Sync(context.Background(), syncID); sy.Every != "2h0m0s" && sy.Every != "2h" {
				t.Errorf("the schedule is %q", sy.Every)
			}
			if !strings.Contains(b.get("/syncs/"+syncID).body, "every 2h") {
				t.Error("the sync page does not show the schedule")
			}
			// Sync now queues a run; the runs fragment polls while it is live.
			if r := b.post("/syncs/"+syncID+"/run", url.Values{"csrf": {tok}}); r.code != http.StatusSeeOther {
				t.Errorf("sync now: %d", r.code)
			}
			frag := b.get("/syncs/" + syncID + "/runs")
			if frag.code != http.StatusOK || strings.Contains(frag.body, "<html") || !strings.Contains(frag.body, `id="runs"`) {
				t.Errorf("runs fragment: %d\n%s", frag.code, frag.body)
			}
			e.waitRun(syncID)
			// Full sync: a run asked in full, labelled so.
			if !strings.Contains(b.get("/syncs/"+syncID).body, `name="full" value="1"`) {
				t.Error("the sync page has no Full sync button")
			}
			if r := b.post("/syncs/"+syncID+"/run", url.Values{"csrf": {tok}, "full": {"1"}}); r.code != http.StatusSeeOther {
				t.Errorf("full sync: %d", r.code)
			}
			if fr := e.waitRun(syncID); fr.Report == nil || !fr.Report.Full || fr.Status != apps.StatusSucceeded {
				t.Errorf("the full sync's run: %s, report %+v", fr.Status, fr.Report)
			}
			if !strings.Contains(b.get("/syncs/"+syncID).body, "manual (full)") {
				t.Error("the runs table does not label the full run")
			}

			// The run's exchanges, bodies pretty-printed, secrets masked,
			// items checked.
			rl := runLink.FindStringSubmatch(sp.body)
			if rl == nil {
				t.Fatal("no run link")
			}
			rp := b.get("/runs/" + rl[1])
			for _, want := range []string{"POST <code>/api/v1/synchronizer/data</code>", "items checked", `<li class="item-ok">`, "&#34;token&#34;: &#34;***&#34;", `class="bad-count">0<`} {
				if !strings.Contains(rp.body, want) {
					t.Errorf("the run page lacks %q", want)
				}
			}
			if strings.Contains(rp.body, tracker.DemoToken+"&#34;") {
				t.Error("the run page shows the account's token")
			}
			// What the run changed: the schema (a first run adds the
			// types) and the counts per type, unchanged included.
			for _, want := range []string{"What the run changed", `<ul class="schema-changes">`, `<th scope="row">task</th><td class="type-status"><span class="status completed">completed</span></td><td class="created">`, `<td class="unchanged">0</td>`} {
				if !strings.Contains(rp.body, want) {
					t.Errorf("the run page lacks %q", want)
				}
			}

			// The data.
			dp := b.get("/data")
			if !strings.Contains(dp.body, `href="/data/tracker/task"`) || !strings.Contains(dp.body, `href="/api/graphql/space/tracker"`) {
				t.Errorf("data page:\n%s", dp.body)
			}
			tp := b.get("/data/tracker/task")
			if tp.code != http.StatusOK || !strings.Contains(tp.body, `rel="next"`) || strings.Contains(tp.body, `rel="prev"`) {
				t.Fatalf("table: %d\n%.3000s", tp.code, tp.body)
			}
			rows := strings.Count(tp.body, "<tr>") - 1
			if rows != 25 {
				t.Errorf("first page: %d rows", rows)
			}
			// Relations as links, single-selects as names, rich text rendered.
			if !regexp.MustCompile(`href="/data/tracker/project\?field=platform%2Fid&amp;op=eq&amp;value=[0-9a-f-]{36}"`).MatchString(tp.body) {
				t.Error("the project relation is not a link")
			}
			if !regexp.MustCompile(`<td>(todo|doing)</td>`).MatchString(tp.body) {
				t.Error("the status is not shown by name")
			}
			if strings.Contains(tp.body, "<td>done</td>") {
				t.Error("the status filter (from the datalist) did not hold: a done task was synchronized")
			}
			if !strings.Contains(tp.body, `<div class="rich"><p>`) {
				t.Error("the description is not rendered")
			}
			// Date-times readable, on one line, the stored value in the title.
			if !regexp.MustCompile(`<td class="when"><time datetime="[^"]+" title="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC</time></td>`).MatchString(tp.body) {
				t.Error("the date-times are not readable")
			}
			p2 := b.get("/data/tracker/task?page=2")
			if !strings.Contains(p2.body, `rel="prev"`) {
				t.Error("page 2 has no previous link")
			}
			sorted := b.get("/data/tracker/task?sort=tracker.task%2Fpriority&desc=1")
			if !strings.Contains(sorted.body, `aria-sort="descending"`) {
				t.Error("the sorted column is not marked")
			}
			if r := b.get("/data/tracker/task?sort=nope"); r.code != http.StatusBadRequest {
				t.Errorf("sort by an unknown field: %d", r.code)
			}
			if r := b.get("/data/tracker/task?page=zero"); r.code != http.StatusBadRequest {
				t.Errorf("page=zero: %d", r.code)
			}
			if r := b.get("/data/tracker/nope"); r.code != http.StatusNotFound {
				t.Errorf("unknown database: %d", r.code)
			}
			// Following a relation: the project's page shows one row, and its
			// tasks link lists only its tasks.
			link := regexp.MustCompile(`href="(/data/tracker/project\?[^"]+)"`).FindStringSubmatch(tp.body)
			proj := b.get(strings.ReplaceAll(link[1], "&amp;", "&"))
			if n := strings.Count(proj.body, "<tr>") - 1; n != 1 {
				t.Errorf("the related project: %d rows\n%s", n, proj.body)
			}
			tasks := regexp.MustCompile(`href="(/data/tracker/task\?field=tracker.task%2Fproject[^"]+)"`).FindStringSubmatch(proj.body)
			if tasks == nil {
				t.Fatalf("no link to the project's tasks:\n%s", proj.body)
			}
			tl := b.get(strings.ReplaceAll(tasks[1], "&amp;", "&"))
			if n := strings.Count(tl.body, "<tr>") - 1; n < 1 || n > 25 || !strings.Contains(tl.body, "Show all") {
				t.Errorf("the project's tasks: %d rows", n)
			}
			if r := b.get("/data/tracker/task?field=tracker.task%2Fpriority&value=high"); r.code != http.StatusBadRequest {
				t.Errorf("a word as a number filter: %d", r.code)
			}

			// A test read: one page of tasks with a filter, checked, nothing
			// written.
			before := e.runCount(syncID)
			tr := b.get("/accounts/" + accID[1] + "/testread")
			if tr.code != http.StatusOK || !strings.Contains(tr.body, `<select id="type" name="type">`) || strings.Contains(tr.body, "items checked") {
				t.Errorf("test read form: %d\n%.2000s", tr.code, tr.body)
			}
			tr = b.get("/accounts/" + accID[1] + "/testread?" + url.Values{"type": {"task"}, "filter.status": {"done"}, "filter.due": {"from 1 January 2026"}}.Encode())
			if tr.code != http.StatusOK || !strings.Contains(tr.body, "items checked") || !strings.Contains(tr.body, `class="bad-count">0<`) || !strings.Contains(tr.body, "&#34;status&#34;: [\n") {
				t.Errorf("test read: %d\n%.3000s", tr.code, tr.body)
			}
			if !strings.Contains(tr.body, "&#34;_min&#34;: &#34;2026-01-01T00:00:00") {
				t.Error("the test read did not send the date filter as _min/_max")
			}
			if strings.Contains(tr.body, tracker.DemoToken+"&#34;") {
				t.Error("the test read shows the account's token")
			}
			if e.runCount(syncID) != before {
				t.Error("the test read made a run")
			}
			if r := b.get("/accounts/" + accID[1] + "/testread?type=nope"); r.code != http.StatusBadRequest || !strings.Contains(r.body, `id="type-error"`) {
				t.Errorf("test read of an unknown type: %d", r.code)
			}
			if r := b.get("/accounts/" + accID[1] + "/testread?type=task&filter.due=someday"); r.code != http.StatusBadRequest || !strings.Contains(r.body, `id="filter-due-error"`) {
				t.Errorf("test read with a bad statement: %d", r.code)
			}
			if strings.Contains(b.get("/data/tracker/task").body, "<td>done</td>") {
				t.Error("the test read wrote done tasks to the store")
			}
			// The datalist fragment htmx re-reads.
			dl := b.get("/accounts/" + accID[1] + "/datalist?field=status&filter.status=doing")
			if !strings.Contains(dl.body, `value="doing" checked`) || strings.Contains(dl.body, "<html") {
				t.Errorf("datalist fragment:\n%s", dl.body)
			}
			if r := b.get("/accounts/" + accID[1] + "/datalist?field=due"); r.code != http.StatusNotFound {
				t.Errorf("datalist of a filter without one: %d", r.code)
			}

			// Remove the sync, the account, the app.
			if r := b.post("/syncs/"+syncID+"/delete", url.Values{"csrf": {tok}}); r.code != http.StatusOK || !strings.Contains(r.body, "The sync was removed") {
				t.Errorf("delete sync: %d", r.code)
			}
			if r := b.post("/accounts/"+accID[1]+"/delete", url.Values{"csrf": {tok}}); r.code != http.StatusSeeOther {
				t.Errorf("delete account: %d", r.code)
			}
			if r := b.post(appPath+"/delete", url.Values{"csrf": {tok}}); r.code != http.StatusOK || !strings.Contains(r.body, "The app was removed") {
				t.Errorf("delete app: %d", r.code)
			}
			if r := b.get(appPath); r.code != http.StatusNotFound {
				t.Errorf("the removed app: %d", r.code)
			}
		})
	}
}

// The date preview parses statements with package daterange.
func TestDateRangePreview(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	b := e.browser()
	b.signIn()
	r := b.get("/daterange?" + url.Values{"filter.due": {"from 01-01-2024 to 31-03-2024"}}.Encode())
	if !strings.Contains(r.body, `<code class="min">2024-01-01T00:00:00Z</code>`) || !strings.Contains(r.body, `<code class="max">2024-03-31T23:59:59.999Z</code>`) || strings.Contains(r.body, "<html") {
		t.Errorf("range: %s", r.body)
	}
	r = b.get("/daterange?value=" + url.QueryEscape("from 1 June 2025"))
	if !strings.Contains(r.body, `<code class="max">open</code>`) {
		t.Errorf("open range: %s", r.body)
	}
	r = b.get("/daterange?value=" + url.QueryEscape("when pigs fly"))
	if !strings.Contains(r.body, `class="field-error"`) {
		t.Errorf("bad statement: %s", r.body)
	}
	r = b.get("/daterange?value=" + strings.Repeat("x", 500))
	if !strings.Contains(r.body, "too long") {
		t.Errorf("long statement: %s", r.body)
	}
}

// An app whose space holds data that no sync owns is refused with the way
// to take it over, beside the address; the form's "Take over" box
// registers it into that space, the data kept.
func TestRegisterAdoptsUnownedSpace(t *testing.T) {
	for name, dsn := range testkit.StoreDSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			e := newEnv(t, dsn)
			b := e.browser()
			tok := b.signIn()
			appURL := trackerURL(t, 6)
			if err := e.st.WriteSchema(ctx, func(tx *store.Tx) error {
				return tx.CreateType(store.TypeSpec{Name: "tracker/left"})
			}); err != nil {
				t.Fatal(err)
			}
			if page := b.get("/apps"); !strings.Contains(page.body, `name="adopt"`) {
				t.Fatalf("the register form has no adopt box:\n%s", page.body)
			}

			r := b.post("/apps", url.Values{"url": {appURL}, "csrf": {tok}})
			fieldError := regexp.MustCompile(`id="app-url-error">([^<]*)<`).FindStringSubmatch(r.body)
			if r.code != http.StatusConflict || fieldError == nil || !strings.Contains(fieldError[1], "tracker/left") || !strings.Contains(fieldError[1], "Take over data left in its space") {
				t.Fatalf("an unowned space: %d %q\n%.3000s", r.code, fieldError, r.body)
			}
			if list, _ := e.svc.Registry.Apps(ctx); len(list) != 0 {
				t.Fatalf("refused, yet registered: %+v", list)
			}

			r = b.post("/apps", url.Values{"url": {appURL}, "adopt": {"1"}, "csrf": {tok}})
			if r.code != http.StatusSeeOther || !strings.HasPrefix(r.location, "/apps/") {
				t.Fatalf("adopting: %d %s\n%.3000s", r.code, r.location, r.body)
			}
			list, err := e.svc.Registry.Apps(ctx)
			if err != nil || len(list) != 1 || list[0].Space != "tracker" {
				t.Fatalf("registered: %+v %v", list, err)
			}
			if cat, err := e.st.Catalog(ctx); err != nil || cat.Type("tracker/left") == nil {
				t.Errorf("adopting removed the data left in the space (%v)", err)
			}
		})
	}
}
