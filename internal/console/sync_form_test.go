package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

// countingProxy serves the app at appURL and counts the app's config
// calls (POST /api/v1/synchronizer/config).
func countingProxy(t *testing.T, appURL string) (string, *atomic.Int64) {
	t.Helper()
	target, err := url.Parse(appURL)
	if err != nil {
		t.Fatal(err)
	}
	var configs atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/synchronizer/config" {
			configs.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &configs
}

// The sync form's account: one of no app is not found (404), one of
// another app refused (400), on the form's page and when it is sent; a
// form sent back with its problems asks the app for its config once.
func TestSyncFormAccount(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	appURL, configs := countingProxy(t, trackerURL(t, 3))
	ctx := context.Background()
	a, err := e.svc.Registry.RegisterApp(ctx, appURL)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := e.svc.Registry.CreateAccount(ctx, a.ID, "", map[string]any{"token": tracker.DemoToken})
	if err != nil {
		t.Fatal(err)
	}
	other := e.newSync(hostileTableAppURL(t), map[string]any{"token": "hostile-token-1"})
	b := e.browser()
	tok := b.signIn()
	path := "/apps/" + a.ID + "/syncs"
	const noAccount = "00000000-0000-4000-8000-000000000000"
	for _, tc := range []struct {
		name string
		// form is the form sent (nil: the form's page, with account).
		form    url.Values
		account string
		status  int
		want    string
		// configs is the config calls to the app.
		configs int64
	}{
		{"the page", nil, acc.ID, http.StatusOK, `name="types"`, 1},
		{"the page of no account", nil, noAccount, http.StatusNotFound, "no account &#34;" + noAccount, 0},
		{"the page of no account given", nil, "", http.StatusNotFound, "no account &#34;&#34;", 0},
		{"the page of another app's account", nil, other.AccountID, http.StatusBadRequest, "belongs to another app", 0},
		{"a form of no account", url.Values{"account": {noAccount}, "types": {"task"}}, "", http.StatusNotFound, "no account &#34;" + noAccount, 0},
		{"a form of another app's account", url.Values{"account": {other.AccountID}, "types": {"task"}}, "", http.StatusBadRequest, "belongs to another app", 0},
		{"a form with problems", url.Values{"account": {acc.ID}, "types": {"nope"}}, "", http.StatusBadRequest, `id="types-error"`, 1},
	} {
		before := configs.Load()
		var r answer
		if tc.form == nil {
			r = b.get(path + "/new?account=" + url.QueryEscape(tc.account))
		} else {
			tc.form.Set("csrf", tok)
			r = b.post(path, tc.form)
		}
		if r.code != tc.status || !strings.Contains(r.body, tc.want) {
			t.Errorf("%s: %d, want %d with %q\n%.2000s", tc.name, r.code, tc.status, tc.want, r.body)
		}
		if n := configs.Load() - before; n != tc.configs {
			t.Errorf("%s: the app was asked for its config %d times, want %d", tc.name, n, tc.configs)
		}
	}
}
