package host_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/daterange"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// hookNote is an item of the webhook test app.
type hookNote struct {
	ID   string `appkit:"id"`
	Name string `appkit:"name"`
	Size int    `appkit:"size"`
}

const (
	hookToken = "hook-account-token-1"
	hookKey   = "hook-signing-key"
)

// hookApp is a small webhook app: notes from a list, events signed with
// HMAC-SHA256 over the body (X-Signature), their body {"set":[notes],
// "remove":[ids]}.
type hookApp struct {
	mu       gosync.Mutex
	notes    []hookNote
	installs []*appkit.WebhookRequest
	deletes  []*appkit.WebhookRequest
	accounts []string // account tokens seen by transform
	url      string
	// failTransform is the number of transforms to answer with a 503.
	failTransform int
	// filters are the filter objects received, by path.
	filters map[string][]json.RawMessage
}

// filtersAt returns the filter objects received at path.
func (a *hookApp) filtersAt(path string) []json.RawMessage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]json.RawMessage(nil), a.filters[path]...)
}

func newHookApp(t *testing.T) *hookApp {
	t.Helper()
	a := &hookApp{notes: []hookNote{{ID: "n1", Name: "one", Size: 1}, {ID: "n2", Name: "two", Size: 2}}, filters: map[string][]json.RawMessage{}}
	nop := zerolog.Nop()
	app := &appkit.App{ID: "hooks", Name: "Hooks", Version: "1.0.0", Description: "webhook test app", Logger: &nop,
		Auth: []appkit.Auth{appkit.TokenAuth("Token", "the token", func(ctx context.Context, token string) (string, error) {
			if token != hookToken {
				return "", errors.New("unknown token")
			}
			return "Hook account", nil
		})},
		Sync: &appkit.Sync{
			Filters: []appkit.Filter{appkit.DateRangeFilter("since", "Since").Optional()},
			Types: []appkit.Type{
				{ID: "note", Name: "Notes", Delta: true, Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]hookNote, error) {
					a.mu.Lock()
					defer a.mu.Unlock()
					return append([]hookNote(nil), a.notes...), nil
				})},
				{ID: "tag", Name: "Tags", Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]hookNote, error) {
					return []hookNote{{ID: "t1", Name: "tag"}}, nil
				})},
			},
			Webhooks: &appkit.Webhooks{
				Install: func(ctx context.Context, req *appkit.WebhookRequest) (*appkit.Webhook, error) {
					a.mu.Lock()
					defer a.mu.Unlock()
					a.installs = append(a.installs, req)
					return &appkit.Webhook{ID: "wh-1", Events: []string{"note.changed"}, Data: json.RawMessage(`{"n":` + string(rune('0'+len(a.installs))) + `}`)}, nil
				},
				Delete: func(ctx context.Context, req *appkit.WebhookRequest) error {
					a.mu.Lock()
					defer a.mu.Unlock()
					a.deletes = append(a.deletes, req)
					return nil
				},
				Verify: func(ctx context.Context, ev *appkit.WebhookEvent) (string, error) {
					sig, _ := ev.Params["x-signature"].(string)
					if !hmac.Equal([]byte(sig), []byte(sign(ev.Body()))) {
						return "", errors.New("bad signature")
					}
					return "wh-1", nil
				},
				Transform: func(ctx context.Context, ev *appkit.WebhookEvent) (appkit.Changes, error) {
					var body struct {
						Set    []hookNote `json:"set"`
						Remove []string   `json:"remove"`
					}
					if err := json.Unmarshal(ev.Body(), &body); err != nil {
						return nil, appkit.BadRequest("not an event")
					}
					a.mu.Lock()
					a.accounts = append(a.accounts, ev.Account.String("token"))
					fail := a.failTransform > 0
					if fail {
						a.failTransform--
					}
					a.mu.Unlock()
					if fail {
						return nil, appkit.TryLater(errors.New("upstream busy"))
					}
					items := make([]any, len(body.Set))
					for i := range body.Set {
						items[i] = body.Set[i]
					}
					return appkit.Changes{"note": {Items: items, Removed: body.Remove}}, nil
				},
			},
		},
	}
	h := testapp.Handler(t, app)
	a.url = serveApp(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Filter json.RawMessage `json:"filter"`
		}
		if json.Unmarshal(body, &req) == nil && req.Filter != nil {
			a.mu.Lock()
			a.filters[r.URL.Path] = append(a.filters[r.URL.Path], req.Filter)
			a.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	return a
}

func sign(body []byte) string {
	m := hmac.New(sha256.New, []byte(hookKey))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// send posts an event to the host as the external system would.
func send(t *testing.T, url, body, sig string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Signature", sig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Message string }
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Message
}

// Webhooks end to end: installed after the first full run with the host's
// event URL; events from a sender are verified, recorded once, transformed
// and applied with the delta rules (a replay changes nothing, a forged one
// is refused); changed types re-register the webhook; removing the sync
// deletes it.
func TestAppsWebhooks(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		e := newAppsEnv(t, dsn, func(c *apps.Config) { c.PauseDelay = 100 * time.Millisecond })
		hook := newHookApp(t)
		app, _, sy := e.newSync(hook.url, map[string]any{"token": hookToken}, map[string]any{"types": []string{"note"}})
		first := e.waitRuns(sy.ID, apps.TriggerSchedule, 1)[0]
		if first.Status != apps.StatusSucceeded || first.Report.Webhook != "installed" {
			t.Fatalf("first run: %+v %+v", first, first.Report)
		}
		hook.mu.Lock()
		if len(hook.installs) != 1 || hook.installs[0].URL != e.srv.URL+"/api/apps/events/"+sy.ID || hook.installs[0].Webhook != nil {
			t.Fatalf("installs: %+v", hook.installs)
		}
		hook.mu.Unlock()
		e.api("GET", "/api/apps/syncs/"+sy.ID, nil, 200, &sy)
		if !strings.Contains(string(sy.Webhook), `"wh-1"`) || strings.Join(sy.WebhookTypes, ",") != "note" {
			t.Fatalf("stored webhook: %s %v", sy.Webhook, sy.WebhookTypes)
		}
		if n := teststore.Count(t, e.st, "hooks/note"); n != 2 {
			t.Fatalf("%d notes after the first run", n)
		}

		url := e.srv.URL + "/api/apps/events/" + sy.ID
		ev1 := `{"set":[{"id":"n3","name":"three","size":3},{"id":"n1","name":"one!","size":10}]}`
		ev2 := `{"remove":["n2"]}`
		if code, msg := send(t, url, ev1, "forged"); code != 401 || !strings.Contains(msg, "did not verify") {
			t.Fatalf("a forged event: %d %q", code, msg)
		}
		if code, msg := send(t, url, ev1, sign([]byte(ev1))); code != 202 {
			t.Fatalf("event 1: %d %q", code, msg)
		}
		if code, msg := send(t, url, ev2, sign([]byte(ev2))); code != 202 {
			t.Fatalf("event 2: %d %q", code, msg)
		}
		testkit.WaitUntil(t, "the events to be applied", func() bool {
			var n int
			e.st.DB().QueryRowContext(context.Background(), "SELECT COUNT(*) FROM apps_events WHERE status = 'applied'").Scan(&n)
			return n == 2
		})
		// Replays are recorded once and change nothing.
		for _, ev := range []string{ev1, ev2} {
			if code, msg := send(t, url, ev, sign([]byte(ev))); code != 200 || !strings.Contains(msg, "already") {
				t.Fatalf("a replay: %d %q", code, msg)
			}
		}
		if code, _ := send(t, e.srv.URL+"/api/apps/events/nope", ev1, sign([]byte(ev1))); code != 404 {
			t.Errorf("an unknown sync: %d", code)
		}
		var n int
		e.st.DB().QueryRowContext(context.Background(), "SELECT COUNT(*) FROM apps_events").Scan(&n)
		if n != 2 {
			t.Errorf("%d events recorded", n)
		}
		got := noteRows(t, e)
		want := map[string]string{"one!": "10", "three": "3"}
		if len(got) != len(want) || got["one!"] != "10" || got["three"] != "3" {
			t.Errorf("notes after the events: %v", got)
		}
		hooks := e.waitRuns(sy.ID, apps.TriggerWebhook, 1)
		events, created, updated, removed := 0, 0, 0, 0
		for _, r := range hooks {
			if r.Status != apps.StatusSucceeded {
				t.Errorf("webhook run %+v", r)
			}
			events += r.Report.Events
			for _, tr := range r.Report.Types {
				created, updated, removed = created+tr.Created, updated+tr.Updated, removed+tr.Removed
			}
		}
		if events != 2 || created != 1 || updated != 1 || removed != 1 {
			t.Errorf("webhook runs: %d events, %d created, %d updated, %d removed", events, created, updated, removed)
		}
		hook.mu.Lock()
		for _, tok := range hook.accounts {
			if tok != hookToken {
				t.Errorf("transform got account token %q", tok)
			}
		}
		hook.mu.Unlock()
		var run apps.Run
		raw := e.api("GET", "/api/apps/runs/"+hooks[0].ID, nil, 200, &run).raw
		if len(run.Exchanges) == 0 || bytes.Contains(raw, []byte(hookToken)) {
			t.Errorf("webhook run exchanges: %d, token shown: %v", len(run.Exchanges), bytes.Contains(raw, []byte(hookToken)))
		}

		// An event the app cannot transform now stays pending and is
		// applied later, once.
		hook.mu.Lock()
		hook.failTransform = 1
		hook.mu.Unlock()
		ev3 := `{"set":[{"id":"n4","name":"four","size":4}]}`
		if code, msg := send(t, url, ev3, sign([]byte(ev3))); code != 202 {
			t.Fatalf("event 3: %d %q", code, msg)
		}
		testkit.WaitUntil(t, "event 3 to be applied after a failed transform", func() bool {
			return noteRows(t, e)["four"] == "4"
		})
		failed := 0
		for _, r := range e.runs(sy.ID) {
			if r.Trigger == apps.TriggerWebhook && r.Status == apps.StatusFailed {
				failed++
			}
		}
		if failed != 1 {
			t.Errorf("%d failed webhook runs, want 1", failed)
		}

		// Changed types: the next run installs it again with the
		// stored object.
		e.api("PATCH", "/api/apps/syncs/"+sy.ID, map[string]any{"types": []string{"note", "tag"}}, 200, nil)
		var again apps.Run
		e.api("POST", "/api/apps/syncs/"+sy.ID+"/run", nil, 202, &again)
		testkit.WaitUntil(t, "the run with the new types", func() bool {
			e.api("GET", "/api/apps/runs/"+again.ID, nil, 200, &again)
			return again.Status == apps.StatusSucceeded || again.Status == apps.StatusFailed
		})
		if again.Status != apps.StatusSucceeded || again.Report.Webhook != "re-registered for the changed types" {
			t.Fatalf("run with new types: %+v %+v", again, again.Report)
		}
		hook.mu.Lock()
		if len(hook.installs) != 2 || hook.installs[1].Webhook == nil || hook.installs[1].Webhook.ID != "wh-1" || strings.Join(hook.installs[1].Types, ",") != "note,tag" {
			t.Errorf("re-registration: %+v", hook.installs)
		}
		hook.mu.Unlock()
		// The full run brought back n2 and replaced n1's values.
		if got := noteRows(t, e); got["one"] != "1" || got["two"] != "2" || len(got) != 2 {
			t.Errorf("notes after the full run: %v", got)
		}

		// Removing the sync deletes the webhook at the app.
		testkit.WaitUntil(t, "the sync to be deletable", func() bool {
			return e.do("DELETE", "/api/apps/syncs/"+sy.ID, appsToken, "").code == 200
		})
		hook.mu.Lock()
		if len(hook.deletes) != 1 || hook.deletes[0].Webhook == nil || hook.deletes[0].Webhook.ID != "wh-1" || hook.deletes[0].Account.String("token") != hookToken {
			t.Errorf("deletes: %+v", hook.deletes)
		}
		hook.mu.Unlock()
		if code, _ := send(t, url, ev1, sign([]byte(ev1))); code != 404 {
			t.Errorf("an event after the sync was removed: %d", code)
		}
		e.api("DELETE", "/api/apps/"+app.ID, nil, 200, nil)
		e.api("GET", "/api/apps/"+app.ID, nil, 404, nil)
		if logs := e.logs.String(); strings.Contains(logs, hookToken) || strings.Contains(logs, hookKey) {
			t.Errorf("a secret reached the log")
		}
	})
}

// noteRows reads the notes as name -> size.
func noteRows(t *testing.T, e *appsEnv) map[string]string {
	t.Helper()
	return readPairs(t, e.st, "hooks/note", "hooks.note/name", "hooks.note/size")
}

// webhooks/transform and the webhook's deletion get the filter as the
// service sends it: a date statement evaluated into its {_min, _max} at the
// time of the call (the service's clock, here a year and more after the
// run's), never the statement as the user wrote it.
func TestAppsWebhookFilterEvaluated(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		later := func() time.Time { return time.Now().Add(400 * 24 * time.Hour) }
		e := newAppsEnv(t, dsn, func(c *apps.Config) { c.Now = later })
		hook := newHookApp(t)
		var app apps.App
		e.api("POST", "/api/apps", map[string]any{"url": hook.url}, 201, &app)
		var acc apps.Account
		e.api("POST", "/api/apps/accounts", map[string]any{"app": app.ID, "fields": map[string]any{"token": hookToken}}, 201, &acc)
		var sy apps.Sync
		e.api("POST", "/api/apps/syncs", map[string]any{"app": app.ID, "account": acc.ID, "types": []string{"note"},
			"filter": map[string][]string{"since": {"this year"}}}, 201, &sy)
		if first := e.waitRuns(sy.ID, apps.TriggerSchedule, 1)[0]; first.Status != apps.StatusSucceeded {
			t.Fatalf("first run: %+v", first)
		}
		data := hook.filtersAt("/api/v1/synchronizer/data")
		install := hook.filtersAt("/api/v1/synchronizer/webhooks")
		if len(data) == 0 || len(install) != 1 || !bytes.Contains(data[0], []byte(`"_min"`)) || !jsonEqual(t, data[0], install[0]) {
			t.Fatalf("the run's filters: data %s, install %s", data, install)
		}
		ev := `{"set":[{"id":"n9","name":"nine","size":9}],"token":"event-secret-77"}`
		if code, msg := send(t, e.srv.URL+"/api/apps/events/"+sy.ID, ev, sign([]byte(ev))); code != 202 {
			t.Fatalf("event: %d %q", code, msg)
		}
		testkit.WaitUntil(t, "the transform", func() bool { return len(hook.filtersAt("/api/v1/synchronizer/webhooks/transform")) > 0 })
		got := hook.filtersAt("/api/v1/synchronizer/webhooks/transform")[0]
		r, err := daterange.Parse("this year", later())
		if err != nil {
			t.Fatal(err)
		}
		wire, _ := r.WireJSON()
		if !jsonEqual(t, got, []byte(`{"since":`+string(wire)+`}`)) {
			t.Errorf("transform's filter %s, want since = %s (this year at the time of the event)", got, wire)
		}
		if jsonEqual(t, got, data[0]) {
			t.Errorf("transform's filter %s is the run's, not evaluated at the event", got)
		}
		// The event is sealed at rest and readable, secrets masked,
		// in the exchanges of its webhook run.
		var hooked []apps.Run
		testkit.WaitUntil(t, "the webhook run", func() bool {
			hooked = nil
			for _, r := range e.runs(sy.ID) {
				if r.Trigger == apps.TriggerWebhook && r.EndedAt != nil {
					hooked = append(hooked, r)
				}
			}
			return len(hooked) > 0
		})
		var params, payload string
		if err := e.st.DB().QueryRow("SELECT params, payload FROM apps_events").Scan(&params, &payload); err != nil {
			t.Fatal(err)
		}
		for _, clear := range []string{"nine", "event-secret-77", "x-signature"} {
			if strings.Contains(params+payload, clear) {
				t.Errorf("the stored event shows %q: %s %s", clear, params, payload)
			}
		}
		var run apps.Run
		e.api("GET", "/api/apps/runs/"+hooked[0].ID, nil, 200, &run)
		var xform *apps.Exchange
		for i := range run.Exchanges {
			if run.Exchanges[i].Path == "/api/v1/synchronizer/webhooks/transform" {
				xform = &run.Exchanges[i]
			}
		}
		if xform == nil || !strings.Contains(xform.Request, `"nine"`) || strings.Contains(xform.Request, "event-secret-77") {
			t.Errorf("the transform exchange: %+v", xform)
		}
		e.api("DELETE", "/api/apps/syncs/"+sy.ID, nil, 200, nil)
		del := hook.filtersAt("/api/v1/synchronizer/webhooks")
		if len(del) != 2 || !jsonEqual(t, del[1], got) {
			t.Errorf("the deletion's filter: %s", del)
		}
	})
}

// jsonEqual compares two JSON texts as values.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// Two syncs of one webhook app, each with its account and its space: an
// event posted to one sync's URL changes that sync's space only, and an
// event stored in clear by an earlier version (before events were sealed)
// still applies.
func TestAppsTwoSyncsWebhooks(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		e := newAppsEnv(t, dsn, nil)
		hook := newHookApp(t)
		var app apps.App
		e.api("POST", "/api/apps", map[string]any{"url": hook.url}, 201, &app)
		var syncs [2]apps.Sync
		for i := range syncs {
			var acc apps.Account
			e.api("POST", "/api/apps/accounts", map[string]any{"app": app.ID, "fields": map[string]any{"token": hookToken}}, 201, &acc)
			e.api("POST", "/api/apps/syncs", map[string]any{"app": app.ID, "account": acc.ID, "types": []string{"note"}}, 201, &syncs[i])
			if first := e.waitRuns(syncs[i].ID, apps.TriggerSchedule, 1)[0]; first.Status != apps.StatusSucceeded || first.Report.Webhook != "installed" {
				t.Fatalf("first run of sync %d: %+v", i, first)
			}
		}
		if syncs[0].Space != "hooks" || syncs[1].Space != "hooks-2" {
			t.Fatalf("spaces %q %q", syncs[0].Space, syncs[1].Space)
		}
		ev := `{"set":[{"id":"n3","name":"three","size":3}],"remove":["n1"]}`
		if code, msg := send(t, e.srv.URL+"/api/apps/events/"+syncs[1].ID, ev, sign([]byte(ev))); code != 202 {
			t.Fatalf("event: %d %q", code, msg)
		}
		testkit.WaitUntil(t, "the event to be applied", func() bool {
			var n int
			e.st.DB().QueryRowContext(context.Background(), "SELECT COUNT(*) FROM apps_events WHERE status = 'applied'").Scan(&n)
			return n == 1
		})
		if got := readPairs(t, e.st, "hooks-2/note", "hooks-2.note/name", "hooks-2.note/size"); len(got) != 2 || got["three"] != "3" || got["two"] != "2" {
			t.Errorf("the second sync's notes: %v", got)
		}
		if got := noteRows(t, e); len(got) != 2 || got["one"] != "1" || got["two"] != "2" {
			t.Errorf("the first sync's notes changed: %v", got)
		}
		// An event kept in clear (sealed = 0) by an earlier version.
		old := `{"set":[{"id":"n7","name":"seven","size":7}]}`
		if _, err := e.st.DB().ExecContext(context.Background(), e.st.Dialect().Rebind(`INSERT INTO apps_events (id, sync_id, received_at, params, payload, status, result, next_try)
VALUES (?, ?, ?, '{}', ?, 'pending', '', 0)`), "old-event", syncs[0].ID, time.Now().UnixMilli(), old); err != nil {
			t.Fatal(err)
		}
		testkit.WaitUntil(t, "the clear event to be applied", func() bool {
			var status string
			e.st.DB().QueryRowContext(context.Background(), "SELECT status FROM apps_events WHERE id = 'old-event'").Scan(&status)
			return status == "applied"
		})
		if got := noteRows(t, e); got["seven"] != "7" || len(got) != 3 {
			t.Errorf("the first sync's notes after the clear event: %v", got)
		}
	})
}
