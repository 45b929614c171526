package host_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testhost"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

const appsToken = "apps-test-token-0123456789"

// appsEnv is a host with the apps service and its scheduler running.
type appsEnv struct {
	*env
	svc *apps.Service
	st  *store.Store
}

var testKey = []byte("0123456789abcdef0123456789abcdef")

// newAppsEnv starts a host on dsn with the apps service; the scheduler
// polls often so that tests wait milliseconds, not seconds.
func newAppsEnv(t *testing.T, dsn string, tune func(*apps.Config)) *appsEnv {
	t.Helper()
	st := teststore.Open(t, dsn)
	acfg := apps.Config{Store: st, Key: testKey, Poll: 20 * time.Millisecond, LeaseTTL: 3 * time.Second, RequestTimeout: 5 * time.Second}
	if tune != nil {
		tune(&acfg)
	}
	a := testhost.StartApps(t, acfg,
		host.Config{Store: st, PasswordCost: 4, AdminEmail: adminEmail, AdminPassword: adminPass, Token: appsToken, Notice: io.Discard, Now: stoppedClock()},
		true)
	return &appsEnv{env: &env{t: t, srv: a.Srv, client: a.Srv.Client(), host: a.Host, logs: a.Logs}, svc: a.Svc, st: st}
}

// api sends a request with the token and decodes the JSON answer into out
// (when not nil); it fails the test on another status than want.
func (e *appsEnv) api(method, path string, body any, want int, out any) response {
	e.t.Helper()
	var b string
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		b = string(raw)
	}
	r := e.do(method, path, appsToken, b)
	if r.code != want {
		e.t.Fatalf("%s %s: %d %s (want %d)", method, path, r.code, r.raw, want)
	}
	if out != nil {
		if err := json.Unmarshal(r.raw, out); err != nil {
			e.t.Fatalf("%s %s: %q: %v", method, path, r.raw, err)
		}
	}
	return r
}

// newSync registers the app at url through the API, connects an account
// with fields (nil: none) and sets up a sync of it; syncExtra adds to the
// sync's request (nil: the defaults).
func (e *appsEnv) newSync(url string, fields, syncExtra map[string]any) (apps.App, apps.Account, apps.Sync) {
	e.t.Helper()
	var app apps.App
	e.api("POST", "/api/apps", map[string]any{"url": url}, 201, &app)
	account := map[string]any{"app": app.ID}
	if fields != nil {
		account["fields"] = fields
	}
	var acc apps.Account
	e.api("POST", "/api/apps/accounts", account, 201, &acc)
	spec := map[string]any{"app": app.ID, "account": acc.ID}
	for k, v := range syncExtra {
		spec[k] = v
	}
	var sy apps.Sync
	e.api("POST", "/api/apps/syncs", spec, 201, &sy)
	return app, acc, sy
}

// runs lists a sync's runs through the API.
func (e *appsEnv) runs(syncID string) []apps.Run {
	e.t.Helper()
	var out []apps.Run
	e.api("GET", "/api/apps/syncs/"+syncID+"/runs", nil, 200, &out)
	return out
}

// waitRuns waits until the sync has n finished runs with the trigger ("" any).
func (e *appsEnv) waitRuns(syncID, trigger string, n int) []apps.Run {
	e.t.Helper()
	var done []apps.Run
	testkit.WaitUntil(e.t, fmt.Sprintf("%d %s runs of %s", n, trigger, syncID), func() bool {
		done = done[:0]
		for _, r := range e.runs(syncID) {
			if (trigger == "" || r.Trigger == trigger) && r.Status != apps.StatusQueued && r.Status != apps.StatusRunning {
				done = append(done, r)
			}
		}
		return len(done) >= n
	})
	return done
}

// serveApp serves an app handler on loopback.
func serveApp(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
