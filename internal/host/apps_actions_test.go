package host_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	gosync "sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/examples/actions/notify"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

// An action app's action runs from the host with its arguments; those
// declared textTemplateSupported are rendered against a tracker task
// synchronized into the store ({{Name}}, a select's option, a store field
// name, an app field id).
func TestAppsActionWithTemplate(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		testActionWithTemplate(t, dsn)
	})
}

func testActionWithTemplate(t *testing.T, dsn string) {
	e := newAppsEnv(t, dsn, nil)
	// The tracker, synchronized.
	trk, trkAcc, sy := e.newSync(trackerURL(t, 5), map[string]any{"token": tracker.DemoToken}, nil)
	if run := e.waitRuns(sy.ID, "", 1)[0]; run.Status != apps.StatusSucceeded {
		t.Fatalf("tracker run: %+v", run)
	}
	id, name, status, priority := oneTask(t, e.st)

	// The notify app, posting to a chat webhook served by the test.
	var mu gosync.Mutex
	var got []map[string]any
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &m)
		mu.Lock()
		got = append(got, m)
		mu.Unlock()
		w.WriteHeader(200)
	}))
	defer chat.Close()
	nop := zerolog.Nop()
	var nfy apps.App
	e.api("POST", "/api/apps", map[string]any{"url": testapp.Serve(t, notify.New(notify.Config{AllowHTTP: true, AllowPrivateNetworks: true, Logger: &nop}))}, 201, &nfy)
	var acc apps.Account
	e.api("POST", "/api/apps/accounts", map[string]any{"app": nfy.ID, "auth": "token", "fields": map[string]any{"token": notify.DefaultToken, "webhook_url": chat.URL + "/hook/secret-path"}}, 201, &acc)

	body := map[string]any{"app": nfy.ID, "account": acc.ID, "action": "post-message",
		"args":   map[string]any{"text": "Task {{Name}} is {{ Status }} (priority {{tracker.task/priority}}, {{status}})", "channel": "ops"},
		"entity": map[string]any{"type": "tracker/task", "id": id}}
	var res apps.ActionResult
	e.api("POST", "/api/apps/actions", body, 200, &res)
	want := "Task " + name + " is " + status + " (priority " + priority + ", " + status + ")"
	if res.Args["text"] != want || res.Args["channel"] != "ops" {
		t.Errorf("rendered %v, want text %q", res.Args, want)
	}
	mu.Lock()
	if len(got) != 1 || got[0]["text"] != want || got[0]["channel"] != "ops" {
		t.Errorf("the chat received %v", got)
	}
	mu.Unlock()

	// Refusals.
	bad := func(change func(m map[string]any), wantStatus int, msg string) {
		t.Helper()
		m := map[string]any{}
		for k, v := range body {
			m[k] = v
		}
		change(m)
		if r := e.api("POST", "/api/apps/actions", m, wantStatus, nil); !strings.Contains(r.message(t), msg) {
			t.Errorf("%s: %s", msg, r.raw)
		}
	}
	bad(func(m map[string]any) { m["args"] = map[string]any{"text": "{{Nope}}"} }, 400, "no such field")
	bad(func(m map[string]any) { delete(m, "entity") }, 400, "give the entity")
	bad(func(m map[string]any) { m["action"] = "nope" }, 400, "no action")
	bad(func(m map[string]any) { m["args"] = map[string]any{"text": "x", "extra": "y"} }, 400, "no argument")
	bad(func(m map[string]any) { m["args"] = map[string]any{"text": []int{1}} }, 400, "want text")
	bad(func(m map[string]any) {
		m["entity"] = map[string]any{"type": "tracker/task", "id": "00000000-0000-0000-0000-000000000000"}
	}, 404, "no tracker/task entity")
	bad(func(m map[string]any) { m["account"] = trkAcc.ID }, 400, "another app")
	// A template in an argument not declared textTemplateSupported is sent
	// as it is.
	bad(func(m map[string]any) { m["args"] = map[string]any{"webhook_url": "{{Name}}"} }, 400, "the app answered")

	// The action history: each run that reached the app, newest first,
	// with its rendered arguments, entity, the app's answer, duration and
	// who ran it; refusals of the host are not runs.
	var runs []apps.ActionRun
	e.api("GET", "/api/apps/actions?app="+nfy.ID, nil, 200, &runs)
	if len(runs) != 2 {
		t.Fatalf("%d action runs, want 2: %+v", len(runs), runs)
	}
	ok, failed := runs[1], runs[0]
	if ok.Status != apps.StatusSucceeded || ok.Action != "post-message" || ok.Args["text"] != want || ok.Args["channel"] != "ops" ||
		ok.Entity == nil || ok.Entity.ID != id || ok.Entity.Type != "tracker/task" || ok.AnswerStatus != 200 ||
		ok.RanBy != adminEmail || ok.Account != acc.ID || ok.App != nfy.ID || ok.StartedAt.IsZero() || ok.DurationMS < 0 {
		t.Errorf("the successful run: %+v", ok)
	}
	if failed.Status != apps.StatusFailed || failed.AnswerStatus != 400 || failed.Error == "" || failed.Args["webhook_url"] != "{{Name}}" || failed.Entity == nil {
		t.Errorf("the refused run: %+v", failed)
	}
	for _, r := range runs {
		if b, _ := json.Marshal(r); strings.Contains(string(b), "secret-path") || strings.Contains(string(b), notify.DefaultToken) {
			t.Errorf("an action run shows a secret: %s", b)
		}
	}
	e.api("GET", "/api/apps/actions?app="+nfy.ID+"&limit=1", nil, 200, &runs)
	if len(runs) != 1 || runs[0].ID != failed.ID {
		t.Errorf("limit=1: %+v", runs)
	}
	e.api("GET", "/api/apps/actions?app="+trk.ID, nil, 200, &runs)
	if len(runs) != 0 {
		t.Errorf("the tracker's action history: %+v", runs)
	}
	e.api("GET", "/api/apps/actions", nil, 400, nil)
	e.api("GET", "/api/apps/actions?app=nope", nil, 404, nil)
	e.api("GET", "/api/apps/actions?app="+nfy.ID+"&limit=0", nil, 400, nil)
}

// oneTask reads one synchronized task: its id, name, status option and
// priority.
func oneTask(t *testing.T, st *store.Store) (id, name, status, priority string) {
	t.Helper()
	err := st.Write(context.Background(), func(tx *store.Tx) error {
		ty := tx.Catalog().Type("tracker/task")
		rows, err := tx.Querier().QueryContext(tx.Context(), "SELECT id FROM "+ty.Table+" ORDER BY id LIMIT 1")
		if err != nil {
			return err
		}
		rows.Next()
		rows.Scan(&id)
		rows.Close()
		v, err := tx.Read(ty, id)
		if err != nil {
			return err
		}
		name, _ = v["tracker.task/name"].(string)
		opt, err := tx.Read(tx.Catalog().Target(ty.Field("tracker.task/status")), v["tracker.task/status"].(map[string]any)["platform/id"].(string))
		if err != nil {
			return err
		}
		status, _ = opt["enum/name"].(string)
		priority = strings.TrimSpace(jsonString(v["tracker.task/priority"]))
		return nil
	})
	if err != nil || id == "" || name == "" || status == "" {
		t.Fatalf("a task: %q %q %q %v", id, name, status, err)
	}
	return id, name, status, priority
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}
