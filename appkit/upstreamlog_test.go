package appkit_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
	"github.com/appkitgo/appkit/internal/calllog"
)

// The calls a handler makes with appkit/upstream are reported in the
// answer's header only when the host asks, for a success, an error answer
// and a panic alike; the bodies only when asked too.
func TestUpstreamCallsReported(t *testing.T) {
	t.Parallel()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/denied" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name":"one"}`)
	}))
	defer api.Close()
	client := &upstream.Client{BaseURL: api.URL, HTTPClient: api.Client()}
	type item struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	var seen = make(chan *calllog.Collector, 10)
	data := appkit.All(func(ctx context.Context, r *appkit.DataRequest) ([]item, error) {
		seen <- calllog.From(ctx)
		s := client.For(r.Account)
		if _, err := upstream.Send[map[string]string, map[string]any](ctx, s, http.MethodPost, "/things", map[string]string{"q": "x"}); err != nil {
			return nil, err
		}
		switch r.RequestedType {
		case "denied":
			_, err := upstream.Get[map[string]any](ctx, s, "/denied", nil)
			return nil, err
		case "panics":
			panic("after a call")
		}
		return []item{{ID: "1", Name: "one"}}, nil
	})
	log := zerolog.Nop()
	app := &appkit.App{ID: "u", Name: "U", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &log,
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "ok", Name: "OK", Data: data}, {ID: "denied", Name: "D", Data: data},
			{ID: "panics", Name: "P", Data: data}}}}
	h, err := app.Handler()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		typ, ask string
		status   int
		calls    []int // the statuses of the calls reported; nil: no header
		bodies   bool
	}{
		{"ok", "", 200, nil, false},
		{"ok", "later", 200, nil, false},
		{"ok", "calls", 200, []int{200}, false},
		{"ok", "calls, bodies", 200, []int{200}, true},
		{"denied", "calls", 401, []int{200, 401}, false},
		{"panics", "calls", 500, []int{200}, false},
	} {
		name := tc.typ + "/" + tc.ask
		body := fmt.Sprintf(`{"requestedType":%q,"types":[%q],"account":{}}`, tc.typ, tc.typ)
		req := httptest.NewRequest(http.MethodPost, "/api/v1/synchronizer/data", strings.NewReader(body))
		if tc.ask != "" {
			req.Header.Set(calllog.RequestHeader, tc.ask)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Fatalf("%s: status %d, want %d: %s", name, rec.Code, tc.status, rec.Body)
		}
		if col := <-seen; (col != nil) != (tc.calls != nil) {
			t.Errorf("%s: collector %v in the handler's context", name, col)
		}
		vs := rec.Header().Values(calllog.AnswerHeader)
		if tc.calls == nil {
			if len(vs) != 0 {
				t.Errorf("%s: reported %q unasked", name, vs)
			}
			continue
		}
		if len(vs) != 1 {
			t.Fatalf("%s: %d headers", name, len(vs))
		}
		calls, dropped, err := calllog.Decode(vs[0])
		if err != nil || dropped != 0 || len(calls) != len(tc.calls) {
			t.Fatalf("%s: %v, %d dropped: %+v", name, err, dropped, calls)
		}
		for i, c := range calls {
			if c.Status != tc.calls[i] || !strings.HasPrefix(c.URL, api.URL+"/") {
				t.Errorf("%s: call %d is %+v", name, i, c)
			}
		}
		if got := calls[0].Request == `{"q":"x"}` && calls[0].Response == `{"name":"one"}`; got != tc.bodies {
			t.Errorf("%s: bodies %q, %q; want them %v", name, calls[0].Request, calls[0].Response, tc.bodies)
		}
	}
}
