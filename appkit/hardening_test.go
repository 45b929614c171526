package appkit_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

// The service may send shapes the protocol does not pin down; none of them is
// refused.
func TestLenientRequestShapes(t *testing.T) {
	t.Parallel()
	var s seen
	h := testapp.Handler(t, newTestApp(&s, quietLogger()))
	tests := []struct{ name, body string }{
		{"numeric version and operationId", `{"requestedType":"task","version":1,"operationId":12345}`},
		{"empty array filter and account", `{"requestedType":"task","filter":[],"account":[]}`},
		{"null everything", `{"requestedType":"task","filter":null,"account":null,"types":null,"pagination":null,"lastSynchronizedAt":null}`},
		{"empty strings as unset filters", `{"requestedType":"task","filter":{"open":"","due":"","since":"","min":"","team":""}}`},
		{"boolean as a string", `{"requestedType":"task","filter":{"open":"true"}}`},
		{"range with extra keys and one side", `{"requestedType":"task","filter":{"due":{"_max":"2017-06-13T23:59:59.999","statement":"to 13 june 2017"}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r := call(t, h, "POST", "/api/v1/synchronizer/data", tc.body); r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.raw)
			}
		})
	}
	call(t, h, "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","version":2.5,"operationId":7,"filter":{"open":"true","due":{"_max":"2017-06-13T23:59:59.999","x":1}}}`)
	if s.data.Version != "2.5" || s.data.OperationID != "7" || !must(s.f.open.Get(s.data.Filter)) {
		t.Errorf("request = %+v", s.data)
	}
	if due, ok := s.f.due.Get(s.data.Filter); !ok || due.Min != nil || due.Max == nil || due.Max.Format(time.RFC3339Nano) != "2017-06-13T23:59:59.999Z" {
		t.Errorf("due = %v %v", due, ok)
	}
	if r := call(t, h, "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","filter":{"due":{"_min":"2017-06-14T00:00:00","_max":"2017-06-13T00:00:00"}}}`); r.status != 400 {
		t.Errorf("inverted range = %d %s", r.status, r.raw)
	}
	if r := call(t, h, "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","version":{"a":1}}`); r.status != 400 || !strings.Contains(r.body["message"].(string), "version") {
		t.Errorf("object version = %d %s", r.status, r.raw)
	}
}

// Handlers may return items they share between requests: appkit adds
// __syncAction to copies, never to the handler's maps.
func TestDeltaDoesNotMutateSharedItems(t *testing.T) {
	t.Parallel()
	shared := []appkit.Item{{"id": "1", "name": "One"}, {"id": "2", "name": "Two"}}
	app := &appkit.App{ID: "shared", Name: "shared", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: quietLogger(),
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "t", Name: "T", Delta: true,
			Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "Name")},
			Data: appkit.Pages(func(context.Context, *appkit.DataRequest, *cursor) (*appkit.Page[appkit.Item, cursor], error) {
				return &appkit.Page[appkit.Item, cursor]{Items: shared, Delta: true}, nil
			}),
		}}}}
	h := testapp.Handler(t, app)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				r := call(t, h, "POST", "/api/v1/synchronizer/data", `{"requestedType":"t"}`)
				if items := r.body["items"].([]any); items[1].(map[string]any)["__syncAction"] != "SET" {
					t.Errorf("items = %v", items)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, it := range shared {
		if _, has := it["__syncAction"]; has {
			t.Fatalf("the handler's item was changed: %v", it)
		}
	}
}

// A resource of unknown size (Size 0) is streamed whole over a real server.
func TestResourceOfUnknownSizeIsStreamed(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("file content ", 1000)
	closed := make(chan bool, 2)
	app := &appkit.App{ID: "files", Name: "files", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: quietLogger(),
		Sync: &appkit.Sync{
			Types: []appkit.Type{{ID: "t", Name: "T", Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "Name")},
				Data: noItems[appkit.Item]()}},
			Resource: func(ctx context.Context, r *appkit.ResourceRequest) (*appkit.Resource, error) {
				res := &appkit.Resource{ContentType: "text/plain", Body: closeRecorder{strings.NewReader(body), closed}}
				if r.Params["fail"] == true {
					return res, errors.New("half-opened file failed")
				}
				return res, nil
			},
		}}
	srv := httptest.NewServer(testapp.Handler(t, app))
	defer srv.Close()
	resp, got := fetch(t, "POST", srv.URL+"/api/v1/synchronizer/resource", `{"params":{}}`)
	if resp.StatusCode != 200 || string(got) != body {
		t.Fatalf("resource = %d, %d bytes, want %d", resp.StatusCode, len(got), len(body))
	}
	resp, _ = fetch(t, "POST", srv.URL+"/api/v1/synchronizer/resource", `{"params":{"fail":true}}`)
	if resp.StatusCode != 500 {
		t.Fatalf("failing resource = %d", resp.StatusCode)
	}
	for i := 0; i < 2; i++ {
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatalf("resource body %d was not closed", i+1)
		}
	}
}

type closeRecorder struct {
	io.Reader
	closed chan bool
}

func (c closeRecorder) Close() error { c.closed <- true; return nil }

// Error bodies never carry the account's secrets, and a failed outgoing call
// is named by its host, not its URL.
func TestErrorBodiesHideSecrets(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers in time: the client's timeout ends the call
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer upstream.Close()
	defer close(release)
	app := &appkit.App{ID: "s", Name: "s", Version: "1", Logger: quietLogger(),
		Auth: []appkit.Auth{appkit.TokenAuth("Token", "API token", func(ctx context.Context, tok string) (string, error) {
			return "", fmt.Errorf("token %s refused", tok)
		})},
		Actions: []appkit.Action{{ID: "call", Name: "Call", Run: func(ctx context.Context, r *appkit.ActionRequest) error {
			c := &http.Client{Timeout: 20 * time.Millisecond}
			resp, err := c.Get(upstream.URL + "/hooks/SECRETPATH?key=" + r.Account.String("token"))
			if err != nil {
				return err
			}
			resp.Body.Close()
			return nil
		}}}}
	h := testapp.Handler(t, app)
	r := call(t, h, "POST", "/validate", `{"id":"token","fields":{"token":"SECRETVALUE"}}`)
	if r.status != 401 || strings.Contains(string(r.raw), "SECRETVALUE") || !strings.Contains(r.body["message"].(string), "***") {
		t.Fatalf("validate = %d %s", r.status, r.raw)
	}
	r = call(t, h, "POST", "/api/v1/automations/action/execute", `{"action":{"action":"call"},"account":{"token":"SECRETVALUE"}}`)
	if r.status != 503 || r.body["tryLater"] != true {
		t.Fatalf("timed-out call = %d %s, want 503 tryLater", r.status, r.raw)
	}
	if strings.Contains(string(r.raw), "SECRETPATH") || strings.Contains(string(r.raw), "SECRETVALUE") || !strings.Contains(string(r.raw), "127.0.0.1") {
		t.Fatalf("timed-out call answer leaks the URL: %s", r.raw)
	}
}

// HEAD answers what GET answers, without the body.
func TestHeadRequests(t *testing.T) {
	t.Parallel()
	var s seen
	srv := httptest.NewServer(testapp.Handler(t, newTestApp(&s, quietLogger())))
	defer srv.Close()
	for _, p := range []string{"/", "/logo"} {
		get, body := fetch(t, "GET", srv.URL+p, "")
		head, headBody := fetch(t, "HEAD", srv.URL+p, "")
		if head.StatusCode != get.StatusCode || head.StatusCode != 200 || len(headBody) != 0 || len(body) == 0 {
			t.Errorf("HEAD %s = %d with %d body bytes, GET = %d with %d", p, head.StatusCode, len(headBody), get.StatusCode, len(body))
		}
		for _, h := range []string{"Content-Type", "Cache-Control"} {
			if head.Header.Get(h) != get.Header.Get(h) {
				t.Errorf("HEAD %s %s = %q, GET's %q", p, h, head.Header.Get(h), get.Header.Get(h))
			}
		}
		if cl := head.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
			t.Errorf("HEAD %s Content-Length = %s, GET's body has %d bytes", p, cl, len(body))
		}
	}
}

// Secrets are masked as whole values: a value containing a secret of at
// least 4 characters is hidden whole, a shorter secret only where it is a
// whole quoted value (as when it is echoed as a type id).
func TestSecretsMaskedAsWholeValues(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := zerolog.New(&buf)
	for _, tc := range []struct {
		name, token, body string
		hidden            []string
		shown             []string
	}{
		{"substring of a longer value", "demo", `{"requestedType":"demo-SECRET"}`, []string{"demo", "SECRET"}, []string{"***"}},
		{"the 4-character threshold", "abcd", `{"requestedType":"xabcdx"}`, []string{"abcd"}, nil},
		{"a 3-character secret echoed whole", "abc", `{"requestedType":"abc"}`, []string{`"abc"`}, []string{`"***"`}},
		{"a 3-character secret inside a word is left", "abc", `{"requestedType":"xabcx"}`, nil, []string{"xabcx"}},
		{"a secret with spaces", "my secret pass", `{"requestedType":"say my secret pass now"}`, []string{"secret pass"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf.Reset()
			var s seen
			app := newTestApp(&s, &logger)
			h := testapp.Handler(t, app)
			body := strings.TrimSuffix(tc.body, "}") + `,"account":{"token":"` + tc.token + `"}}`
			r := call(t, h, "POST", "/api/v1/synchronizer/data", body)
			if r.status != 400 {
				t.Fatalf("status = %d %s", r.status, r.raw)
			}
			for _, where := range []string{string(r.raw), buf.String()} {
				where = strings.ReplaceAll(where, `\"`, `"`) // read JSON strings as text
				for _, h := range tc.hidden {
					if strings.Contains(where, h) {
						t.Errorf("%q shows %q", where, h)
					}
				}
				for _, sh := range tc.shown {
					if !strings.Contains(where, sh) {
						t.Errorf("%q lacks %q", where, sh)
					}
				}
			}
		})
	}
}

// An upstream that refuses the connection or whose name does not resolve
// says nothing about the account: 503 tryLater.
func TestUnreachableUpstreamIsTemporary(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	for _, tc := range []struct{ name, url string }{
		{"connection refused", closed + "/x"},
		{"name not found", "http://no-such-host.invalid/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := &appkit.App{ID: "u", Name: "u", Version: "1", Logger: quietLogger(), Auth: []appkit.Auth{appkit.NoAuth()},
				Actions: []appkit.Action{{ID: "call", Name: "Call", Run: func(ctx context.Context, _ *appkit.ActionRequest) error {
					req, _ := http.NewRequestWithContext(ctx, "GET", tc.url, nil)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						return err
					}
					resp.Body.Close()
					return nil
				}}}}
			r := call(t, testapp.Handler(t, app), "POST", "/api/v1/automations/action/execute", `{"action":{"action":"call"}}`)
			if r.status != 503 || r.body["tryLater"] != true || !strings.Contains(r.body["message"].(string), "unreachable") {
				t.Fatalf("got %d %s, want 503 tryLater", r.status, r.raw)
			}
		})
	}
}

// A handler's page that breaks the delta rules is never sent: 500 naming
// the mistake, and the log says it.
func TestHandlerMistakesAreRefused(t *testing.T) {
	t.Parallel()
	type thing struct {
		ID   string `appkit:"id"`
		Name string `appkit:"name"`
	}
	var buf bytes.Buffer
	logger := zerolog.New(&buf)
	mk := func(delta bool, page appkit.PageFunc[appkit.Item, cursor]) http.Handler {
		return testapp.Handler(t, &appkit.App{ID: "m", Name: "m", Version: "1", Logger: &logger, Auth: []appkit.Auth{appkit.NoAuth()},
			Sync: &appkit.Sync{Types: []appkit.Type{{ID: "t", Name: "T", Delta: delta, Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "N")}, Data: appkit.Pages(page)}},
				Webhooks: &appkit.Webhooks{
					Install: func(context.Context, *appkit.WebhookRequest) (*appkit.Webhook, error) { return nil, nil },
					Delete:  func(context.Context, *appkit.WebhookRequest) error { return nil },
					Verify:  func(context.Context, *appkit.WebhookEvent) (string, error) { return "", nil },
					Transform: func(_ context.Context, ev *appkit.WebhookEvent) (appkit.Changes, error) {
						switch string(ev.Payload) {
						case `"removal"`:
							return appkit.Changes{"t": {Removed: []string{"1"}}}, nil
						case `"undeclared"`:
							return appkit.Changes{"u": {Items: []any{appkit.Item{"id": "1"}}}}, nil
						}
						return appkit.Changes{"t": {Items: []any{thing{ID: "1"}}}}, nil
					},
				}}})
	}
	for _, tc := range []struct {
		name  string
		delta bool
		page  appkit.PageFunc[appkit.Item, cursor]
		want  string
	}{
		{"delta page of a type without Delta", false, func(context.Context, *appkit.DataRequest, *cursor) (*appkit.Page[appkit.Item, cursor], error) {
			return &appkit.Page[appkit.Item, cursor]{Delta: true}, nil
		}, `type "t": the handler answered a delta page, but the type does not declare Delta`},
		{"removals in a full page", true, func(context.Context, *appkit.DataRequest, *cursor) (*appkit.Page[appkit.Item, cursor], error) {
			return &appkit.Page[appkit.Item, cursor]{Removed: []string{"1"}}, nil
		}, `type "t": the handler sent removals (Page.Removed) in a full page`},
		{"__syncAction in an item", true, func(context.Context, *appkit.DataRequest, *cursor) (*appkit.Page[appkit.Item, cursor], error) {
			return &appkit.Page[appkit.Item, cursor]{Delta: true, Items: []appkit.Item{{"id": "1", "__syncAction": "REMOVE"}}}, nil
		}, `an item carries __syncAction`},
		{"a nil item", true, func(context.Context, *appkit.DataRequest, *cursor) (*appkit.Page[appkit.Item, cursor], error) {
			return &appkit.Page[appkit.Item, cursor]{Items: []appkit.Item{{"id": "1"}, nil}}, nil
		}, `items[1] is nil`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf.Reset()
			r := call(t, mk(tc.delta, tc.page), "POST", "/api/v1/synchronizer/data", `{"requestedType":"t"}`)
			msg, _ := r.body["message"].(string)
			if r.status != 500 || !strings.HasPrefix(msg, "the app's handler broke the protocol: ") || !strings.Contains(msg, tc.want) {
				t.Fatalf("got %d %s, want 500 naming %q", r.status, r.raw, tc.want)
			}
			if !strings.Contains(buf.String(), strings.ReplaceAll(tc.want, `"`, `\"`)) {
				t.Fatalf("the log does not name the mistake:\n%s", buf.String())
			}
		})
	}
	h := mk(false, nil)
	for payload, want := range map[string]string{
		`"removal"`:    `removes items of type "t", which does not declare Delta`,
		`"undeclared"`: `changes of undeclared type "u"`,
		`"thing"`:      `items[0] is a appkit_test.thing, not an item of the type`,
	} {
		r := call(t, h, "POST", "/api/v1/synchronizer/webhooks/transform", `{"payload":`+payload+`}`)
		if r.status != 500 || !strings.Contains(r.body["message"].(string), want) {
			t.Errorf("transform %s = %d %s, want 500 naming %q", payload, r.status, r.raw, want)
		}
	}
}

// Items that break the schema are sent as they are; each kind of break is
// logged once per type and rule, not per item.
func TestViolationsLoggedOncePerTypeAndRule(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := zerolog.New(&buf)
	h := testapp.Handler(t, &appkit.App{ID: "v", Name: "v", Version: "1", Logger: &logger, Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "t", Name: "T", Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "N"), appkit.Integer("n", "N")},
			Data: appkit.All(func(context.Context, *appkit.DataRequest) ([]appkit.Item, error) {
				return []appkit.Item{{"id": "1", "n": 1.5, "x": 1}, {"id": "2", "n": 2.5, "y": 2}}, nil
			})}}}})
	for range 3 {
		r := call(t, h, "POST", "/api/v1/synchronizer/data", `{"requestedType":"t"}`)
		if r.status != 200 || !strings.Contains(string(r.raw), `"n":2.5,"y":2`) {
			t.Fatalf("got %d %s", r.status, r.raw)
		}
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if strings.Contains(l, "breaks the protocol") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || !strings.Contains(lines[0], `type \"t\", item \"1\", field \"n\": value shape: want an integer, got 1.5`) ||
		!strings.Contains(lines[1], `field \"x\": unknown key`) {
		t.Fatalf("violation lines:\n%s", strings.Join(lines, "\n"))
	}
}

// A Basic account's credentials are masked in their base64 spelling too:
// an upstream's error may echo the Authorization header it got.
func TestBasicCredentialsMaskedInBase64(t *testing.T) {
	t.Parallel()
	const user, pass = "alice", "s3cret-pass"
	header := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	app := &appkit.App{ID: "b", Name: "b", Version: "1", Logger: quietLogger(),
		Auth: []appkit.Auth{appkit.BasicAuth("Basic", func(context.Context, string, string) (string, error) { return "a", nil })},
		Actions: []appkit.Action{{ID: "call", Name: "Call", Run: func(context.Context, *appkit.ActionRequest) error {
			return fmt.Errorf("upstream refused the header %s", header)
		}}}}
	h := testapp.Handler(t, app)
	r := call(t, h, "POST", "/api/v1/automations/action/execute", `{"action":{"action":"call"},"account":{"auth":"basic","username":"alice","password":"s3cret-pass"}}`)
	if strings.Contains(string(r.raw), header[len("Basic "):]) || !strings.Contains(string(r.raw), "***") {
		t.Fatalf("answer = %d %s: the base64 credentials are readable", r.status, r.raw)
	}
}
