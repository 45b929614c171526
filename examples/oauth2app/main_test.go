package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/oauth"
	"github.com/appkitgo/appkit/oauth/oauthtest"
)

const callback = "https://service.example/oauth/callback"

// start serves the app against an in-process provider.
func start(t *testing.T, pcfg oauthtest.OAuth2Config, pkce bool) (*httptest.Server, *oauthtest.OAuth2Server) {
	t.Helper()
	provider := oauthtest.NewOAuth2Server(t, pcfg)
	nop := zerolog.Nop()
	app := newApp(Config{
		ClientID: provider.ClientID, ClientSecret: provider.ClientSecret,
		AuthURL: provider.AuthURL, TokenURL: provider.TokenURL,
		APIURL: provider.URL + "/api", Scopes: []string{"items:read"}, PKCE: pkce,
		Logger: &nop,
	})
	h, err := app.Handler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, provider
}

// post sends a JSON body and decodes the JSON answer.
func post(t *testing.T, srv *httptest.Server, path string, body any) (int, map[string]any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Post(srv.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("POST %s: %d %q is not a JSON object", path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// connect drives the two OAuth endpoints as the service does, with the
// provider's consent in between, and returns the stored account.
func connect(t *testing.T, srv *httptest.Server, provider *oauthtest.OAuth2Server) map[string]any {
	t.Helper()
	status, out := post(t, srv, "/oauth2/v1/authorize", map[string]any{"callback_uri": callback, "state": "svc-state-9"})
	if status != http.StatusOK {
		t.Fatalf("authorize: %d %v", status, out)
	}
	back, err := provider.Approve(t.Context(), out["redirect_uri"].(string))
	if err != nil {
		t.Fatalf("consent: %v", err)
	}
	if back.Query().Get("state") != "svc-state-9" {
		t.Fatalf("the state was not preserved: %s", back)
	}
	status, acct := post(t, srv, "/oauth2/v1/access_token", map[string]any{
		"fields": map[string]any{"callback_uri": callback}, "code": back.Query().Get("code"),
	})
	if status != http.StatusOK {
		t.Fatalf("access_token: %d %v", status, acct)
	}
	return acct
}

// syncItems pages through the items as the service does.
func syncItems(t *testing.T, srv *httptest.Server, acct map[string]any) (int, []string, map[string]any) {
	t.Helper()
	var ids []string
	var pagination any
	for range 20 {
		status, out := post(t, srv, "/api/v1/synchronizer/data", map[string]any{
			"requestedType": "items", "types": []string{"items"}, "account": acct, "pagination": pagination,
		})
		if status != http.StatusOK {
			return status, ids, out
		}
		for _, it := range out["items"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		pg := out["pagination"].(map[string]any)
		if pg["hasNext"] != true {
			return status, ids, out
		}
		pagination = pg["nextPageConfig"]
	}
	t.Fatal("the sync did not end")
	return 0, nil, nil
}

func TestFullFlow(t *testing.T) {
	for _, pkce := range []bool{false, true} {
		t.Run(fmt.Sprintf("pkce=%v", pkce), func(t *testing.T) {
			srv, provider := start(t, oauthtest.OAuth2Config{ForcePKCE: pkce}, pkce)

			resp, err := srv.Client().Get(srv.URL + "/")
			if err != nil {
				t.Fatal(err)
			}
			var desc struct {
				Authentication []struct {
					ID     string
					Fields []struct{ Type string }
				}
			}
			_ = json.NewDecoder(resp.Body).Decode(&desc)
			resp.Body.Close()
			if len(desc.Authentication) != 1 || desc.Authentication[0].ID != "oauth2" || desc.Authentication[0].Fields[0].Type != "oauth" {
				t.Fatalf("descriptor authentication = %+v, want one oauth2 with an oauth field", desc.Authentication)
			}

			acct := connect(t, srv, provider)
			if acct["access_token"] == nil || acct["refresh_token"] == nil || acct["expires_on"] == nil || acct["name"] != provider.UserName {
				t.Fatalf("account data %v", acct)
			}
			acct["auth"] = "oauth2" // the service adds the authentication id

			status, v := post(t, srv, "/validate", map[string]any{"id": "oauth2", "fields": acct})
			if status != http.StatusOK || v["name"] != provider.UserName {
				t.Fatalf("validate: %d %v", status, v)
			}

			status, cfg := post(t, srv, "/api/v1/synchronizer/config", map[string]any{"account": acct})
			if status != http.StatusOK || !strings.Contains(fmt.Sprint(cfg["types"]), "items") {
				t.Fatalf("config: %d %v", status, cfg)
			}
			status, ids, last := syncItems(t, srv, acct)
			if status != http.StatusOK || strings.Join(ids, ",") != "item-1,item-2,item-3,item-4,item-5" {
				t.Fatalf("sync: %d %v %v", status, ids, last)
			}

			// The token expires: /validate refreshes it, rotating the refresh token.
			expired := map[string]any{}
			for k, val := range acct {
				expired[k] = val
			}
			expired["expire_on"] = oauth.FormatExpiry(time.Now().Add(-time.Minute))
			status, fresh := post(t, srv, "/validate", map[string]any{"id": "oauth2", "fields": expired})
			if status != http.StatusOK || fresh["access_token"] == acct["access_token"] || fresh["refresh_token"] == acct["refresh_token"] || fresh["expire_on"] == nil {
				t.Fatalf("refresh through validate: %d %v", status, fresh)
			}
			if provider.Refreshes() != 1 {
				t.Fatalf("refreshes = %d", provider.Refreshes())
			}
			// The service merges the answer into the account.
			for k, val := range fresh {
				acct[k] = val
			}
			if status, ids, _ := syncItems(t, srv, acct); status != http.StatusOK || len(ids) != 5 {
				t.Fatalf("sync with the refreshed token: %d %v", status, ids)
			}
			// The replaced token is refused by the provider: the toolkit
			// refreshes once, and the flow answers the tokens its refresh
			// just obtained (no second provider refresh).
			if status, ids, last := syncItems(t, srv, expired); status != http.StatusOK || len(ids) != 5 || provider.Refreshes() != 1 {
				t.Fatalf("sync with the replaced token: %d %v %v, %d refreshes", status, ids, last, provider.Refreshes())
			}
			// A refused token that cannot be refreshed: 401 for the service.
			status, out := post(t, srv, "/api/v1/synchronizer/data", map[string]any{
				"requestedType": "items", "types": []string{"items"}, "account": map[string]any{"auth": "oauth2", "access_token": "forged-token-1234"},
			})
			if status != http.StatusUnauthorized || !strings.Contains(fmt.Sprint(out["message"]), "connect the account again") || strings.Contains(fmt.Sprint(out["message"]), "forged-token-1234") {
				t.Fatalf("data with a refused token: %d %v", status, out)
			}
		})
	}
}

func TestOAuthFailures(t *testing.T) {
	srv, provider := start(t, oauthtest.OAuth2Config{}, false)
	status, out := post(t, srv, "/oauth2/v1/access_token", map[string]any{
		"fields": map[string]any{"callback_uri": callback}, "code": "forged-code-123",
	})
	msg := fmt.Sprint(out["message"])
	if status != http.StatusUnauthorized || !strings.Contains(msg, "invalid_grant") ||
		strings.Contains(msg, provider.ClientSecret) || strings.Contains(msg, "forged-code-123") {
		t.Fatalf("bad code: %d %q", status, msg)
	}
	acct := connect(t, srv, provider)
	provider.RevokeRefreshToken(acct["refresh_token"].(string))
	acct["expire_on"] = oauth.FormatExpiry(time.Now().Add(-time.Hour))
	status, out = post(t, srv, "/validate", map[string]any{"id": "oauth2", "fields": acct})
	if status != http.StatusUnauthorized || !strings.Contains(fmt.Sprint(out["message"]), "invalid_grant") {
		t.Fatalf("revoked refresh token: %d %v", status, out)
	}
	provider.Close()
	status, out = post(t, srv, "/validate", map[string]any{"id": "oauth2", "fields": acct})
	if status == http.StatusOK || !strings.Contains(fmt.Sprint(out["message"]), "unreachable") {
		t.Fatalf("provider down: %d %v", status, out)
	}
}

// env is the getenv of the given KEY, VALUE pairs.
var env = appkittest.Env

func TestConfig(t *testing.T) {
	full := []string{"OAUTH2_CLIENT_ID", "cid", "OAUTH2_CLIENT_SECRET", "very-secret-value",
		"OAUTH2_AUTH_URL", "https://p.example/auth", "OAUTH2_TOKEN_URL", "https://p.example/token",
		"OAUTH2_API_URL", "https://api.p.example/v1", "OAUTH2_SCOPES", "read, write  admin"}
	with := func(kv ...string) func(string) string { return env(append(append([]string{}, full...), kv...)...) }
	for _, tc := range []struct {
		name string
		env  func(string) string
		addr string
		err  string
	}{
		{"full", with(), ":8080", ""},
		{"port and pkce", with("PORT", "9000", "OAUTH2_PKCE", "true"), ":9000", ""},
		{"nothing", env(), "", "OAUTH2_CLIENT_ID, OAUTH2_AUTH_URL, OAUTH2_TOKEN_URL, OAUTH2_API_URL"},
		{"bad port", with("PORT", "x"), "", "PORT"},
		{"bad api url", with("OAUTH2_API_URL", "api.example"), "", "OAUTH2_API_URL"},
		{"bad pkce", with("OAUTH2_PKCE", "maybe"), "", "OAUTH2_PKCE"},
		{"short pkce key", with("OAUTH2_PKCE_KEY", "short"), "", "OAUTH2_PKCE_KEY"},
		{"pkce key", with("OAUTH2_PKCE", "true", "OAUTH2_PKCE_KEY", "0123456789abcdef"), ":8080", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, cfg, err := config(tc.env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "very-secret-value") {
					t.Fatalf("err = %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil || addr != tc.addr || strings.Join(cfg.Scopes, "|") != "read|write|admin" || cfg.ClientSecret != "very-secret-value" {
				t.Fatalf("got %q %+v %v", addr, cfg, err)
			}
		})
	}
}

// TestRun serves on $PORT, answers the descriptor, stops on cancel, and
// refuses a configuration that fails the app's check.
func TestRun(t *testing.T) {
	m := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		return run(ctx, env("OAUTH2_CLIENT_ID", "cid", "OAUTH2_AUTH_URL", "https://p.example/auth",
			"OAUTH2_TOKEN_URL", "https://p.example/token", "OAUTH2_API_URL", "https://p.example/api"), io.Discard, l)
	})
	if !strings.Contains(m.Descriptor, `"oauth2"`) {
		t.Errorf("GET / = %s", m.Descriptor)
	}
	if err := m.Stop(); err != nil {
		t.Errorf("run: %v", err)
	}
	bad := env("OAUTH2_CLIENT_ID", "cid", "OAUTH2_AUTH_URL", "not a url", "OAUTH2_TOKEN_URL", "https://p.example/token",
		"OAUTH2_API_URL", "https://p.example/api")
	if err := run(context.Background(), bad, io.Discard, nil); err == nil || !strings.Contains(err.Error(), "AuthURL") {
		t.Errorf("run with a bad AuthURL: %v", err)
	}
	// A public client with PKCE needs a shared verifier key.
	public := env("OAUTH2_CLIENT_ID", "cid", "OAUTH2_AUTH_URL", "https://p.example/auth", "OAUTH2_TOKEN_URL", "https://p.example/token",
		"OAUTH2_API_URL", "https://p.example/api", "OAUTH2_PKCE", "true")
	if err := run(context.Background(), public, io.Discard, nil); err == nil || !strings.Contains(err.Error(), "PKCEKey") {
		t.Errorf("run with PKCE, no client secret, no key: %v", err)
	}
}
