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

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/protocol"
)

// cursor is the typed page cursor of the test app.
type cursor struct {
	Offset int `json:"offset"`
}

// seen records what handlers received, for assertions.
type seen struct {
	data     *appkit.DataRequest
	cursor   *cursor
	datalist *appkit.DatalistRequest
	action   *appkit.ActionRequest
	hook     *appkit.WebhookRequest
}

// newTestApp declares an app that uses every feature of the SDK.
func newTestApp(s *seen, logger *zerolog.Logger) *appkit.App {
	const total = 5
	return &appkit.App{
		ID: "test", Type: "custom", Name: "Test app", Version: "1.2.3", Description: "Exercises the SDK", Website: "https://example.com",
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
					Fields: []appkit.Field{appkit.ID("ID"), appkit.Text("name", "Name"), appkit.Text("url", "Link").As(appkit.SubURL)},
					Data: appkit.Pages(func(ctx context.Context, r *appkit.DataRequest, c *struct{}) (*appkit.Page[struct{}], error) {
						return &appkit.Page[struct{}]{Items: []any{appkit.Item{"id": "p1", "name": "P1"}}}, nil
					}),
				},
				{ID: "task", Name: "Tasks", Delta: true,
					Fields: []appkit.Field{
						appkit.ID("ID"), appkit.Text("name", "Title"),
						appkit.Integer("points", "Points"), appkit.Day("due", "Due").Describe("Due day"),
						appkit.Text("body", "Body").As(appkit.SubMarkdown),
						appkit.Ref("project", "Project", "project", "Tasks"),
					},
					Data: appkit.Pages(func(ctx context.Context, r *appkit.DataRequest, c *cursor) (*appkit.Page[cursor], error) {
						s.data, s.cursor = r, c
						if r.Filter.String("mode") == "fail" {
							return nil, appkit.TryLater(errors.New("upstream said 429"))
						}
						if r.Filter.String("mode") == "panic" {
							panic("boom: secret internals")
						}
						off := 0
						if c != nil {
							off = c.Offset
						}
						p := &appkit.Page[cursor]{}
						if !r.LastSynchronizedAt.IsZero() {
							p.Sync = appkit.Delta
						}
						for i := off; i < off+2 && i < total; i++ {
							p.Items = append(p.Items, appkit.Item{"id": fmt.Sprint(i), "name": fmt.Sprintf("Task %d", i), "project": "p1"})
						}
						if p.Sync == appkit.Delta {
							p.Items = append(p.Items, appkit.Removed("gone"))
						}
						if off+2 < total {
							p.Next = &cursor{Offset: off + 2}
						}
						return p, nil
					}),
				},
			},
			Filters: []appkit.Filter{
				{ID: "mode", Title: "Mode", Type: appkit.FieldText, Optional: true},
				{ID: "min", Title: "Min points", Type: appkit.FieldNumber, Optional: true},
				{ID: "open", Title: "Open only", Type: appkit.FieldBool, Optional: true},
				{ID: "since", Title: "Since", Type: appkit.FieldDatebox, Optional: true},
				{ID: "due", Title: "Due", Type: appkit.FieldDate, Optional: true},
				{ID: "team", Title: "Team", Type: appkit.FieldList, Datalist: true},
				{ID: "projects", Title: "Projects", Type: appkit.FieldMultiDropdown, Datalist: true, DatalistRequires: []string{"team"}, Optional: true},
			},
			Datalist: func(ctx context.Context, r *appkit.DatalistRequest) ([]appkit.Option, error) {
				s.datalist = r
				if r.Field == "team" {
					return []appkit.Option{{Title: "Core", Value: "core"}, {Title: "Web", Value: "web"}}, nil
				}
				return []appkit.Option{{Title: "Project of " + r.DependsOn.String("team"), Value: 7}}, nil
			},
			ValidateFilter: func(ctx context.Context, r *appkit.Request) error {
				if r.Filter.String("mode") == "bad" {
					return errors.New("mode bad is not allowed")
				}
				return nil
			},
			Webhooks: &appkit.Webhooks{
				Install: func(ctx context.Context, r *appkit.WebhookRequest) (*protocol.Webhook, error) {
					s.hook = r
					if r.Webhook != nil {
						return r.Webhook, nil
					}
					return &protocol.Webhook{ID: "wh1", Events: []string{"task.updated"}}, nil
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
				Transform: func(ctx context.Context, ev *appkit.WebhookEvent) (map[string][]any, error) {
					var p struct{ ID string }
					if err := json.Unmarshal(ev.Payload, &p); err != nil {
						return nil, appkit.BadRequest("payload: %v", err)
					}
					return map[string][]any{"task": {appkit.Item{"id": p.ID, "name": "changed"}, appkit.Removed("old")}}, nil
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
			Args: []appkit.Arg{{ID: "text", Name: "Text", Type: appkit.ArgTextArea, TextTemplate: true}, {ID: "to", Name: "To", Type: appkit.ArgText}},
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

func handler(t testing.TB, app *appkit.App) http.Handler {
	t.Helper()
	h, err := app.Handler()
	if err != nil {
		t.Fatalf("Handler: %v", err)
	}
	return h
}

func quietLogger() *zerolog.Logger {
	l := zerolog.Nop()
	return &l
}
