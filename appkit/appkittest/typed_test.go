package appkittest_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/daterange"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

type issue struct {
	ID    string     `appkit:"id"`
	Name  string     `appkit:"name"`
	State string     `appkit:"state,single-select,options=open|closed"`
	Due   time.Time  `appkit:"due,day"`
	Seen  appkit.Day `appkit:"seen"`
}

// issueApp serves issues, narrowed by a state filter and a day filter,
// behind a key account field; its action takes typed arguments.
func issueApp(items []issue, called *string) *appkit.App {
	key := appkit.SecretAccountField("key", "Key", "d")
	state := appkit.ListFilter("state", "State", func(ctx context.Context, r *appkit.DatalistRequest) ([]appkit.Option, error) {
		return []appkit.Option{{Title: "Open", Value: "open"}, {Title: "Closed", Value: "closed"}}, nil
	}).Optional()
	after := appkit.DayFilter("after", "Seen after").Optional()
	to := appkit.TextArg("to", "To")
	nop := zerolog.Nop()
	return &appkit.App{ID: "issues", Name: "Issues", Version: "1", Logger: &nop,
		Auth: []appkit.Auth{{ID: "key", Name: "Key", Fields: appkit.Form(key), Validate: func(ctx context.Context, a appkit.Account) (*appkit.Validation, error) {
			k, _ := key.Get(a)
			return &appkit.Validation{Name: k}, nil
		}}},
		Sync: &appkit.Sync{Filters: []appkit.Filter{state, after}, Types: []appkit.Type{{ID: "issue", Name: "Issues",
			Data: appkit.All(func(ctx context.Context, r *appkit.DataRequest) ([]issue, error) {
				if k, _ := key.Get(r.Account); k != "k1" {
					return nil, appkit.InvalidAccount("wrong key")
				}
				want, _ := state.Get(r.Filter)
				from, _ := after.Get(r.Filter)
				var out []issue
				for _, it := range items {
					if (want == "" || it.State == want) && (from.IsZero() || !it.Seen.Time(nil).Before(from.Time(nil))) {
						out = append(out, it)
					}
				}
				return out, nil
			})}}},
		Actions: []appkit.Action{{ID: "ping", Name: "Ping", Args: appkit.ArgList(to), Run: func(ctx context.Context, r *appkit.ActionRequest) error {
			*called, _ = to.Get(r.Args)
			return nil
		}}}}
}

// Handles in, typed values out: the test names nothing the app declared by
// a string of its own.
func TestTypedEntryPoints(t *testing.T) {
	t.Parallel()
	items := []issue{
		{ID: "1", Name: "a", State: "open", Due: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), Seen: appkit.Day{Year: 2026, Month: 5, Day: 1}},
		{ID: "2", Name: "b", State: "closed", Seen: appkit.Day{Year: 2026, Month: 5, Day: 20}},
		{ID: "3", Name: "c", State: "open", Seen: appkit.Day{Year: 2026, Month: 5, Day: 30}},
	}
	var called string
	app := issueApp(items, &called)
	key := appkit.SecretAccountField("key", "Key", "d")
	state := appkit.ListFilter("state", "State", nil)
	after := appkit.DayFilter("after", "Seen after")
	c := appkittest.New(t, app)
	c.Account = appkittest.Values(appkittest.AccountValue(key, "k1"))
	got := appkittest.Items[issue](c, appkittest.Run{Type: "issue",
		Filter: appkittest.Values(appkittest.FilterValue(state, "open"), appkittest.FilterValue(after, appkit.Day{Year: 2026, Month: 5, Day: 15}))})
	if len(got) != 1 || got[0] != items[2] {
		t.Fatalf("items = %+v", got)
	}
	all := appkittest.Items[issue](c, appkittest.Run{Type: "issue"})
	if len(all) != 3 || !all[0].Due.Equal(items[0].Due) || all[1] != items[1] {
		t.Fatalf("all items = %+v", all)
	}
	if opts := appkittest.Options(c, state); len(opts) != 2 || opts[1].Value != "closed" {
		t.Fatalf("options = %+v", opts)
	}
	if r := appkittest.ExecuteAction(c, "ping", appkittest.ArgValue(appkit.TextArg("to", "To"), "ada")); r.Status != http.StatusOK || called != "ada" {
		t.Fatalf("execute = %d %s, called %q", r.Status, r.Body, called)
	}
	if v := appkittest.Values(appkittest.FilterValue(appkit.DateRangeFilter("when", "When"), must(t, "2026-01-01", "2026-01-31"))); !strings.Contains(jsonOf(t, v), `"_min":"2026-01-01T00:00:00.000"`) {
		t.Fatalf("a date range's wire form: %s", jsonOf(t, v))
	}
}

// appkittest fails a time of day put into a day field and a single-select
// value outside its declared options, naming the item and the field.
func TestSync_failsDayTimesAndUndeclaredOptions(t *testing.T) {
	t.Parallel()
	var called string
	app := issueApp([]issue{
		{ID: "1", Name: "fine", State: "open", Due: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)},
		{ID: "2", Name: "time of day", State: "closed", Due: time.Date(2026, 6, 1, 14, 30, 0, 0, time.UTC)},
		{ID: "3", Name: "not an option", State: "Opened"},
	}, &called)
	f := run(func(ft *fakeT) {
		c := appkittest.New(ft, app)
		c.Account = map[string]any{"key": "k1"}
		c.SyncAll(appkittest.Run{Type: "issue"})
	})
	joined := strings.Join(f.failed, "\n")
	for _, want := range []string{
		`item "2", field "due": value coerced: got "2026-06-01T14:30:00.000Z": a date-time in a day field, its day (UTC) kept`,
		`item "3", field "state": option not declared: want one of the options ["open","closed"], got "Opened"`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("failures lack %q:\n%s", want, joined)
		}
	}
	if len(f.failed) != 2 {
		t.Errorf("%d failures, want 2:\n%s", len(f.failed), joined)
	}
}

// An error answer without a {message} fails the test, at 400 as at any
// other error status; one with a message does not.
func TestDo_errorWithoutMessageFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
		fails  bool
	}{
		{400, `{}`, true},
		{400, `{"message":""}`, true},
		{400, `not json`, true},
		{401, `{"error":"x"}`, true},
		{503, `{"tryLater":true}`, true},
		{400, `{"message":"bad filter"}`, false},
		{200, `{}`, false},
	} {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(tc.body))
		})
		f := run(func(ft *fakeT) {
			appkittest.NewHandler(ft, h).Do(http.MethodPost, "/api/v1/synchronizer/filter/validate", map[string]any{})
		})
		failed := len(f.failed) > 0 && strings.Contains(f.failed[0], "without a {message}")
		if failed != tc.fails {
			t.Errorf("%d %s: failed = %v (%q), want %v", tc.status, tc.body, failed, f.failed, tc.fails)
		}
	}
}

// An OAuth 2 redirect_uri must carry the state as its state parameter.
func TestOAuth2Authorize_requiresTheState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		redirect string
		fails    bool
	}{
		{"https://p.example/auth?client_id=c&state=s-123", false},
		{"https://p.example/auth?client_id=c", true},
		{"https://p.example/auth?client_id=c&state=s-1234", true},
		{"https://p.example/auth?next=s-123", true},
		{"/auth?state=s-123", true},
	} {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"redirect_uri":` + strings.ReplaceAll(`"X"`, "X", tc.redirect) + `}`))
		})
		f := run(func(ft *fakeT) {
			appkittest.NewHandler(ft, h).OAuth2Authorize("https://service.example/cb", "s-123")
		})
		if got := len(f.failed) > 0; got != tc.fails {
			t.Errorf("%s: failed = %v (%q), want %v", tc.redirect, got, f.failed, tc.fails)
		}
	}
}

func must(t *testing.T, from, to string) daterange.Range {
	t.Helper()
	a, err := time.Parse(time.DateOnly, from)
	if err != nil {
		t.Fatal(err)
	}
	b, err := time.Parse(time.DateOnly, to)
	if err != nil {
		t.Fatal(err)
	}
	return daterange.Range{Min: &a, Max: &b}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Items decodes the tracker's tasks into its own item struct, every page.
func TestItems_decodesTheTracker(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	c := appkittest.New(t, tracker.New(tracker.Config{Projects: 2, Tasks: 300, Now: func() time.Time { return now }}))
	c.Account = appkittest.Values(appkittest.AccountValue(appkit.TokenAuthToken, tracker.DemoToken))
	raw := c.SyncAll(appkittest.Run{Type: "task"})
	tasks := appkittest.Items[tracker.TaskItem](c, appkittest.Run{Type: "task"})
	if len(tasks) != len(raw) || len(tasks) < 290 {
		t.Fatalf("%d typed tasks, %d raw", len(tasks), len(raw))
	}
	for i, task := range tasks {
		if task.ID != raw[i]["id"] || task.Name != raw[i]["name"] {
			t.Fatalf("task %d: %+v, wire %v", i, task, raw[i])
		}
	}
}

// Items reads integers exactly: 2^53+1 and the highest int64, which a
// float64 rounds (the highest int64 then out of range).
func TestItemsReadIntegersExactly(t *testing.T) {
	t.Parallel()
	type counter struct {
		ID   string `appkit:"id"`
		Name string `appkit:"name"`
		N    int64  `appkit:"n"`
		U    uint64 `appkit:"u"`
	}
	want := []counter{{ID: "a", Name: "a", N: 1<<53 + 1, U: 1<<53 + 1}, {ID: "b", Name: "b", N: math.MaxInt64, U: math.MaxInt64}}
	nop := zerolog.Nop()
	app := &appkit.App{ID: "counters", Name: "Counters", Version: "1", Logger: &nop, Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "counter", Name: "Counters",
			Data: appkit.All(func(ctx context.Context, r *appkit.DataRequest) ([]counter, error) { return want, nil })}}}}
	c := appkittest.New(t, app)
	got := appkittest.Items[counter](c, appkittest.Run{Type: "counter"})
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("items = %+v, want %+v", got, want)
	}
	// SyncAll's items keep encoding/json's float64, and its checks read the
	// page exactly: the highest int64 is no violation there either.
	if raw := c.SyncAll(appkittest.Run{Type: "counter"}); len(raw) != 2 || raw[1]["n"] != float64(math.MaxInt64) {
		t.Fatalf("SyncAll = %v", raw)
	}
}
