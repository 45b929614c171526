package appkittest_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

// fakeT records failures and logs instead of failing the real test, so the
// harness's own checks can be tested.
type fakeT struct {
	testing.TB
	failed   []string
	logs     []string
	cleanups []func()
}

func (f *fakeT) Helper()           {}
func (f *fakeT) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Failed() bool      { return len(f.failed) > 0 }
func (f *fakeT) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }
func (f *fakeT) FailNow()          { f.Fatalf("FailNow") }
func (f *fakeT) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *fakeT) Errorf(format string, args ...any) {
	f.failed = append(f.failed, fmt.Sprintf(format, args...))
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = append(f.failed, fmt.Sprintf(format, args...))
	panic(f)
}

// run calls fn with a fakeT, runs its cleanups, and returns what it
// reported.
func run(fn func(t *fakeT)) *fakeT {
	f := &fakeT{}
	func() {
		defer func() {
			if p := recover(); p != nil && p != any(f) {
				panic(p)
			}
		}()
		fn(f)
	}()
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	return f
}

type cur struct{ N int }

// mapApp serves type "t" (id, name, points, due) from page, and "u" with a
// relation to it.
func mapApp(delta bool, page appkit.PageFunc[appkit.Item, cur]) *appkit.App {
	nop := zerolog.Nop()
	return &appkit.App{ID: "h", Name: "h", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &nop,
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "t", Name: "T", Delta: delta,
			Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "N"), appkit.Integer("points", "Points"), appkit.DayField("due", "Due"),
				appkit.Bool("done", "Done"), appkit.Refs("tags", "Tags", "t")},
			Data: appkit.Pages(page)}}}}
}

// noPage answers an empty last page, for tests of serving rather than data.
func noPage(context.Context, *appkit.DataRequest, *cur) (*appkit.Page[appkit.Item, cur], error) {
	return nil, nil
}

func TestSyncWalksTheTracker(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	c := appkittest.New(t, tracker.New(tracker.Config{Projects: 4, Tasks: 1200, Now: func() time.Time { return now }}))
	c.Account = map[string]any{"token": "demo"}
	if d := c.Descriptor(); d.ID != "tracker" {
		t.Fatalf("descriptor = %+v", d)
	}
	if r := c.Validate("token"); r.Status != 200 {
		t.Fatalf("validate = %d %s", r.Status, r.Body)
	}
	if s := c.Schema(nil, "task"); s["task"]["project"].Relation == nil {
		t.Fatalf("schema = %v", s)
	}
	pages := c.Sync(appkittest.Run{Type: "task"})
	if len(pages) < 3 {
		t.Fatalf("1200 tasks in %d pages; want at least 3 of at most %d", len(pages), tracker.PageSize)
	}
	delta := c.Sync(appkittest.Run{Type: "task", LastSynchronizedAt: now.Add(-72 * time.Hour)})
	if delta[0].SynchronizationType != "delta" {
		t.Fatalf("delta run answered %q", delta[0].SynchronizationType)
	}
	if opts := c.Datalist(tracker.FilterProjects, nil); len(opts) != 4 || opts[0].Value != "p1" {
		t.Fatalf("datalist = %v", opts)
	}
	if r := c.ValidateFilter(map[string]any{"projects": []string{"p9"}}, "task"); r.Status != 400 || !strings.Contains(r.Message(), "p9") {
		t.Fatalf("filter/validate of an unknown project = %d %s", r.Status, r.Body)
	}
	if r := c.ValidateFilter(map[string]any{"projects": []string{"p2"}}, "task"); r.Status != 204 {
		t.Fatalf("filter/validate = %d %s", r.Status, r.Body)
	}
	c.Account = map[string]any{"token": "nope"}
	if r := c.Validate("token"); r.Status != 401 || r.Message() == "" {
		t.Fatalf("bad token = %d %s", r.Status, r.Body)
	}
	// The account goes with every call: a wrong one is refused by data too.
	if r := c.Do("POST", "/api/v1/synchronizer/data", map[string]any{"requestedType": "task"}); r.Status != 401 {
		t.Fatalf("data with a wrong account = %d %s", r.Status, r.Body)
	}
}

func TestSyncCatchesProtocolBreaks(t *testing.T) {
	t.Parallel()
	page := func(items ...appkit.Item) func(context.Context, *appkit.DataRequest, *cur) (*appkit.Page[appkit.Item, cur], error) {
		return func(context.Context, *appkit.DataRequest, *cur) (*appkit.Page[appkit.Item, cur], error) {
			return &appkit.Page[appkit.Item, cur]{Items: items}, nil
		}
	}
	tests := []struct {
		name  string
		delta bool
		page  appkit.PageFunc[appkit.Item, cur]
		want  string
	}{
		{"unknown key", false, page(appkit.Item{"id": "1", "name": "x", "colour": "red"}),
			`type "t", page 1, item "1", field "colour": unknown key: the type's schema has no such field`},
		{"wrong value for the kind", false, page(appkit.Item{"id": "1", "name": "x", "points": "many"}),
			`item "1", field "points": value shape: want a number, got "many"`},
		{"wrong value for the subType", false, page(appkit.Item{"id": "1", "name": "x", "points": 2.5}),
			`field "points": value shape: want an integer, got 2.5`},
		{"a day that is not YYYY-MM-DD", false, page(appkit.Item{"id": "1", "name": "x", "due": "13/06/2024"}),
			`field "due": value shape: want a day YYYY-MM-DD, got "13/06/2024"`},
		{"a boolean that is not one of the texts", false, page(appkit.Item{"id": "1", "name": "x", "done": "maybe"}),
			`field "done": value shape: want one of "true"`},
		{"relation ids that are not strings", false, page(appkit.Item{"id": "1", "name": "x", "tags": map[string]any{"a": 1}}),
			`field "tags": value shape: want an array of related ids`},
		{"id missing", false, page(appkit.Item{"name": "x"}), `items[0]: id missing: the item has no id`},
		{"id not a string", false, page(appkit.Item{"id": []string{"a"}, "name": "x"}), `id not a string: want the id as a string, got ["a"]`},
		{"id repeated within a run", false, func(_ context.Context, _ *appkit.DataRequest, c *cur) (*appkit.Page[appkit.Item, cur], error) {
			if c == nil {
				return &appkit.Page[appkit.Item, cur]{Items: []appkit.Item{{"id": "1", "name": "a"}}, Next: &cur{N: 1}}, nil
			}
			return &appkit.Page[appkit.Item, cur]{Items: []appkit.Item{{"id": "1", "name": "b"}}}, nil
		}, `type "t", page 2, item "1": id repeated: already sent on page 1`},
		{"a cursor that repeats", false, func(context.Context, *appkit.DataRequest, *cur) (*appkit.Page[appkit.Item, cur], error) {
			return &appkit.Page[appkit.Item, cur]{Next: &cur{N: 7}}, nil
		}, `page 2: cursor repeats: the next cursor {"N":7} repeats the one of page 1`},
		{"a page that repeats the ids of the one before", false, func(_ context.Context, _ *appkit.DataRequest, c *cur) (*appkit.Page[appkit.Item, cur], error) {
			n := 1
			if c != nil {
				n = c.N + 1
			}
			return &appkit.Page[appkit.Item, cur]{Items: []appkit.Item{{"id": "1", "name": "a"}, {"id": "2", "name": "b"}}, Next: &cur{N: n}}, nil
		}, `page 2: page repeats: the page's 2 ids are exactly those of page 1`},
		{"delta on a type without delta", false, func(context.Context, *appkit.DataRequest, *cur) (*appkit.Page[appkit.Item, cur], error) {
			return &appkit.Page[appkit.Item, cur]{Delta: true}, nil
		}, `the handler answered a delta page, but the type does not declare Delta`},
		{"REMOVE in a full page", true, func(context.Context, *appkit.DataRequest, *cur) (*appkit.Page[appkit.Item, cur], error) {
			return &appkit.Page[appkit.Item, cur]{Removed: []string{"1"}}, nil
		}, `removals (Page.Removed) in a full page`},
		{"full and delta pages in one run", true, func(_ context.Context, _ *appkit.DataRequest, c *cur) (*appkit.Page[appkit.Item, cur], error) {
			return &appkit.Page[appkit.Item, cur]{Delta: c != nil, Next: map[bool]*cur{true: {N: 1}}[c == nil]}, nil
		}, `page 2: full and delta pages in one run: page 2 is delta after full pages`},
		{"failing page", false, func(context.Context, *appkit.DataRequest, *cur) (*appkit.Page[appkit.Item, cur], error) {
			return nil, appkit.TryLater(fmt.Errorf("busy"))
		}, "= 503"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := run(func(ft *fakeT) {
				appkittest.New(ft, mapApp(tc.delta, tc.page)).Sync(appkittest.Run{Type: "t"})
			})
			if !strings.Contains(strings.Join(f.failed, "\n"), tc.want) {
				t.Fatalf("reported %q, want %q", f.failed, tc.want)
			}
		})
	}
	good := run(func(ft *fakeT) {
		appkittest.New(ft, mapApp(true, func(_ context.Context, r *appkit.DataRequest, c *cur) (*appkit.Page[appkit.Item, cur], error) {
			delta := !r.LastSynchronizedAt.IsZero()
			if c == nil {
				return &appkit.Page[appkit.Item, cur]{Items: []appkit.Item{{"id": "1", "name": "a", "points": 3, "due": "2024-06-13", "done": true}}, Next: &cur{N: 1}, Delta: delta}, nil
			}
			p := &appkit.Page[appkit.Item, cur]{Items: []appkit.Item{{"id": "2", "tags": []string{"1"}}}, Delta: delta}
			if delta {
				p.Removed = []string{"3"}
			}
			return p, nil
		})).SyncAll(appkittest.Run{Type: "t", LastSynchronizedAt: time.Now()})
	})
	if len(good.failed) != 0 {
		t.Fatalf("a well-behaved app was reported: %q", good.failed)
	}
	invalid := run(func(ft *fakeT) { appkittest.New(ft, &appkit.App{}) })
	if len(invalid.failed) != 1 || !strings.Contains(invalid.failed[0], "declaration is invalid") {
		t.Fatalf("invalid app reported %q", invalid.failed)
	}
}

// The app's log reaches the test's log only when the test fails.
func TestLogsShownOnFailureOnly(t *testing.T) {
	t.Parallel()
	newApp := func() *appkit.App {
		a := mapApp(false, func(context.Context, *appkit.DataRequest, *cur) (*appkit.Page[appkit.Item, cur], error) {
			return nil, errors.New("the upstream exploded")
		})
		a.Logger = nil
		return a
	}
	passing := run(func(ft *fakeT) { appkittest.New(ft, newApp()).Descriptor() })
	if len(passing.logs) != 0 {
		t.Fatalf("a passing test printed the app's log: %q", passing.logs)
	}
	failing := run(func(ft *fakeT) { appkittest.New(ft, newApp()).Sync(appkittest.Run{Type: "t"}) })
	if logs := strings.Join(failing.logs, "\n"); !strings.Contains(logs, "the upstream exploded") {
		t.Fatalf("a failing test did not print the app's log: %q", failing.logs)
	}
}

func TestActionsAndWebhooksHelpers(t *testing.T) {
	t.Parallel()
	type note struct {
		ID   string `appkit:"id"`
		Name string `appkit:"name"`
	}
	nop := zerolog.Nop()
	a := &appkit.App{ID: "h", Name: "h", Version: "1", Logger: &nop,
		Auth: []appkit.Auth{appkit.TokenAuth("T", "token", func(_ context.Context, tok string) (string, error) {
			if tok != "ok" {
				return "", errors.New("refused")
			}
			return "ok", nil
		})},
		Actions: []appkit.Action{{ID: "ping", Name: "Ping", Args: []appkit.Arg{{ID: "to", Name: "To", Type: appkit.ArgText}},
			Run: func(_ context.Context, r *appkit.ActionRequest) error {
				if r.Account.String("token") != "ok" {
					return appkit.InvalidAccount("no account")
				}
				return nil
			}}},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "note", Name: "Notes", Delta: true,
			Data: appkit.All(func(context.Context, *appkit.DataRequest) ([]note, error) { return nil, nil })}},
			Webhooks: &appkit.Webhooks{
				Install: func(context.Context, *appkit.WebhookRequest) (*appkit.Webhook, error) {
					return &appkit.Webhook{ID: "w1"}, nil
				},
				Delete: func(context.Context, *appkit.WebhookRequest) error { return nil },
				Verify: func(context.Context, *appkit.WebhookEvent) (string, error) { return "w1", nil },
				Transform: func(context.Context, *appkit.WebhookEvent) (appkit.Changes, error) {
					return appkit.Changes{"note": {Items: []any{note{ID: "n1", Name: "N"}}, Removed: []string{"n2"}}}, nil
				},
			}}}
	c := appkittest.New(t, a)
	c.Account = map[string]any{"token": "ok"}
	if r := c.Execute("ping", map[string]any{"to": "x"}); r.Status != 200 {
		t.Fatalf("execute = %d %s", r.Status, r.Body)
	}
	if r := c.Execute("ping", map[string]any{}); r.Status != 400 || !strings.Contains(r.Message(), "required") {
		t.Fatalf("execute without its argument = %d %s", r.Status, r.Body)
	}
	w := appkittest.Webhook{Types: []string{"note"}, URL: "https://host/hook"}
	w.Object = c.InstallWebhook(w)
	if w.Object["id"] != "w1" {
		t.Fatalf("install = %v", w.Object)
	}
	if r := c.VerifyWebhook(map[string]any{"sig": "x"}, map[string]any{"id": "n1"}); r.Status != 200 {
		t.Fatalf("verify = %d %s", r.Status, r.Body)
	}
	got := c.TransformWebhook(w, nil, map[string]any{"id": "n1"})
	if len(got["note"]) != 2 || got["note"][0]["__syncAction"] != "SET" || got["note"][1]["__syncAction"] != "REMOVE" {
		t.Fatalf("transform = %v", got)
	}
	if r := c.DeleteWebhook(w); r.Status != 204 {
		t.Fatalf("delete = %d %s", r.Status, r.Body)
	}
}

func TestServeMain(t *testing.T) {
	t.Parallel()
	a := mapApp(false, noPage)
	m := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		return appkit.ServeListener(ctx, l, a)
	})
	if !strings.Contains(m.Descriptor, `"id":"h"`) {
		t.Fatalf("descriptor = %s", m.Descriptor)
	}
	if !strings.HasSuffix(m.URL, ":"+m.Port) {
		t.Errorf("URL %s does not end in the port %s", m.URL, m.Port)
	}
	if err := m.Stop(); err != nil {
		t.Fatalf("Stop = %v", err)
	}
	if _, err := http.Get(m.URL + "/"); err == nil {
		t.Error("the server still answers after Stop")
	}
	f := run(func(ft *fakeT) {
		appkittest.ServeMain(ft, func(ctx context.Context, l net.Listener) error { return fmt.Errorf("bad config") })
	})
	if len(f.failed) != 1 || !strings.Contains(f.failed[0], "stopped before answering: bad config") {
		t.Fatalf("a main that fails at start reported %q", f.failed)
	}
	f = run(func(ft *fakeT) {
		appkittest.ServeMain(ft, func(ctx context.Context, l net.Listener) error {
			return http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusServiceUnavailable) }))
		})
	})
	if len(f.failed) != 1 || !strings.Contains(f.failed[0], "GET / = 503") {
		t.Fatalf("a main answering 503 reported %q", f.failed)
	}
}

// Two servers started at once each get their own listener: no port is
// picked, released and raced for.
func TestServeMain_parallelServersDoNotShareAPort(t *testing.T) {
	t.Parallel()
	a := mapApp(false, noPage)
	serve := func(ctx context.Context, l net.Listener) error { return appkit.ServeListener(ctx, l, a) }
	m1, m2 := appkittest.ServeMain(t, serve), appkittest.ServeMain(t, serve)
	if m1.Port == m2.Port {
		t.Fatalf("both servers on port %s", m1.Port)
	}
}

// A server the test does not stop is stopped when the test ends, and an
// error of its serve function then fails the test.
func TestServeMain_stoppedAtTheEnd(t *testing.T) {
	t.Parallel()
	a := mapApp(false, noPage)
	returned := make(chan struct{})
	f := run(func(ft *fakeT) {
		appkittest.ServeMain(ft, func(ctx context.Context, l net.Listener) error {
			defer close(returned)
			if err := appkit.ServeListener(ctx, l, a); err != nil {
				return err
			}
			return errors.New("flush failed")
		})
	})
	select {
	case <-returned:
	default:
		t.Fatal("the serve function still runs after the test's end")
	}
	if len(f.failed) != 1 || !strings.Contains(f.failed[0], "returned flush failed when stopped at the end of the test") {
		t.Fatalf("failures = %q", f.failed)
	}
}
