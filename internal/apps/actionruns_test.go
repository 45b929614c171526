package apps

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/calllog"
	"github.com/appkitgo/appkit/internal/testkit"
)

// The action history keeps the latest Config.KeepActionRuns runs of each
// app, newest first; a refusal by the app is a failed run with its answer.
func TestActionRunsKeepTheLatest(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		var mu sync.Mutex
		clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		now := func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			clock = clock.Add(time.Second)
			return clock
		}
		svc, _ := testService(t, dsn, func(c *Config) { c.KeepActionRuns, c.Now = 2, now })
		app := newFakeApp(t, "token", nil)
		app.handlers["GET "+protocol.PathDescriptor] = answer(200, `{"id":"act","name":"Act","version":"1.0.0","type":"action",`+
			`"authentication":[{"id":"token","name":"Account","fields":[{"id":"token","name":"Token","type":"password"}]}],`+
			`"actions":[{"action":"ping","name":"Ping","args":[{"id":"n","name":"N","type":"text"}]}],"responsibleFor":{"automations":true}}`)
		app.handlers["POST "+protocol.PathActionExecute] = answer(200, `{"ok":true}`)
		a, acc := registerWithAccount(t, svc, app.url)
		for i := 1; i <= 3; i++ {
			if i == 3 {
				app.mu.Lock()
				app.handlers["POST "+protocol.PathActionExecute] = answer(422, `{"message":"no with account-token-42"}`)
				app.mu.Unlock()
			}
			_, err := svc.Actions.RunAction(ctx, ActionRequest{App: a.ID, Account: acc.ID, Action: "ping", Args: map[string]any{"n": strconv.Itoa(i)}, By: "user-" + strconv.Itoa(i)})
			if (err != nil) != (i == 3) {
				t.Fatalf("action %d: %v", i, err)
			}
		}
		runs, err := svc.Actions.ActionRuns(ctx, a.ID, 0)
		if err != nil || len(runs) != 2 {
			t.Fatalf("%d runs kept, want 2: %v", len(runs), err)
		}
		failed, ok := runs[0], runs[1]
		if failed.Args["n"] != "3" || failed.Status != StatusFailed || failed.AnswerStatus != 422 || failed.RanBy != "user-3" ||
			failed.Error == "" || strings.Contains(failed.Answer+failed.Error, "account-token-42") {
			t.Errorf("the newest run: %+v", failed)
		}
		if ok.Args["n"] != "2" || ok.Status != StatusSucceeded || ok.AnswerStatus != 200 || ok.Answer != `{"ok":true}` || ok.RanBy != "user-2" || ok.DurationMS < 0 {
			t.Errorf("the run before: %+v", ok)
		}
		if _, err := svc.Actions.ActionRuns(ctx, "nope", 0); err == nil {
			t.Error("the history of an unknown app")
		}
		if _, err := svc.DeleteApp(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := svc.core.db.QueryRow("SELECT COUNT(*) FROM apps_actions").Scan(&n); err != nil || n != 0 {
			t.Errorf("%d action runs left after the app was removed: %v", n, err)
		}
	})
}

// An account secret inside an action's argument reaches the app as given
// and is masked in the action history (the history is readable by anyone
// who reads the app).
func TestActionRunsMaskSecretsInArgs(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		svc, _ := testService(t, dsn, nil)
		app := newFakeApp(t, "token", nil)
		var mu sync.Mutex
		var sent string // the action call's body as the app received it
		app.handlers["GET "+protocol.PathDescriptor] = answer(200, `{"id":"act","name":"Act","version":"1.0.0","type":"action",`+
			`"authentication":[{"id":"token","name":"Account","fields":[{"id":"token","name":"Token","type":"password"}]}],`+
			`"actions":[{"action":"post","name":"Post","args":[{"id":"text","name":"Text","type":"text"}]}],"responsibleFor":{"automations":true}}`)
		app.handlers["POST "+protocol.PathActionExecute] = func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			sent = string(b)
			mu.Unlock()
			answer(200, `{"ok":true}`)(w, r)
		}
		a, acc := registerWithAccount(t, svc, app.url)
		arg := "curl -H 'Authorization: Bearer account-token-42' https://api.example"
		if _, err := svc.Actions.RunAction(ctx, ActionRequest{App: a.ID, Account: acc.ID, Action: "post", Args: map[string]any{"text": arg}}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if !strings.Contains(sent, arg) {
			t.Errorf("the app got %s, want the argument as given", sent)
		}
		mu.Unlock()
		runs, err := svc.Actions.ActionRuns(ctx, a.ID, 0)
		if err != nil || len(runs) != 1 {
			t.Fatalf("%d runs: %v", len(runs), err)
		}
		got := runs[0].Args["text"]
		if strings.Contains(got, "account-token-42") || !strings.Contains(got, "***") || !strings.HasPrefix(got, "curl -H") {
			t.Errorf("the history keeps the argument as %q, want the account's token masked", got)
		}
		var stored string
		if err := svc.core.db.QueryRow(svc.core.q("SELECT args FROM apps_actions WHERE app_id = ?"), a.ID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stored, "account-token-42") {
			t.Errorf("the stored history holds the token in clear: %s", stored)
		}
	})
}

// An action run keeps the calls the app reported making to its upstream
// API while running it, as a sync run's exchanges do: in the result, in
// the history (on both engines), masked again by the host.
func TestActionRunsKeepUpstreamCalls(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		svc, _ := testService(t, dsn, nil)
		app := newFakeApp(t, "token", nil)
		var mu sync.Mutex
		var asked, requestID string
		app.handlers["GET "+protocol.PathDescriptor] = answer(200, `{"id":"act","name":"Act","version":"1.0.0","type":"action",`+
			`"authentication":[{"id":"token","name":"Account","fields":[{"id":"token","name":"Token","type":"password"}]}],`+
			`"actions":[{"action":"post","name":"Post","args":[]}],"responsibleFor":{"automations":true}}`)
		app.handlers["POST "+protocol.PathActionExecute] = func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			asked, requestID = r.Header.Get(calllog.RequestHeader), r.Header.Get("X-Request-Id")
			mu.Unlock()
			// The app forgot to mask the token in the URL: the host does.
			w.Header().Set(calllog.AnswerHeader, `{"calls":[{"method":"POST","url":"https://api.example/send?t=account-token-42","status":201,"durationMs":7,"bytes":12}],"dropped":2}`)
			answer(200, `{"ok":true}`)(w, r)
		}
		a, acc := registerWithAccount(t, svc, app.url)
		res, err := svc.Actions.RunAction(ctx, ActionRequest{App: a.ID, Account: acc.ID, Action: "post"})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if asked == "" || requestID == "" {
			t.Fatalf("the action call asked for upstream calls %q with request id %q", asked, requestID)
		}
		runs, err := svc.Actions.ActionRuns(ctx, a.ID, 0)
		if err != nil || len(runs) != 1 {
			t.Fatalf("%d runs: %v", len(runs), err)
		}
		for name, got := range map[string]UpstreamReport{"result": res.UpstreamReport, "history": runs[0].UpstreamReport} {
			if got.RequestID != requestID || got.UpstreamDropped != 2 || len(got.Upstream) != 1 {
				t.Fatalf("%s: %+v, want request id %s, one call and two dropped", name, got, requestID)
			}
			if c := got.Upstream[0]; c.Method != "POST" || c.Status != 201 || c.URL != "https://api.example/send?t=***" {
				t.Errorf("%s: the call %+v, want POST 201 with the token masked", name, c)
			}
		}
	})
}
