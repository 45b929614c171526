package host_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

func trackerURL(t *testing.T, tasks int) string {
	t.Helper()
	nop := zerolog.Nop()
	return testapp.Serve(t, tracker.New(tracker.Config{Projects: 3, Tasks: tasks, Logger: &nop}))
}

// The apps API end to end on the tracker: register, an account (sealed,
// its values never shown), a sync that runs at once and then on its
// schedule, run now, the run history with counts and masked exchanges.
func TestAppsScheduleAndHistory(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		e := newAppsEnv(t, dsn, nil)
		url := trackerURL(t, 30)

		var app apps.App
		e.api("POST", "/api/apps", map[string]any{"url": url + "/"}, 201, &app)
		if app.Name == "" || app.Space != "tracker" || app.URL != url {
			t.Fatalf("registered %+v", app)
		}
		var again apps.App
		e.api("POST", "/api/apps", map[string]any{"url": url}, 201, &again)
		if again.ID != app.ID {
			t.Errorf("registering the same address twice made two apps: %s, %s", app.ID, again.ID)
		}
		var list []apps.App
		e.api("GET", "/api/apps", nil, 200, &list)
		if len(list) != 1 {
			t.Errorf("apps: %+v", list)
		}

		// A refused account is 400 with the app's reason.
		if r := e.api("POST", "/api/apps/accounts", map[string]any{"app": app.ID, "fields": map[string]any{"token": "wrong-token"}}, 400, nil); !strings.Contains(r.message(t), "refused") {
			t.Errorf("refused account: %s", r.raw)
		}
		var acc apps.Account
		r := e.api("POST", "/api/apps/accounts", map[string]any{"app": app.ID, "fields": map[string]any{"token": tracker.DemoToken}}, 201, &acc)
		if acc.Auth != "token" || strings.Join(acc.Fields, ",") != "auth,token" || strings.Contains(string(r.raw), `"demo"`) {
			t.Errorf("account %s", r.raw)
		}
		// Sealed at rest: the value is not in the table.
		var sealed string
		if err := e.st.DB().QueryRowContext(context.Background(), e.st.Dialect().Rebind("SELECT sealed FROM apps_accounts WHERE id = ?"), acc.ID).Scan(&sealed); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(sealed, tracker.DemoToken) || sealed == "" {
			t.Errorf("the account is stored in clear: %q", sealed)
		}

		var cfg struct {
			Types []struct {
				ID string `json:"id"`
			} `json:"types"`
			Filters []struct {
				ID string `json:"id"`
			} `json:"filters"`
		}
		e.api("GET", "/api/apps/accounts/"+acc.ID+"/config", nil, 200, &cfg)
		if len(cfg.Types) != 2 || len(cfg.Filters) == 0 {
			t.Errorf("config: %+v", cfg)
		}
		e.api("GET", "/api/apps/accounts/nope/config", nil, 404, nil)
		every := "1s"
		var sy apps.Sync
		e.api("POST", "/api/apps/syncs", map[string]any{"app": app.ID, "account": acc.ID, "types": []string{"project", "task"}, "every": every}, 201, &sy)
		if sy.NextAt == nil || sy.Every != "1s" {
			t.Errorf("sync %+v", sy)
		}
		if sy.Space != "tracker" {
			t.Errorf("the first sync's space: %q", sy.Space)
		}
		// Another sync of the app may not take a space in use.
		e.api("POST", "/api/apps/syncs", map[string]any{"app": app.ID, "account": acc.ID, "space": "tracker"}, 409, nil)
		e.api("POST", "/api/apps/syncs", map[string]any{"app": app.ID, "account": acc.ID, "space": "Tracker 2"}, 400, nil)

		// The first run starts at once; the schedule fires again a
		// second later.
		done := e.waitRuns(sy.ID, apps.TriggerSchedule, 2)
		for _, run := range done {
			if run.Status != apps.StatusSucceeded {
				t.Fatalf("run %+v: %s", run, run.Error)
			}
		}
		first := done[len(done)-1]
		if first.Report == nil || len(first.Report.Types) != 2 || first.Report.Types[1].Items != 30 || first.Report.Types[1].Created != 30 || first.Attempts != 1 || first.Owner != e.svc.HostID() {
			t.Errorf("first run: %+v %+v", first, first.Report)
		}
		if n := teststore.Count(t, e.st, "tracker/task"); n != 30 {
			t.Errorf("%d tasks in the store", n)
		}

		// Run now answers the queued run, which then succeeds (a fast
		// scheduler may have run it before the answer was written).
		var queued apps.Run
		e.api("POST", "/api/apps/syncs/"+sy.ID+"/run", nil, 202, &queued)
		switch queued.Status {
		case apps.StatusQueued, apps.StatusRunning, apps.StatusSucceeded:
		default:
			t.Errorf("run now answered status %q", queued.Status)
		}
		if queued.Trigger != apps.TriggerManual {
			t.Errorf("run now: %+v", queued)
		}
		testkit.WaitUntil(t, "the manual run", func() bool {
			var run apps.Run
			e.api("GET", "/api/apps/runs/"+queued.ID, nil, 200, &run)
			return run.Status == apps.StatusSucceeded
		})
		var full apps.Run
		raw := e.api("GET", "/api/apps/runs/"+queued.ID, nil, 200, &full).raw
		if len(full.Exchanges) < 5 || full.DurationMS < 0 || full.EndedAt == nil {
			t.Errorf("run: %d exchanges, %+v", len(full.Exchanges), full)
		}
		paths := map[string]bool{}
		for _, ex := range full.Exchanges {
			paths[ex.Path] = true
		}
		for _, p := range []string{"/", "/validate", "/api/v1/synchronizer/config", "/api/v1/synchronizer/schema", "/api/v1/synchronizer/data"} {
			if !paths[p] {
				t.Errorf("no exchange with %s: %v", p, paths)
			}
		}
		if strings.Contains(string(raw), `"token":"demo"`) || strings.Contains(string(raw), `\"token\":\"demo\"`) || !strings.Contains(string(raw), `***`) {
			t.Errorf("the exchanges show the token or mask nothing")
		}

		// A full run asked for: {"full": true}; its report says so.
		var fullRun apps.Run
		e.api("POST", "/api/apps/syncs/"+sy.ID+"/run", map[string]any{"full": true}, 202, &fullRun)
		testkit.WaitUntil(t, "the full run", func() bool {
			e.api("GET", "/api/apps/runs/"+fullRun.ID, nil, 200, &fullRun)
			return fullRun.Status == apps.StatusSucceeded
		})
		if fullRun.Report == nil || !fullRun.Report.Full {
			t.Errorf("the full run's report: %+v", fullRun.Report)
		}
		if r := e.do("POST", "/api/apps/syncs/"+sy.ID+"/run", appsToken, `{"full": "yes"}`); r.code != 400 {
			t.Errorf("a run asked with a malformed body: %d %s", r.code, r.raw)
		}

		// Errors.
		e.api("GET", "/api/apps/nope", nil, 404, nil)
		e.api("GET", "/api/apps/syncs/nope/runs", nil, 404, nil)
		e.api("POST", "/api/apps", map[string]any{"url": "ftp://x"}, 400, nil)
		// Where no app answers, the answer does not say why (no port
		// scanning through registration).
		if r := e.api("POST", "/api/apps", map[string]any{"url": "http://127.0.0.1:1/app"}, 502, nil); !strings.Contains(r.message(t), "no app answered") || strings.Contains(r.message(t), "refused") {
			t.Errorf("an unreachable app: %s", r.raw)
		}
		e.api("POST", "/api/apps/syncs", map[string]any{"app": app.ID, "account": acc.ID, "every": "1ms"}, 400, nil)
		if r := e.do("GET", "/api/apps", "", ""); r.code != 401 {
			t.Errorf("without a token: %d", r.code)
		}
		if r := e.do("POST", "/api/apps", appsToken, "{"); r.code != 400 || r.message(t) == "" {
			t.Errorf("malformed body: %d %s", r.code, r.raw)
		}
		e.api("DELETE", "/api/apps/accounts/"+acc.ID, nil, 409, nil)
		// The sync stops; its history goes with it.
		testkit.WaitUntil(t, "the sync to be idle", func() bool {
			var s apps.Sync
			e.api("GET", "/api/apps/syncs/"+sy.ID, nil, 200, &s)
			return s.LeaseOwner == ""
		})
		e.api("PATCH", "/api/apps/syncs/"+sy.ID, map[string]any{"every": ""}, 200, nil)
		testkit.WaitUntil(t, "the sync to be deletable", func() bool {
			return e.do("DELETE", "/api/apps/syncs/"+sy.ID, appsToken, "").code == 200
		})
		e.api("DELETE", "/api/apps/accounts/"+acc.ID, nil, 204, nil)
		var n int
		if err := e.st.DB().QueryRowContext(context.Background(), "SELECT COUNT(*) FROM apps_runs").Scan(&n); err != nil && err != sql.ErrNoRows {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%d runs left after the sync was removed", n)
		}
	})
}

// A run that pauses on an app that keeps answering tryLater keeps its row
// and position and is resumed at its time, from the page that failed.
func TestAppsPausedRunResumes(t *testing.T) {
	t.Parallel()
	e := newAppsEnv(t, "sqlite::memory:", func(c *apps.Config) {
		c.Retry = syncer.Retry{Attempts: 1}
		c.PauseDelay = 200 * time.Millisecond
		c.CommitItems = 1
	})
	var mu gosync.Mutex
	failures := 2
	calls := map[int]int{}
	nop := zerolog.Nop()
	app := &appkit.App{ID: "flaky", Name: "Flaky", Version: "1.0.0", Description: "pauses", Logger: &nop, Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "item", Name: "Items",
			Data: appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, c *scaleCursor) (*appkit.Page[scaleItem, scaleCursor], error) {
				page := 1
				if c != nil {
					page = c.Page
				}
				mu.Lock()
				defer mu.Unlock()
				calls[page]++
				if page == 2 && failures > 0 {
					failures--
					return nil, appkit.TryLater(errors.New("busy upstream"))
				}
				p := &appkit.Page[scaleItem, scaleCursor]{Items: []scaleItem{{ID: fmt.Sprint(page), Name: fmt.Sprint("item ", page), Size: page}}}
				if page < 3 {
					p.Next = &scaleCursor{Page: page + 1}
				}
				return p, nil
			})}}}}
	_, _, sy := e.newSync(testapp.Serve(t, app), nil, nil)
	var run apps.Run
	testkit.WaitUntil(t, "the run to succeed", func() bool {
		runs := e.runs(sy.ID)
		if len(runs) != 1 {
			return false
		}
		run = runs[0]
		return run.Status == apps.StatusSucceeded
	})
	if run.Attempts != 3 || run.Report == nil || !run.Report.Resumed || run.Report.Types[0].Items != 3 || run.Error != "" {
		t.Errorf("run: %+v %+v", run, run.Report)
	}
	mu.Lock()
	if calls[1] != 1 || calls[2] != 3 || calls[3] != 1 {
		t.Errorf("data calls per page: %v", calls)
	}
	mu.Unlock()
	if n := teststore.Count(t, e.st, "flaky/item"); n != 3 {
		t.Errorf("%d items", n)
	}
	var after apps.Sync
	e.api("GET", "/api/apps/syncs/"+sy.ID, nil, 200, &after)
	if after.RunID != "" || after.NextAt != nil {
		t.Errorf("after the run: %+v", after)
	}
}

// Wrong methods answer 405 {message} with Allow; a refused event counts
// against its sender.
func TestAppsMethodsAndEventLimit(t *testing.T) {
	t.Parallel()
	e := newAppsEnv(t, "sqlite::memory:", nil)
	r := e.do("PUT", "/api/apps", appsToken, "{}")
	if r.code != 405 || r.header.Get("Allow") != "GET, POST" || r.message(t) == "" {
		t.Errorf("PUT /api/apps: %d %s %v", r.code, r.raw, r.header)
	}
	if r := e.do("GET", "/api/apps/events/x", "", ""); r.code != 405 {
		t.Errorf("GET on the event URL: %d", r.code)
	}
	big := `{"url":"` + strings.Repeat("x", 1<<20) + `"}`
	if r := e.do("POST", "/api/apps", appsToken, big); r.code != 413 || r.message(t) == "" {
		t.Errorf("a body over 1 MiB: %d %s", r.code, r.raw)
	}
	if r := e.do("POST", "/api/apps/events/x", "", big); r.code != 413 {
		t.Errorf("an event over 1 MiB: %d", r.code)
	}
	limited := false
	for range 30 {
		r := e.do("POST", "/api/apps/events/nope", "", "{}")
		if r.code == 429 {
			limited = r.header.Get("Retry-After") != ""
			break
		}
		if r.code != 404 {
			t.Fatalf("an event for no sync: %d %s", r.code, r.raw)
		}
	}
	if !limited {
		t.Error("refused events are not limited")
	}
	// Refused events do not count as invalid tokens: a valid token from the
	// same address is still served, and invalid tokens have their own
	// burst.
	if r := e.do("GET", "/api/apps", appsToken, ""); r.code != 200 {
		t.Errorf("a valid token after refused events from its address: %d %s", r.code, r.raw)
	}
	if r := e.do("GET", "/api/apps", "not-a-valid-token-at-all", ""); r.code != 401 {
		t.Errorf("an invalid token after refused events from its address: %d %s", r.code, r.raw)
	}
}

// A run paused by an app that asked to be called again later (Retry-After)
// is resumed then, not after the default pause.
func TestAppsPausedRunResumesWhenTheAppAsks(t *testing.T) {
	t.Parallel()
	e := newAppsEnv(t, "sqlite::memory:", func(c *apps.Config) {
		c.Retry = syncer.Retry{Attempts: 1}
		c.PauseDelay = 200 * time.Millisecond
	})
	nop := zerolog.Nop()
	app := &appkit.App{ID: "later", Name: "Later", Version: "1.0.0", Description: "asks to wait", Logger: &nop, Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "item", Name: "Items",
			Data: appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, c *scaleCursor) (*appkit.Page[scaleItem, scaleCursor], error) {
				return nil, appkit.TryLaterAfter(errors.New("rate limited"), 2*time.Hour)
			})}}}}
	_, _, sy := e.newSync(testapp.Serve(t, app), nil, nil)
	start := time.Now()
	testkit.WaitUntil(t, "the run to pause", func() bool {
		runs := e.runs(sy.ID)
		return len(runs) == 1 && runs[0].Status == apps.StatusPaused
	})
	var after apps.Sync
	e.api("GET", "/api/apps/syncs/"+sy.ID, nil, 200, &after)
	if after.NextAt == nil || after.NextAt.Before(start.Add(time.Hour)) || after.RunID == "" {
		t.Fatalf("a paused run asked to wait 2h is due at %v (run %q)", after.NextAt, after.RunID)
	}
}

// A running sync is cancelled through the API; a running sync is deleted
// without a conflict.
func TestAppsCancelAndDeleteRunningSync(t *testing.T) {
	t.Parallel()
	e := newAppsEnv(t, "sqlite::memory:", nil)
	started, ended := make(chan struct{}, 16), make(chan struct{}, 16)
	nop := zerolog.Nop()
	blocker := &appkit.App{ID: "blocker", Name: "Blocker", Version: "1.0.0", Description: "never ends a page", Logger: &nop,
		Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "note", Name: "Notes", Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]struct {
			ID   string `appkit:"id"`
			Name string `appkit:"name"`
		}, error) {
			started <- struct{}{}
			<-ctx.Done()
			ended <- struct{}{}
			return nil, ctx.Err()
		})}}},
	}
	wait := func(what string, ch chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(time.Minute):
			t.Fatalf("timed out waiting for %s", what)
		}
	}
	_, _, sy := e.newSync(testapp.Serve(t, blocker), nil, nil)
	wait("the first run", started)
	var run apps.Run
	e.api("POST", "/api/apps/syncs/"+sy.ID+"/cancel", nil, 202, &run)
	wait("the app's call to end", ended)
	testkit.WaitUntil(t, "the run to be cancelled", func() bool {
		e.api("GET", "/api/apps/runs/"+run.ID, nil, 200, &run)
		return run.Status == apps.StatusCancelled
	})
	e.api("POST", "/api/apps/syncs/"+sy.ID+"/cancel", nil, 409, nil)
	e.api("POST", "/api/apps/syncs/nope/cancel", nil, 404, nil)
	if r := e.do("GET", "/api/apps/syncs/"+sy.ID+"/cancel", appsToken, ""); r.code != 405 {
		t.Errorf("GET cancel: %d", r.code)
	}
	e.api("POST", "/api/apps/syncs/"+sy.ID+"/run", nil, 202, nil)
	wait("the second run", started)
	e.api("DELETE", "/api/apps/syncs/"+sy.ID, nil, 200, nil)
	wait("the app's call to end", ended)
	e.api("GET", "/api/apps/syncs/"+sy.ID, nil, 404, nil)
}
