package host_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// TestSecretsRedactedInEveryPathSpelling: however a client spells the
// documents path, the secret never reaches the log.
func TestSecretsRedactedInEveryPathSpelling(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite::memory:", host.Config{})
	e.login()
	_, token := e.newToken("redact")
	const secret = "0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10"
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{
		"/api/documents/" + secret,
		"//api/documents/" + secret,
		"/api/./documents/" + secret,
		"/api//documents/" + secret,
		"/API/documents/" + strings.ToUpper(secret),
		"/api/documents/" + strings.ReplaceAll(secret, "-", ""),
	} {
		req, _ := http.NewRequest("GET", e.srv.URL+path, nil)
		req.Header.Set("Authorization", "Token "+token)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	logs := strings.ToLower(e.logs.String())
	if strings.Count(logs, `"message":"request"`) < 8 {
		t.Fatalf("expected a log line per request:\n%s", logs)
	}
	for _, part := range strings.Split(secret, "-") {
		if strings.Contains(logs, part) {
			t.Fatalf("the secret (%s) is in the logs:\n%s", part, logs)
		}
	}
}

// TestOriginCheck: state-changing cookie requests and sign-in compare the
// Origin's scheme, host and port with the host's own.
func TestOriginCheck(t *testing.T) {
	t.Parallel()
	login := `{"email":"` + adminEmail + `","password":"` + adminPass + `"}`
	// The test servers listen on 127.0.0.1 and a port the kernel picks: the
	// origins name the port by a placeholder.
	tests := []struct {
		name, origin string
		want         int
	}{
		{"no Origin (not a browser)", "", 200},
		{"own origin", "http://127.0.0.1:PORT", 200},
		{"own origin, scheme in upper case", "HTTP://127.0.0.1:PORT", 200},
		{"https for an http host", "https://127.0.0.1:PORT", 403},
		{"another port", "http://127.0.0.1:1", 403},
		{"default port for a host on another", "http://127.0.0.1", 403},
		{"another host", "http://evil.example:PORT", 403},
		{"opaque origin", "null", 403},
		{"not an origin", "127.0.0.1:PORT", 403},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "sqlite::memory:", host.Config{})
			port := e.srv.URL[strings.LastIndexByte(e.srv.URL, ':')+1:]
			origin := strings.ReplaceAll(tc.origin, "PORT", port)
			for _, step := range []struct{ method, path, body string }{
				{"POST", "/api/login", login},
				{"POST", "/api/tokens", `{}`},
			} {
				req, _ := http.NewRequest(step.method, e.srv.URL+step.path, strings.NewReader(step.body))
				if origin != "" {
					req.Header.Set("Origin", origin)
				}
				if step.path == "/api/tokens" {
					e.login() // a session signed in without Origin
				}
				resp, err := e.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.want {
					t.Fatalf("%s %s with Origin %q: %d %s, want %d", step.method, step.path, origin, resp.StatusCode, raw, tc.want)
				}
				if tc.want == 403 && !strings.Contains(string(raw), "cross-origin") {
					t.Fatalf("refusal %s", raw)
				}
				if step.path == "/api/login" && tc.want == 403 && resp.Header.Get("Set-Cookie") != "" {
					t.Fatal("a refused sign-in set a cookie")
				}
			}
		})
	}
}

// TestInvalidTokensThrottled: invalid API tokens from one address get a
// burst of 10 answers 401, then 429 without the token being checked (a
// right guess is refused too); valid tokens are not counted.
func TestInvalidTokensThrottled(t *testing.T) {
	t.Parallel()
	forEachStore(t, host.Config{Now: stoppedClock()}, func(t *testing.T, e *env) {
		e.login()
		_, token := e.newToken("good")
		query := `[{"command":"platform.schema/query"}]`
		for i := 0; i < 30; i++ {
			if r := e.do("POST", "/api/commands", token, query); r.code != 200 {
				t.Fatalf("valid request %d: %d %s", i+1, r.code, r.raw)
			}
		}
		for i := 0; i < 10; i++ {
			if r := e.do("POST", "/api/commands", "wrong-"+strconv.Itoa(i), query); r.code != 401 {
				t.Fatalf("invalid token %d: %d %s, want 401 within the burst", i+1, r.code, r.raw)
			}
		}
		for _, tok := range []string{"wrong-10", token} {
			r := e.do("GET", "/api/documents/0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10", tok, "")
			if r.code != http.StatusTooManyRequests || !strings.Contains(r.message(t), "invalid API tokens") {
				t.Fatalf("after 10 invalid tokens: %d %s, want 429", r.code, r.raw)
			}
			if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
				t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
			}
		}
	})
}

// TestWorkspaceLimitNamed: the 429 of the limit over all tokens says so,
// and the per-token one says per token.
func TestWorkspaceLimitNamed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite::memory:", host.Config{RateLimit: 2, WorkspaceRateLimit: 3, Now: stoppedClock()})
	e.login()
	_, a := e.newToken("a")
	_, b := e.newToken("b")
	query := `[{"command":"platform.schema/query"}]`
	for _, tok := range []string{a, a, b} {
		if r := e.do("POST", "/api/commands", tok, query); r.code != 200 {
			t.Fatalf("%d %s", r.code, r.raw)
		}
	}
	r := e.do("POST", "/api/commands", a, query)
	if r.code != 429 || !strings.Contains(r.message(t), "per second per token") {
		t.Fatalf("a over its own limit: %d %s", r.code, r.raw)
	}
	r = e.do("POST", "/api/commands", b, query)
	if r.code != 429 || !strings.Contains(r.message(t), "workspace rate limit") || strings.Contains(r.message(t), "per token") {
		t.Fatalf("b within its limit but over the workspace's: %d %s", r.code, r.raw)
	}
}

// TestOperatorSecretsStrength: the host refuses a short start-up token or
// admin password, naming the minimum.
func TestOperatorSecretsStrength(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := teststore.Open(t, "sqlite::memory:")
	for _, tc := range []struct {
		cfg  host.Config
		want string
	}{
		{host.Config{Token: "a"}, "at least 16"},
		{host.Config{Token: "fifteen-chars-x"}, "at least 16"},
		{host.Config{AdminPassword: "a"}, "at least 12"},
		{host.Config{AdminPassword: "eleven-char"}, "at least 12"},
	} {
		tc.cfg.Store, tc.cfg.PasswordCost, tc.cfg.Notice = st, 4, io.Discard
		if _, err := host.New(ctx, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("host.New(token %q, password %q) = %v, want an error with %q", tc.cfg.Token, tc.cfg.AdminPassword, err, tc.want)
		}
	}
}
