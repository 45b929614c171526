package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// The sign-in form: bad input refused next to the fields, wrong
// credentials refused, a cross-origin or token-less post refused, and a
// good sign-in sets the host's session cookie and leads to the apps.
func TestSignIn(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	b := e.browser()
	home := b.get("/")
	if home.code != http.StatusOK || !strings.Contains(home.body, `<label for="email">`) || !strings.Contains(home.body, `type="password"`) {
		t.Fatalf("sign-in page: %d\n%s", home.code, home.body)
	}
	if csp := home.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
	tok := csrf(t, home.body)

	r := b.post("/login", url.Values{"email": {"nobody"}, "password": {""}, "csrf": {tok}})
	if r.code != http.StatusBadRequest || !strings.Contains(r.body, `id="email-error"`) || !strings.Contains(r.body, `id="password-error"`) || !strings.Contains(r.body, `value="nobody"`) {
		t.Errorf("empty fields: %d\n%s", r.code, r.body)
	}
	tok = csrf(t, r.body)
	r = b.post("/login", url.Values{"email": {adminEmail}, "password": {"wrong password"}, "csrf": {tok}})
	if r.code != http.StatusUnauthorized || !strings.Contains(r.body, "Invalid e-mail or password") {
		t.Errorf("wrong password: %d\n%s", r.code, r.body)
	}
	if csrf(t, r.body) == "" {
		t.Error("the refused form has no token")
	}
	// Without the form's token, or with another one: refused.
	if r := b.post("/login", url.Values{"email": {adminEmail}, "password": {adminPass}}); r.code != http.StatusForbidden {
		t.Errorf("no csrf: %d", r.code)
	}
	tok = csrf(t, b.get("/").body)
	if r := b.post("/login", url.Values{"email": {adminEmail}, "password": {adminPass}, "csrf": {tok + "x"}}); r.code != http.StatusForbidden {
		t.Errorf("wrong csrf: %d", r.code)
	}
	// From another origin: refused.
	tok = csrf(t, b.get("/").body)
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/login", strings.NewReader(url.Values{"email": {adminEmail}, "password": {adminPass}, "csrf": {tok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	resp, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin sign-in: %d", resp.StatusCode)
	}

	tok = csrf(t, b.get("/?next=/tokens").body)
	r = b.post("/login", url.Values{"email": {adminEmail}, "password": {adminPass}, "csrf": {tok}, "next": {"/tokens"}})
	if r.code != http.StatusSeeOther || r.location != "/tokens" {
		t.Fatalf("sign-in: %d %q\n%s", r.code, r.location, r.body)
	}
	var session *http.Cookie
	u, _ := url.Parse(e.srv.URL)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == "appkit_session" {
			session = c
		}
	}
	if session == nil {
		t.Fatal("no session cookie after sign-in")
	}
	// The cookie is the host's: the tokens API accepts it.
	req, _ = http.NewRequest(http.MethodGet, e.srv.URL+"/api/tokens", nil)
	resp, err = b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /api/tokens with the console's cookie: %d", resp.StatusCode)
	}
	apps := b.get("/")
	if apps.code != http.StatusOK || !strings.Contains(apps.body, "Register an app") || !strings.Contains(apps.body, adminEmail) {
		t.Errorf("home after sign-in: %d\n%s", apps.code, apps.body)
	}
	// An open redirect is not possible.
	b2 := e.browser()
	tok = csrf(t, b2.get("/").body)
	if r := b2.post("/login", url.Values{"email": {adminEmail}, "password": {adminPass}, "csrf": {tok}, "next": {"//evil.example/x"}}); r.location != "/" {
		t.Errorf("next=//evil.example: redirected to %q", r.location)
	}
	// Sign out ends the session.
	csrfTok := csrf(t, b.get("/tokens").body)
	if r := b.post("/logout", url.Values{"csrf": {csrfTok}}); r.code != http.StatusSeeOther {
		t.Errorf("sign out: %d", r.code)
	}
	if r := b.get("/tokens"); r.code != http.StatusUnauthorized || !strings.Contains(r.body, "Sign in") {
		t.Errorf("after sign-out: %d", r.code)
	}
}

// Signed-out visitors get the sign-in form on every screen; a signed-in
// user's POST without the page's token is refused, and nothing is written.
func TestPagesNeedSession(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	b := e.browser()
	for _, p := range []string{"/apps", "/tokens", "/data", "/data/x/y", "/syncs/x", "/runs/x", "/apps/x", "/daterange?value=today"} {
		r := b.get(p)
		if r.code != http.StatusUnauthorized || !strings.Contains(r.body, "Sign in") {
			t.Errorf("GET %s signed out: %d", p, r.code)
		}
	}
	if r := b.post("/apps", url.Values{"url": {"http://127.0.0.1:1"}}); r.code != http.StatusUnauthorized {
		t.Errorf("POST /apps signed out: %d", r.code)
	}
	// A bookmarked screen leads back to itself after signing in.
	r := b.get("/data?x=1")
	if !strings.Contains(r.body, `name="next" value="/data?x=1"`) {
		t.Errorf("the sign-in form does not lead back:\n%s", r.body)
	}
	if r := b.post("/login", url.Values{"email": {adminEmail}, "password": {adminPass}, "csrf": {csrf(t, r.body)}, "next": {"/data?x=1"}}); r.location != "/data?x=1" {
		t.Errorf("after sign-in: %d %q", r.code, r.location)
	}
	b = e.browser()
	tok := b.signIn()
	if r := b.post("/tokens", url.Values{"name": {"no csrf"}}); r.code != http.StatusForbidden {
		t.Errorf("POST /tokens without csrf: %d", r.code)
	}
	if r := b.post("/tokens", url.Values{"name": {"wrong csrf"}, "csrf": {tok[:len(tok)-1]}}); r.code != http.StatusForbidden {
		t.Errorf("POST /tokens with a wrong csrf: %d", r.code)
	}
	if strings.Contains(b.get("/tokens").body, "csrf</td>") {
		t.Error("a token was created by a refused form")
	}
	// The API's own 404s are JSON still.
	resp, err := http.Get(e.srv.URL + "/api/nothing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("GET /api/nothing: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if r := b.get("/nothing/here"); r.code != http.StatusNotFound || !strings.Contains(r.body, "No page at this address") {
		t.Errorf("GET /nothing/here: %d", r.code)
	}
}

var tokenValue = regexp.MustCompile(`<output id="token-value" class="secret">([^<]+)</output>`)

// Tokens: created with the value shown once, listed without it, usable on
// the API, revoked.
func TestTokens(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	b := e.browser()
	tok := b.signIn()
	long := strings.Repeat("n", 300)
	if r := b.post("/tokens", url.Values{"name": {long}, "csrf": {tok}}); r.code != http.StatusBadRequest || !strings.Contains(r.body, `id="name-error"`) {
		t.Errorf("a 300-byte name: %d\n%s", r.code, r.body)
	}
	r := b.post("/tokens", url.Values{"name": {"ci"}, "csrf": {tok}})
	m := tokenValue.FindStringSubmatch(r.body)
	if r.code != http.StatusOK || m == nil {
		t.Fatalf("create: %d\n%s", r.code, r.body)
	}
	value := m[1]
	list := b.get("/tokens")
	if strings.Contains(list.body, value) || !strings.Contains(list.body, "<td>ci</td>") {
		t.Errorf("the list shows the value, or not the token:\n%s", list.body)
	}
	api := func() int {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/api/apps", nil)
		req.Header.Set("Authorization", "Token "+value)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := api(); c != http.StatusOK {
		t.Fatalf("the new token on the API: %d", c)
	}
	id := regexp.MustCompile(`action="/tokens/([^/]+)/revoke"`).FindStringSubmatch(list.body)
	if id == nil {
		t.Fatal("no revoke form")
	}
	if r := b.post("/tokens/"+id[1]+"/revoke", url.Values{"csrf": {tok}}); r.code != http.StatusSeeOther {
		t.Fatalf("revoke: %d", r.code)
	}
	if c := api(); c != http.StatusUnauthorized {
		t.Errorf("the revoked token on the API: %d", c)
	}
	if r := b.post("/tokens/"+id[1]+"/revoke", url.Values{"csrf": {tok}}); r.code != http.StatusNotFound {
		t.Errorf("revoke again: %d", r.code)
	}
}

// Sign-in attempts through the console share the host's throttle with
// /api/login: after the burst the address gets 429 with Retry-After,
// without its password being checked, on both (the attempts name other
// accounts each, so that this is the address's throttle, not an
// account's).
func TestSignInThrottled(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	b := e.browser()
	limited := false
	for i := 0; i < 30 && !limited; i++ {
		tok := csrf(t, b.get("/").body)
		r := b.post("/login", url.Values{"email": {fmt.Sprintf("guess-%d@example.com", i)}, "password": {"guess"}, "csrf": {tok}})
		switch r.code {
		case http.StatusUnauthorized:
		case http.StatusTooManyRequests:
			limited = true
			if r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "Too many sign-in attempts") {
				t.Errorf("429 without Retry-After or message: %q\n%s", r.header.Get("Retry-After"), r.body)
			}
		default:
			t.Fatalf("attempt %d: %d", i, r.code)
		}
	}
	if !limited {
		t.Fatal("30 wrong passwords in a row were all checked")
	}
	// The right password is not checked either now, and the API is
	// throttled too.
	tok := csrf(t, b.get("/").body)
	if r := b.post("/login", url.Values{"email": {adminEmail}, "password": {adminPass}, "csrf": {tok}}); r.code != http.StatusTooManyRequests {
		t.Errorf("the right password while throttled: %d", r.code)
	}
	resp, err := http.Post(e.srv.URL+"/api/login", "application/json", strings.NewReader(`{"email":"`+adminEmail+`","password":"`+adminPass+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("/api/login after the console's attempts: %d", resp.StatusCode)
	}
}
