package appkit_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

func TestServeShutsDownGracefully(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()

	release := make(chan struct{})
	started := make(chan struct{})
	app := &appkit.App{ID: "slow", Name: "slow", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: quietLogger(),
		Actions: []appkit.Action{{ID: "wait", Name: "Wait", Run: func(ctx context.Context, r *appkit.ActionRequest) error {
			close(started)
			<-release
			return nil
		}}}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- appkit.ServeListener(ctx, ln, app) }()

	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		// The listener is open: the request waits in its queue until the
		// server accepts it.
		resp, err := http.Post("http://"+addr+"/api/v1/automations/action/execute", "application/json",
			strings.NewReader(`{"action":{"action":"wait"}}`))
		if err != nil {
			answered <- answer{err: err}
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- answer{resp.StatusCode, strings.TrimSpace(string(body)), nil}
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("ServeListener returned %v before serving", err)
	}
	cancel() // shutdown begins while the request is in flight
	select {
	case err := <-done:
		t.Fatalf("ServeListener returned %v before the request in flight finished", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	a := <-answered
	if a.err != nil || a.status != 200 || a.body != "{}" {
		t.Fatalf("in-flight answer = %+v", a)
	}
	if err := <-done; err != nil {
		t.Fatalf("ServeListener = %v, want nil after graceful shutdown", err)
	}
	if _, err := http.Get("http://" + addr + "/"); err == nil {
		t.Fatal("the listener still accepts after shutdown")
	}
}

// Serve listens on the server's address and gives the server safe
// timeouts where it has none.
func TestServeSetsTimeouts(t *testing.T) {
	t.Parallel()
	app := &appkit.App{ID: "a", Name: "a", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: quietLogger(),
		Actions: []appkit.Action{{ID: "x", Name: "X", Run: noRun}}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv := &http.Server{Addr: "127.0.0.1:0", WriteTimeout: time.Minute}
	if err := appkit.Serve(ctx, srv, app); err != nil {
		t.Fatalf("Serve = %v", err)
	}
	if srv.ReadHeaderTimeout != 10*time.Second || srv.ReadTimeout != time.Minute || srv.WriteTimeout != time.Minute || srv.IdleTimeout != 2*time.Minute || srv.MaxHeaderBytes != 64<<10 {
		t.Errorf("timeouts: %+v", srv)
	}
	if err := appkit.Serve(context.Background(), &http.Server{Addr: "127.0.0.1:-1"}, app); err == nil || !strings.Contains(err.Error(), "listen") {
		t.Errorf("Serve on a bad address = %v", err)
	}
}

func TestServeRefusesInvalidApp(t *testing.T) {
	t.Parallel()
	err := appkit.Serve(context.Background(), &http.Server{Addr: "127.0.0.1:0"}, &appkit.App{})
	if err == nil || !strings.Contains(err.Error(), "no authentication") {
		t.Fatalf("Serve(invalid) = %v", err)
	}
}

func TestComputedSchema(t *testing.T) {
	t.Parallel()
	extra := appkit.TextFilter("extra", "Extra field").Optional()
	app := &appkit.App{ID: "dyn", Name: "dyn", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: quietLogger(),
		Sync: &appkit.Sync{
			Filters: []appkit.Filter{extra},
			Types: []appkit.Type{{ID: "row", Name: "Rows",
				FieldsFunc: func(ctx context.Context, r *appkit.SchemaRequest) ([]appkit.Field, error) {
					fields := []appkit.Field{appkit.ID(), appkit.Text("name", "Name")}
					switch x, _ := extra.Get(r.Filter); x {
					case "":
					case "broken":
						return []appkit.Field{appkit.Text("name", "Name")}, nil
					case "down":
						return nil, appkit.TryLater(errors.New("metadata service down"))
					default:
						fields = append(fields, appkit.Text(x, strings.ToUpper(x)).At(3))
					}
					return fields, nil
				},
				Data: appkit.Pages(func(context.Context, *appkit.DataRequest, *appkit.NoCursor) (*appkit.Page[appkit.Item, appkit.NoCursor], error) {
					return nil, nil
				}),
			}}}}
	h := testapp.Handler(t, app)
	r := call(t, h, "POST", "/api/v1/synchronizer/schema", `{"types":["row"],"filter":{"extra":"colour"}}`)
	row := r.body["row"].(map[string]any)
	if r.status != 200 || row["colour"].(map[string]any)["name"] != "COLOUR" || row["colour"].(map[string]any)["order"] != 3.0 {
		t.Fatalf("schema = %d %s", r.status, r.raw)
	}
	if r := call(t, h, "POST", "/api/v1/synchronizer/schema", `{"types":["row"],"filter":{"extra":"broken"}}`); r.status != 500 ||
		!strings.Contains(r.body["message"].(string), `has no "id" field`) {
		t.Fatalf("broken computed schema = %d %s", r.status, r.raw)
	}
	if r := call(t, h, "POST", "/api/v1/synchronizer/schema", `{"types":["row"],"filter":{"extra":"down"}}`); r.status != 503 || r.body["tryLater"] != true {
		t.Fatalf("computed schema try later = %d %s", r.status, r.raw)
	}
	// An empty page still answers items [] and a pagination object.
	if r := call(t, h, "POST", "/api/v1/synchronizer/data", `{"requestedType":"row"}`); r.status != 200 || string(r.raw) != `{"items":[],"pagination":{"hasNext":false},"synchronizationType":"full"}`+"\n" {
		t.Fatalf("empty page = %d %s", r.status, r.raw)
	}
}

func TestConcurrentRequests(t *testing.T) {
	t.Parallel()
	var s seen
	app := newTestApp(&s, quietLogger())
	app.Sync.Types[1].Data = appkit.Pages(func(ctx context.Context, r *appkit.DataRequest, c *cursor) (*appkit.Page[task, cursor], error) {
		mode, _ := s.f.mode.Get(r.Filter)
		return &appkit.Page[task, cursor]{Items: []task{{ID: mode, Name: "x"}}}, nil
	})
	h := testapp.Handler(t, app)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				mode := string(rune('a' + i))
				r := call(t, h, "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","filter":{"mode":"`+mode+`"}}`)
				if r.status != 200 || r.body["items"].([]any)[0].(map[string]any)["id"] != mode {
					t.Errorf("got %d %s for mode %s", r.status, r.raw, mode)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestListenAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		port    string // "unset": PORT not set at all
		want    string
		wantErr string
	}{
		{"unset", ":8080", ""},
		{"", ":8080", ""},
		{"0", ":0", ""},
		{"9001", ":9001", ""},
		{"65535", ":65535", ""},
		{"+80", ":80", ""},
		{"0080", ":80", ""},
		{"-1", "", `PORT: want a port number 0..65535, got "-1"`},
		{"65536", "", `PORT: want a port number 0..65535, got "65536"`},
		{"http", "", `PORT: want a port number 0..65535, got "http"`},
		{" 80", "", `PORT: want a port number 0..65535, got " 80"`},
		{"80.5", "", `PORT: want a port number 0..65535, got "80.5"`},
		{"127.0.0.1:80", "", `PORT: want a port number 0..65535, got "127.0.0.1:80"`},
	} {
		getenv := func(key string) string {
			if key == "PORT" && tc.port != "unset" {
				return tc.port
			}
			return ""
		}
		addr, err := appkit.ListenAddr(getenv)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("PORT=%q: got %q, %v; want the error %s", tc.port, addr, err, tc.wantErr)
			}
			continue
		}
		if err != nil || addr != tc.want {
			t.Errorf("PORT=%q: got %q, %v; want %q", tc.port, addr, err, tc.want)
		}
	}
}
