package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// TestAuthenticationRules checks who may call what: the token endpoints take
// the cookie only, the API endpoints the token only.
func TestAuthenticationRules(t *testing.T) {
	t.Parallel()
	forEachStore(t, host.Config{}, func(t *testing.T, e *env) {
		e.login()
		_, token := e.newToken("rules")
		anon := &env{t: t, srv: e.srv, client: &http.Client{}} // no cookies

		tests := []struct {
			name         string
			who          *env
			method, path string
			token, body  string
			code         int
			msg          string
		}{
			{"commands without a token", anon, "POST", "/api/commands", "", `[{"command":"platform.schema/query"}]`, 401, "Authorization"},
			{"commands with a session but no token", e, "POST", "/api/commands", "", `[{"command":"platform.schema/query"}]`, 401, "Authorization"},
			{"commands with an unknown token", anon, "POST", "/api/commands", "nope-" + token, `[{"command":"platform.schema/query"}]`, 401, "invalid API token"},
			{"documents without a token", anon, "GET", "/api/documents/0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10", "", "", 401, "Authorization"},
			{"token list with a token only", anon, "GET", "/api/tokens", token, "", 401, "session cookie"},
			{"token creation with a token only", anon, "POST", "/api/tokens", token, `{}`, 401, "session cookie"},
			{"token deletion with a token only", anon, "DELETE", "/api/tokens/x", token, "", 401, "session cookie"},
			{"wrong password", anon, "POST", "/api/login", "", `{"email":"` + adminEmail + `","password":"wrong"}`, 401, "invalid e-mail or password"},
			{"unknown user", anon, "POST", "/api/login", "", `{"email":"who@example.com","password":"` + adminPass + `"}`, 401, "invalid e-mail or password"},
			{"login with bad JSON", anon, "POST", "/api/login", "", `{"email":`, 400, "JSON object"},
			{"login with a huge body", anon, "POST", "/api/login", "", `{"email":"` + strings.Repeat("a", 20000) + `"}`, 413, "larger than"},
			{"cross-origin token creation", e, "POST", "/api/tokens", "", `{}`, 403, "cross-origin"},
			{"unknown route", anon, "GET", "/api/nothing", "", "", 404, "no such endpoint"},
			{"wrong method", anon, "GET", "/api/commands", "", "", 405, "not allowed"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				req, _ := http.NewRequest(tc.method, e.srv.URL+tc.path, strings.NewReader(tc.body))
				if tc.token != "" {
					req.Header.Set("Authorization", "Token "+tc.token)
				}
				if tc.code == 403 {
					req.Header.Set("Origin", "https://evil.example")
				}
				resp, err := tc.who.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var m map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&m)
				msg, _ := m["message"].(string)
				if resp.StatusCode != tc.code || !strings.Contains(msg, tc.msg) {
					t.Fatalf("%d %q, want %d with %q", resp.StatusCode, msg, tc.code, tc.msg)
				}
				if resp.Header.Get("Content-Type") != "application/json" {
					t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
				}
			})
		}

		// The session cookie is HttpOnly and SameSite=Lax.
		r := anon.do("POST", "/api/login", "", `{"email":"`+adminEmail+`","password":"`+adminPass+`"}`)
		c := r.header.Get("Set-Cookie")
		if !strings.Contains(c, host.SessionCookie+"=") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") {
			t.Fatalf("cookie %q", c)
		}
		// Signing out ends the session.
		if r := e.do("POST", "/api/logout", "", ""); r.code != http.StatusNoContent {
			t.Fatalf("logout: %d %s", r.code, r.raw)
		}
		if r := e.do("GET", "/api/tokens", "", ""); r.code != 401 {
			t.Fatalf("after logout: %d %s", r.code, r.raw)
		}
	})
}

// TestLoginThrottle: sign-in attempts from one address are limited (burst
// of 10, then one per second), whatever accounts they name.
func TestLoginThrottle(t *testing.T) {
	t.Parallel()
	forEachStore(t, host.Config{Now: stoppedClock()}, func(t *testing.T, e *env) {
		refused := 0
		for i := 0; i < 20; i++ {
			code := e.do("POST", "/api/login", "", fmt.Sprintf(`{"email":"x%d@example.com","password":"guess"}`, i)).code
			switch {
			case i < 10 && code != 401:
				t.Fatalf("attempt %d: %d, want 401 within the burst", i+1, code)
			case code == http.StatusTooManyRequests:
				refused++
			}
		}
		if refused == 0 {
			t.Fatal("20 immediate sign-in attempts and none refused")
		}
	})
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	forEachStore(t, host.Config{RateLimit: 2, Now: stoppedClock()}, func(t *testing.T, e *env) {
		e.login()
		_, first := e.newToken("one")
		_, second := e.newToken("two")
		query := `[{"command":"platform.schema/query"}]`
		for i := 0; i < 2; i++ {
			if r := e.do("POST", "/api/commands", first, query); r.code != 200 {
				t.Fatalf("request %d: %d %s", i+1, r.code, r.raw)
			}
		}
		r := e.do("POST", "/api/commands", first, query)
		if r.code != http.StatusTooManyRequests || !strings.Contains(r.message(t), "rate limit") {
			t.Fatalf("third immediate request: %d %s", r.code, r.raw)
		}
		if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
			t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
		}
		// Documents share the token's bucket; another token has its own.
		if r := e.do("GET", "/api/documents/0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10", first, ""); r.code != http.StatusTooManyRequests {
			t.Fatalf("documents over the limit: %d %s", r.code, r.raw)
		}
		if r := e.do("POST", "/api/commands", second, query); r.code != 200 {
			t.Fatalf("other token: %d %s", r.code, r.raw)
		}
	})
}

func TestHostileInput(t *testing.T) {
	t.Parallel()
	forEachStore(t, host.Config{MaxBody: 4096}, func(t *testing.T, e *env) {
		e.login()
		_, token := e.newToken("hostile")
		tests := []struct {
			name, method, path, body string
			code                     int
		}{
			{"huge command body", "POST", "/api/commands", `[` + strings.Repeat(`{"command":"platform.schema/query"},`, 200) + `{}]`, 413},
			{"malformed command JSON", "POST", "/api/commands", `[{"command":`, 400},
			{"commands not an array", "POST", "/api/commands", `{"command":"platform.schema/query"}`, 400},
			{"unknown secret", "GET", "/api/documents/9a1c2b3d-0000-4000-8000-000000000000", "", 404},
			{"secret with SQL", "GET", "/api/documents/'%20OR%201=1--", "", 404},
			{"huge document body", "PUT", "/api/documents/9a1c2b3d-0000-4000-8000-000000000000", `{"content":"` + strings.Repeat("x", 5000) + `"}`, 404},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(tc.method, tc.path, token, tc.body)
				if r.code != tc.code {
					t.Fatalf("%d %s, want %d", r.code, r.raw, tc.code)
				}
				if !json.Valid(r.raw) {
					t.Fatalf("body is not JSON: %q", r.raw)
				}
			})
		}
		// An unknown command is a failed command, not a server error.
		r := e.do("POST", "/api/commands", token, `[{"command":"platform.nothing/here","args":{}}]`)
		if r.code >= 500 || !bytes.Contains(r.raw, []byte(`"success":false`)) {
			t.Fatalf("unknown command: %d %s", r.code, r.raw)
		}
	})
}

// TestStartupTokenAndAdmin checks --token registration and the admin's
// generated password across restarts of a host on one store.
func TestStartupTokenAndAdmin(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := teststore.Open(t, dsn)
		var notice bytes.Buffer
		const devToken = "dev-token-0123456789"
		cfg := host.Config{Store: st, Token: devToken, PasswordCost: 4, Notice: &notice}
		h1, err := host.New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		out := notice.String()
		i := strings.Index(out, "with the password ")
		if i < 0 || !strings.Contains(out, "admin@localhost") {
			t.Fatalf("no password notice: %q", out)
		}
		password := strings.Fields(out[i+len("with the password "):])[0]
		notice.Reset()
		if _, err := host.New(ctx, cfg); err != nil { // restart
			t.Fatal(err)
		}
		if notice.Len() != 0 {
			t.Fatalf("restart printed %q; the password is shown once", notice.String())
		}
		tokens, err := h1.Auth().ListTokens(ctx, h1.Admin().ID)
		if err != nil || len(tokens) != 1 {
			t.Fatalf("tokens after restart: %+v %v", tokens, err)
		}
		e := &env{t: t, srv: nil}
		e.srvFrom(h1)
		if r := e.do("POST", "/api/commands", devToken, `[{"command":"platform.schema/query"}]`); r.code != 200 {
			t.Fatalf("start-up token: %d %s", r.code, r.raw)
		}
		if r := e.do("POST", "/api/login", "", `{"email":"admin@localhost","password":"`+password+`"}`); r.code != 200 {
			t.Fatalf("login with the generated password: %d %s", r.code, r.raw)
		}
	})
}
