package apps

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
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
			_, err := svc.RunAction(ctx, ActionRequest{App: a.ID, Account: acc.ID, Action: "ping", Args: map[string]any{"n": strconv.Itoa(i)}, By: "user-" + strconv.Itoa(i)})
			if (err != nil) != (i == 3) {
				t.Fatalf("action %d: %v", i, err)
			}
		}
		runs, err := svc.ActionRuns(ctx, a.ID, 0)
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
		if _, err := svc.ActionRuns(ctx, "nope", 0); err == nil {
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
