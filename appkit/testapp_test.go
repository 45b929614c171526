package appkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/daterange"
)

// cursor is the typed page cursor of the test app.
type cursor struct {
	Offset int `json:"offset"`
}

// task is the test app's struct type.
type task struct {
	ID      string     `appkit:"id"`
	Name    string     `appkit:"name,name=Title"`
	Points  int        `appkit:"points"`
	Due     appkit.Day `appkit:"due,desc=Due day"`
	Body    string     `appkit:"body,md"`
	Project string     `appkit:"project,ref=project,inverse=Tasks"`
	Done    bool       `appkit:"done"`
	Updated time.Time  `appkit:"updated,omitempty"`
}

// testFilters are the test app's filter handles.
type testFilters struct {
	mode     *appkit.FilterOf[string]
	min      *appkit.FilterOf[float64]
	open     *appkit.FilterOf[bool]
	since    *appkit.FilterOf[appkit.Day]
	due      *appkit.FilterOf[daterange.Range]
	team     *appkit.FilterOf[string]
	projects *appkit.FilterOf[[]string]
}

// seen records what handlers received, for assertions.
type seen struct {
	data     *appkit.DataRequest
	cursor   *cursor
	datalist *appkit.DatalistRequest
	action   *appkit.ActionRequest
	hook     *appkit.WebhookRequest
	f        testFilters
}

// newTestApp declares an app that uses every feature of the SDK.
func newTestApp(s *seen, logger *zerolog.Logger) *appkit.App {
	const total = 5
	f := &s.f
	f.mode = appkit.TextFilter("mode", "Mode").Optional()
	f.min = appkit.NumberFilter("min", "Min points").Optional()
	f.open = appkit.BoolFilter("open", "Open only").Optional()
	f.since = appkit.DayFilter("since", "Since").Optional()
	f.due = appkit.DateRangeFilter("due", "Due").Optional()
	f.team = appkit.ListFilter("team", "Team", func(ctx context.Context, r *appkit.DatalistRequest) ([]appkit.Option, error) {
		s.datalist = r
		return []appkit.Option{{Title: "Core", Value: "core"}, {Title: "Web", Value: "web"}}, nil
	})
	f.projects = appkit.MultiDropdownFilter("projects", "Projects", func(ctx context.Context, r *appkit.DatalistRequest) ([]appkit.Option, error) {
		s.datalist = r
		team, _ := f.team.Get(r.DependsOn)
		return []appkit.Option{{Title: "Project of " + team, Value: 7}}, nil
	}).Requires(f.team).Optional()
	return &appkit.App{
		ID: "test", Name: "Test app", Version: "1.2.3", Description: "Exercises the SDK", Website: "https://example.com",
		Logger: logger,
		Auth: []appkit.Auth{
			appkit.TokenAuth("API token", "Your token", func(ctx context.Context, token string) (string, error) {
				switch token {
				case "good":
					return "Good account", nil
				case "busy":
					return "", appkit.TryLater(errors.New("upstream rate limit"))
				}
				return "", fmt.Errorf("token %s is not valid", token)
			}),
			{
				ID: "custom", Name: "Custom",
				Fields: []appkit.AuthField{
					{ID: "server", Name: "Server", Type: appkit.FieldText, Description: "Host"},
					{ID: "help", Name: "Help", Type: appkit.FieldLink, Description: "Docs", Value: "https://example.com/docs"},
					{ID: "query", Name: "Query", Type: appkit.FieldHighlightText, Description: "SQL", EditorMode: appkit.EditorSQL, Optional: true},
				},
				Validate: func(ctx context.Context, a appkit.Account) (*appkit.Validation, error) {
					return &appkit.Validation{Name: a.String("server"), Fields: map[string]any{"account_id": "42"}}, nil
				},
			},
		},
		Sync: &appkit.Sync{
			Types: []appkit.Type{
				{ID: "project", Name: "Projects", Default: true,
					Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "Name"), appkit.Text("url", "Link").As(appkit.SubURL)},
					Data: appkit.All(func(ctx context.Context, r *appkit.DataRequest) ([]appkit.Item, error) {
						return []appkit.Item{{"id": "p1", "name": "P1"}}, nil
					}),
				},
				{ID: "task", Name: "Tasks", Delta: true,
					Data: appkit.Pages(func(ctx context.Context, r *appkit.DataRequest, c *cursor) (*appkit.Page[task, cursor], error) {
						s.data, s.cursor = r, c
						mode, _ := f.mode.Get(r.Filter)
						if mode == "fail" {
							return nil, appkit.TryLater(errors.New("upstream said 429"))
						}
						if mode == "panic" {
							panic("boom: secret internals")
						}
						off := 0
						if c != nil {
							off = c.Offset
						}
						p := &appkit.Page[task, cursor]{Delta: !r.LastSynchronizedAt.IsZero()}
						for i := off; i < off+2 && i < total; i++ {
							p.Items = append(p.Items, task{ID: fmt.Sprint(i), Name: fmt.Sprintf("Task %d", i), Project: "p1", Points: i, Due: appkit.Day{Year: 2024, Month: 2, Day: 29}})
						}
						if p.Delta {
							p.Removed = []string{"gone"}
						}
						if off+2 < total {
							p.Next = &cursor{Offset: off + 2}
						}
						return p, nil
					}),
				},
			},
			Filters: []appkit.Filter{f.mode, f.min, f.open, f.since, f.due, f.team, f.projects},
			ValidateFilter: func(ctx context.Context, r *appkit.Request) error {
				if mode, _ := f.mode.Get(r.Filter); mode == "bad" {
					return errors.New("mode bad is not allowed")
				}
				return nil
			},
			Webhooks: &appkit.Webhooks{
				Install: func(ctx context.Context, r *appkit.WebhookRequest) (*appkit.Webhook, error) {
					s.hook = r
					if r.Webhook != nil {
						return r.Webhook, nil
					}
					return &appkit.Webhook{ID: "wh1", Events: []string{"task.updated"}}, nil
				},
				Delete: func(ctx context.Context, r *appkit.WebhookRequest) error {
					if r.Webhook.ID != "wh1" {
						return appkit.NewError(http.StatusNotFound, "no webhook %s", r.Webhook.ID)
					}
					return nil
				},
				Verify: func(ctx context.Context, ev *appkit.WebhookEvent) (string, error) {
					if ev.Params["signature"] != "ok" {
						return "", errors.New("bad signature")
					}
					return "wh1", nil
				},
				Transform: func(ctx context.Context, ev *appkit.WebhookEvent) (appkit.Changes, error) {
					var p struct{ ID string }
					if err := json.Unmarshal(ev.Payload, &p); err != nil {
						return nil, appkit.BadRequest("payload: %v", err)
					}
					return appkit.Changes{"task": {Items: []any{task{ID: p.ID, Name: "changed"}}, Removed: []string{"old"}}}, nil
				},
			},
			Resource: func(ctx context.Context, r *appkit.ResourceRequest) (*appkit.Resource, error) {
				if r.Params["file"] != "a.txt" {
					return nil, appkit.NewError(http.StatusNotFound, "no such file")
				}
				return &appkit.Resource{ContentType: "text/plain", Size: 5, Name: "a.txt", Body: io.NopCloser(strings.NewReader("hello"))}, nil
			},
		},
		Actions: []appkit.Action{{
			ID: "notify", Name: "Notify", Description: "Sends a message",
			Args: []appkit.Arg{{ID: "text", Name: "Text", Type: appkit.ArgTextArea, TextTemplate: true, Optional: true}, {ID: "to", Name: "To", Type: appkit.ArgText, Optional: true}},
			Run: func(ctx context.Context, r *appkit.ActionRequest) error {
				s.action = r
				if r.Args.String("to") == "" {
					return appkit.BadRequest("to is required")
				}
				return nil
			},
		}},
		Logo: appkit.LogoSVG([]byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)),
	}
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func call(t testing.TB, h http.Handler, method, path, body string) response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	out := response{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && len(bytes.TrimSpace(out.raw)) > 0 {
		if err := json.Unmarshal(out.raw, &out.body); err != nil && out.raw[0] == '{' {
			t.Fatalf("%s %s: answer is not JSON: %v\n%s", method, path, err, out.raw)
		}
	}
	return out
}

func quietLogger() *zerolog.Logger {
	l := zerolog.Nop()
	return &l
}
