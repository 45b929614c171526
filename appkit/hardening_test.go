package appkit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit"
)

// The service may send shapes the spec does not pin down; none of them is
// refused.
func TestLenientRequestShapes(t *testing.T) {
	var s seen
	h := handler(t, newTestApp(&s, quietLogger()))
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
	shared := []appkit.Item{{"id": "1", "name": "One"}, {"id": "2", "name": "Two"}}
	app := &appkit.App{ID: "shared", Name: "shared", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: quietLogger(),
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "t", Name: "T", Delta: true,
			Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "Name")},
			Data: appkit.Pages(func(context.Context, *appkit.DataRequest, *cursor) (*appkit.Page[appkit.Item, cursor], error) {
				return &appkit.Page[appkit.Item, cursor]{Items: shared, Delta: true}, nil
			}),
		}}}}
	h := handler(t, app)
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
	body := strings.Repeat("file content ", 1000)
	closed := make(chan bool, 2)
	app := &appkit.App{ID: "files", Name: "files", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: quietLogger(),
		Sync: &appkit.Sync{
			Types: []appkit.Type{{ID: "t", Name: "T", Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "Name")},
				Data: appkit.All(func(context.Context, *appkit.DataRequest) ([]appkit.Item, error) { return nil, nil })}},
			Resource: func(ctx context.Context, r *appkit.ResourceRequest) (*appkit.Resource, error) {
				res := &appkit.Resource{ContentType: "text/plain", Body: closeRecorder{strings.NewReader(body), closed}}
				if r.Params["fail"] == true {
					return res, errors.New("half-opened file failed")
				}
				return res, nil
			},
		}}
	srv := httptest.NewServer(handler(t, app))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/api/v1/synchronizer/resource", "application/json", strings.NewReader(`{"params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(got) != body {
		t.Fatalf("resource = %d, %d bytes, want %d", resp.StatusCode, len(got), len(body))
	}
	resp, err = http.Post(srv.URL+"/api/v1/synchronizer/resource", "application/json", strings.NewReader(`{"params":{"fail":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
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
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
	}))
	defer upstream.Close()
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
	h := handler(t, app)
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

func TestHeadRequests(t *testing.T) {
	var s seen
	srv := httptest.NewServer(handler(t, newTestApp(&s, quietLogger())))
	defer srv.Close()
	for _, p := range []string{"/", "/logo"} {
		resp, err := http.Head(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") == "" {
			t.Errorf("HEAD %s = %d %v", p, resp.StatusCode, resp.Header)
		}
	}
}
