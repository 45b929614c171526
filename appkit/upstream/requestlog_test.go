package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
)

// TestUpstreamCallsReachTheAppLog runs an app whose data handler calls an
// upstream through a Client without a Logger: with the app's logger at
// debug, each upstream call is logged with the request's id, and the
// account's token appears nowhere in the log.
func TestUpstreamCallsReachTheAppLog(t *testing.T) {
	t.Parallel()
	api, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `[{"id":1,"subject":"Cannot log in"}]`)
	})
	type ticket struct {
		ID      int    `json:"id"`
		Subject string `json:"subject"`
	}
	type Ticket struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	var buf bytes.Buffer
	log := zerolog.New(&buf).Level(zerolog.DebugLevel)
	app := &appkit.App{ID: "desk", Name: "Desk", Version: "1.0.0", Logger: &log,
		Auth: []appkit.Auth{appkit.TokenAuth("Token", "The desk's API token", func(context.Context, string) (string, error) { return "desk", nil })},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "ticket", Name: "Tickets",
			Data: upstream.Items(api, "/tickets", upstream.LinkHeader(), func(t ticket) (Ticket, error) {
				return Ticket{ID: fmt.Sprint(t.ID), Name: t.Subject}, nil
			})}}}}
	h, err := app.Handler()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"req-one", "req-two"} {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/synchronizer/data", strings.NewReader(
			`{"requestedType":"ticket","types":["ticket"],"account":{"token":"`+secret+`"},"pagination":null}`))
		req.Header.Set("X-Request-Id", id)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d: %s", id, rec.Code, rec.Body)
		}
	}
	if strings.Contains(buf.String(), secret) {
		t.Fatalf("the token is in the log:\n%s", buf.String())
	}
	calls := map[string]int{}
	for line := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if m["message"] != "upstream call" {
			continue
		}
		id, _ := m[appkit.LogKeyRequestID].(string)
		calls[id]++
		if m["level"] != "debug" || m[appkit.LogKeyMethod] != "GET" || m[appkit.LogKeyPath] != "/api/tickets" ||
			m[appkit.LogKeyStatus] != 200.0 || m[appkit.LogKeyDuration] == nil || m[appkit.LogKeyHost] == "" {
			t.Errorf("upstream line = %s", line)
		}
	}
	if calls["req-one"] != 1 || calls["req-two"] != 1 || len(calls) != 2 {
		t.Fatalf("upstream lines per request id = %v, want one each for req-one and req-two:\n%s", calls, buf.String())
	}
}
