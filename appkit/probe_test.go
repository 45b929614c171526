package appkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
)

// A request of the conformance suite (X-Appkit-Probe) that is refused 4xx
// is logged at info level with its probe id, not as a warning; a 5xx stays
// an error; the id is sanitised and bounded.
func TestProbeRequestLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, probe, body string
		status            int
		level, logged     string
	}{
		{"refusal", "", `{`, 400, "warn", ""},
		{"probe refusal", "accounts.validate", `{`, 400, "info", "accounts.validate"},
		{"probe success", "sync", `{"requestedType":"t","types":["t"],"account":{}}`, 200, "info", "sync"},
		{"probe failure", "sync", `{"requestedType":"boom","types":["boom"],"account":{}}`, 500, "error", "sync"},
		{"sanitised", "a b\"c\x01é", `{`, 400, "info", "a_b_c___"},
		{"bounded", strings.Repeat("x", 100), `{`, 400, "info", strings.Repeat("x", 64)},
	} {
		var buf bytes.Buffer
		log := zerolog.New(&buf)
		type item struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		}
		data := appkit.All(func(_ context.Context, r *appkit.DataRequest) ([]item, error) {
			if r.RequestedType == "boom" {
				panic("boom")
			}
			return nil, nil
		})
		app := &appkit.App{ID: "p", Name: "P", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &log,
			Sync: &appkit.Sync{Types: []appkit.Type{{ID: "t", Name: "T", Data: data}, {ID: "boom", Name: "Boom", Data: data}}}}
		h, err := app.Handler()
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "/api/v1/synchronizer/data", strings.NewReader(tc.body))
		if tc.probe != "" {
			req.Header.Set("X-Appkit-Probe", tc.probe)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Fatalf("%s: status %d, want %d: %s", tc.name, rec.Code, tc.status, rec.Body)
		}
		var line map[string]any
		for l := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%s: %v: %s", tc.name, err, l)
			}
			if m["message"] == "request" {
				line = m
			}
		}
		if line == nil {
			t.Fatalf("%s: no request line in %s", tc.name, buf.String())
		}
		probe, has := line[appkit.LogKeyProbe]
		if line["level"] != tc.level || has != (tc.logged != "") || (has && probe != tc.logged) {
			t.Errorf("%s: level %v, probe %q; want %s, %q", tc.name, line["level"], probe, tc.level, tc.logged)
		}
	}
}
