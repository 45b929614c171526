package console_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/appkitgo/appkit/internal/apps"
)

// moodyApp is an app whose /validate and action answer as its mode says:
// ok, refuse (4xx), later (503 with tryLater), fail (500), down (the
// connection closed without an answer), outside (a redirect to a
// link-local address, outside the networks the host may call).
type moodyApp struct {
	mu               sync.Mutex
	validate, action string
	url              string
}

func (a *moodyApp) set(validate, action string) {
	a.mu.Lock()
	a.validate, a.action = validate, action
	a.mu.Unlock()
}

func newMoodyApp(t *testing.T) *moodyApp {
	t.Helper()
	a := &moodyApp{validate: "ok", action: "ok"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		a.mu.Lock()
		validate, action := a.validate, a.action
		a.mu.Unlock()
		mode := ""
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `{"id":"moody","name":"Moody","version":"1","description":"d","website":"https://example.com",
			"authentication":[{"id":"token","name":"Token","fields":[{"id":"token","name":"Token","type":"password"}]}],"sources":[],
			"responsibleFor":{"dataSynchronization":true,"automations":true},
			"actions":[{"action":"act","name":"Act","args":[{"id":"x","name":"X","type":"text"}]}]}`)
			return
		case "/validate":
			mode = validate
		case "/api/v1/automations/action/execute":
			mode = action
		case "/api/v1/synchronizer/config":
			io.WriteString(w, `{"types":[{"id":"note","name":"Notes"}],"filters":[]}`)
			return
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"not found"}`)
			return
		}
		switch mode {
		case "ok":
			io.WriteString(w, `{"name":"moody account"}`)
		case "refuse":
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"message":"refused by the app"}`)
		case "later":
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"message":"busy","tryLater":true}`)
		case "fail":
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"message":"boom"}`)
		case "down":
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		case "outside":
			http.Redirect(w, r, "http://169.254.169.254/latest", http.StatusTemporaryRedirect)
		}
	}))
	t.Cleanup(srv.Close)
	a.url = srv.URL
	return a
}

// api sends a request to the host's API with token and returns the
// status and the message.
func (e *env) api(method, path, token string, body any) (int, string) {
	e.t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, e.srv.URL+path, strings.NewReader(string(raw)))
	req.Header.Set("Authorization", "Token "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Message string }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Message
}

// Each kind of error of the apps service gets the same status from the
// API and the console (one mapping, apps.HTTPStatus): an app that is down
// or outside the networks the host may call while an account is created
// or changed or an action runs is 502 with the reason, never 500; an
// app's refusal 400, its "try later" 503, its failure 502; not found 404,
// a refused account 400, a conflict 409, no app at a registration 502.
func TestAppErrorStatusSameInAPIAndConsole(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	ctx := context.Background()
	_, token, err := e.h.Auth().CreateToken(ctx, e.h.Admin().ID, "status")
	if err != nil {
		t.Fatal(err)
	}
	app := newMoodyApp(t)
	a, err := e.svc.Registry.RegisterApp(ctx, app.url)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := e.svc.Registry.CreateAccount(ctx, a.ID, "", map[string]any{"token": "moody-token-1"})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	tok := b.signIn()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	type call func() (int, string)
	runAPI := func() (int, string) {
		return e.api("POST", "/api/apps/actions", token, map[string]any{"app": a.ID, "account": acc.ID, "action": "act", "args": map[string]any{"x": "1"}})
	}
	runConsole := func() (int, string) {
		r := b.post("/apps/"+a.ID+"/actions/act", url.Values{"account": {acc.ID}, "arg.x": {"1"}, "csrf": {tok}})
		return r.code, r.body
	}
	createAPI := func() (int, string) {
		return e.api("POST", "/api/apps/accounts", token, map[string]any{"app": a.ID, "fields": map[string]any{"token": "moody-token-2"}})
	}
	createConsole := func() (int, string) {
		r := b.post("/apps/"+a.ID+"/accounts", url.Values{"auth": {"token"}, "f.token": {"moody-token-2"}, "csrf": {tok}})
		return r.code, r.body
	}
	updateAPI := func() (int, string) {
		return e.api("PATCH", "/api/apps/accounts/"+acc.ID, token, map[string]any{"fields": map[string]any{"token": "moody-token-1"}})
	}
	for _, tc := range []struct {
		name             string
		validate, action string
		want             int
		calls            []call
	}{
		{"an action the app refuses", "ok", "refuse", 400, []call{runAPI, runConsole}},
		{"an action the app asks to try later", "ok", "later", 503, []call{runAPI, runConsole}},
		{"an action the app fails", "ok", "fail", 502, []call{runAPI, runConsole}},
		{"an action while the app is down", "down", "ok", 502, []call{runAPI, runConsole}},
		{"an action while the app is outside the networks", "outside", "ok", 502, []call{runAPI, runConsole}},
		{"an action the app drops", "ok", "down", 502, []call{runAPI, runConsole}},
		{"an account while the app is down", "down", "ok", 502, []call{createAPI, createConsole, updateAPI}},
		{"an account while the app is outside the networks", "outside", "ok", 502, []call{createAPI, createConsole, updateAPI}},
		{"an account the app asks to try later", "later", "ok", 503, []call{createAPI, createConsole, updateAPI}},
		{"an account the app fails", "fail", "ok", 502, []call{createAPI, createConsole, updateAPI}},
		{"an account the app refuses", "refuse", "ok", 400, []call{createAPI, createConsole, updateAPI}},
		{"an action of no app", "ok", "ok", 404, []call{
			func() (int, string) {
				return e.api("POST", "/api/apps/actions", token, map[string]any{"app": "nope", "account": acc.ID, "action": "act"})
			},
			func() (int, string) {
				r := b.post("/apps/nope/actions/act", url.Values{"account": {acc.ID}, "csrf": {tok}})
				return r.code, r.body
			}}},
		{"no app at a registration", "ok", "ok", 502, []call{
			func() (int, string) { return e.api("POST", "/api/apps", token, map[string]any{"url": closed.URL}) },
			func() (int, string) {
				r := b.post("/apps", url.Values{"url": {closed.URL}, "csrf": {tok}})
				return r.code, r.body
			}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app.set(tc.validate, tc.action)
			for i, c := range tc.calls {
				code, msg := c()
				if code != tc.want {
					t.Errorf("call %d: %d, want %d\n%.1500s", i, code, tc.want, msg)
				}
				if code == http.StatusInternalServerError || strings.Contains(msg, "internal error") {
					t.Errorf("call %d: an internal error", i)
				}
			}
		})
	}
	// A conflict: the account a sync uses cannot be removed.
	app.set("ok", "ok")
	if _, err := e.svc.SyncService.CreateSync(ctx, apps.SyncSpec{App: a.ID, Account: acc.ID}); err != nil {
		t.Fatal(err)
	}
	if code, msg := e.api("DELETE", "/api/apps/accounts/"+acc.ID, token, nil); code != http.StatusConflict {
		t.Errorf("API: removing an account in use: %d %s", code, msg)
	}
	if r := b.post("/accounts/"+acc.ID+"/delete", url.Values{"csrf": {tok}}); r.code != http.StatusConflict {
		t.Errorf("console: removing an account in use: %d", r.code)
	}
}
