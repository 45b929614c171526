package appkit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

// FuzzRequestDecoding sends arbitrary bodies to every POST endpoint: the app
// never panics, never answers 500 for bad input, and every failure is a JSON
// {message}.
func FuzzRequestDecoding(f *testing.F) {
	paths := []string{
		"/validate", "/api/v1/synchronizer/config", "/api/v1/synchronizer/schema", "/api/v1/synchronizer/data",
		"/api/v1/synchronizer/datalist", "/api/v1/synchronizer/filter/validate", "/api/v1/synchronizer/resource",
		"/api/v1/synchronizer/webhooks", "/api/v1/synchronizer/webhooks/verify", "/api/v1/synchronizer/webhooks/transform",
		"/api/v1/automations/action/execute",
	}
	for _, seed := range []string{
		`{"id":"token","fields":{"token":"good"}}`,
		`{"requestedType":"task","pagination":{"offset":2},"lastSynchronizedAt":"2024-01-01T00:00:00Z"}`,
		`{"requestedType":"task","filter":{"due":{"_min":"2017-01-01T00:00:00.000"},"projects":["a"],"min":1}}`,
		`{"field":"projects","dependsOn":{"team":"x"}}`,
		`{"types":["task"],"filter":{"team":"core"}}`,
		`{"action":{"action":"notify","args":{"to":"x","text":"y"}}}`,
		`{"webhook":{"id":"wh1"},"payload":{"ID":"1"},"params":{"signature":"ok"}}`,
		`[]`, `null`, `{"types":null}`, `{"filter":{"since":5}}`, "\x00", `{"pagination":"`,
	} {
		for i := range paths {
			f.Add(i, seed)
		}
	}
	var s seen
	h := testapp.Handler(f, newTestApp(&s, quietLogger()))
	f.Fuzz(func(t *testing.T, pathIndex int, body string) {
		if pathIndex < 0 {
			pathIndex = -pathIndex
		}
		path := paths[pathIndex%len(paths)]
		r := call(t, h, "POST", path, body)
		// The test app answers 5xx on purpose for these filter and token
		// values only (a panic, an upstream failure, a busy account).
		deliberate := strings.Contains(body, `"panic"`) || strings.Contains(body, `"fail"`) || strings.Contains(body, `"busy"`)
		if r.status >= 500 && !deliberate {
			t.Fatalf("POST %s %q = %d %s", path, body, r.status, r.raw)
		}
		if r.status >= 400 {
			var e struct {
				Message *string `json:"message"`
			}
			if err := json.Unmarshal(r.raw, &e); err != nil || e.Message == nil {
				t.Fatalf("POST %s %q: failure without {message}: %d %s", path, body, r.status, r.raw)
			}
		}
	})
}
