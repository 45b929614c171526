package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/oauth"
	"github.com/appkitgo/appkit/oauth/oauthtest"
)

// oauthItem is an item of the provider's API.
type oauthItem struct {
	ID    string `appkit:"id"`
	Title string `appkit:"name"`
}

// ageing makes the app see the stored token as expired in the next
// validations, as if its lifetime had passed: the host's account is left
// as it is, only what the app reads of it changes.
type ageing struct {
	next http.Handler
	// expire is the number of validations still to age.
	expire atomic.Int32
}

func (a *ageing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == protocol.PathValidate && a.expire.Add(-1) >= 0 {
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err == nil {
			if fields, ok := req["fields"].(map[string]any); ok {
				fields[oauth.KeyExpireOn], fields[oauth.KeyExpiresOn] = "2000-01-01T00:00:00Z", "2000-01-01T00:00:00Z"
			}
			b, _ := json.Marshal(req)
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		}
	}
	a.next.ServeHTTP(w, r)
}

// oauthApp is a small OAuth 2 app over the in-process provider: its items
// come from the provider's API with the account's token.
func oauthApp(t *testing.T, p *oauthtest.OAuth2Server) (string, *ageing) {
	t.Helper()
	nop := zerolog.Nop()
	app := &appkit.App{ID: "oauthitems", Name: "OAuth items", Version: "1.0.0", Description: "OAuth 2 test app", Logger: &nop,
		Auth: []appkit.Auth{appkit.OAuth2Auth("Provider account", &oauth.OAuth2{ClientID: p.ClientID, ClientSecret: p.ClientSecret,
			AuthURL: p.AuthURL, TokenURL: p.TokenURL, Scopes: []string{"items:read"}})},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "items", Name: "Items", Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]oauthItem, error) {
			c, err := req.HTTPClient(ctx)
			if err != nil {
				return nil, appkit.InvalidAccount("%v", err)
			}
			var out []oauthItem
			for page := 1; page > 0 && page < 50; {
				resp, err := c.Get(fmt.Sprintf("%s?page=%d", p.ItemsURL, page))
				if err != nil {
					return nil, appkit.TryLater(err)
				}
				var body struct {
					Items []struct{ ID, Title string } `json:"items"`
					Next  int                          `json:"next"`
				}
				err = json.NewDecoder(resp.Body).Decode(&body)
				resp.Body.Close()
				if resp.StatusCode != 200 || err != nil {
					return nil, appkit.InvalidAccount("the provider answered %d", resp.StatusCode)
				}
				for _, it := range body.Items {
					out = append(out, oauthItem{ID: it.ID, Title: it.Title})
				}
				page = body.Next
			}
			return out, nil
		})}}},
	}
	aged := &ageing{next: testapp.Handler(t, app)}
	return serveApp(t, aged), aged
}

// An OAuth 2 account is connected through the host's callback page
// against the in-process provider, and its short-lived token is refreshed
// (and the rotated tokens kept) before every run.
func TestAppsOAuth2Account(t *testing.T) {
	t.Parallel()
	e := newAppsEnv(t, "sqlite::memory:", nil)
	// Before each run the app is made to see the token as expired (no
	// waiting for it to expire): /validate refreshes it.
	provider := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{Items: 7})
	appURL, aged := oauthApp(t, provider)
	var app apps.App
	e.api("POST", "/api/apps", map[string]any{"url": appURL}, 201, &app)
	e.api("POST", "/api/apps/accounts", map[string]any{"app": app.ID, "fields": map[string]any{}}, 400, nil) // OAuth accounts connect

	var start apps.OAuthStart
	e.api("POST", "/api/apps/oauth/start", map[string]any{"app": app.ID}, 200, &start)
	if start.CallbackURI != e.srv.URL+"/api/apps/oauth/callback" || !strings.HasPrefix(start.RedirectURI, provider.AuthURL) {
		t.Fatalf("start: %+v", start)
	}
	back, err := provider.Approve(context.Background(), start.RedirectURI)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(back.String(), start.CallbackURI+"?") {
		t.Fatalf("the provider sent the user to %s", back)
	}
	page := func(u string) (int, string) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("callback content type %q", ct)
		}
		return resp.StatusCode, string(b)
	}
	code, body := page(back.String())
	if code != 200 || !strings.Contains(body, "Account connected") {
		t.Fatalf("callback page: %d %s", code, body)
	}
	// The state is single-use; a forged one is refused; neither is echoed
	// unescaped.
	if code, body := page(back.String()); code != 400 || !strings.Contains(body, "already used") {
		t.Errorf("a replayed callback: %d %s", code, body)
	}
	if code, body := page(e.srv.URL + "/api/apps/oauth/callback?state=%3Cscript%3E&code=x"); code != 400 || strings.Contains(body, "<script>") {
		t.Errorf("a forged callback: %d %s", code, body)
	}
	var accounts []apps.Account
	e.api("GET", "/api/apps/accounts?app="+app.ID, nil, 200, &accounts)
	if len(accounts) != 1 || accounts[0].Auth != "oauth2" || !slices.Contains(accounts[0].Fields, "access_token") || !slices.Contains(accounts[0].Fields, "refresh_token") {
		t.Fatalf("accounts: %+v", accounts)
	}

	refreshes := provider.Refreshes()
	aged.expire.Store(1)
	var sy apps.Sync
	e.api("POST", "/api/apps/syncs", map[string]any{"app": app.ID, "account": accounts[0].ID}, 201, &sy)
	run := e.waitRuns(sy.ID, "", 1)[0]
	if run.Status != apps.StatusSucceeded || run.Report.Types[0].Created != 7 {
		t.Fatalf("first run: %+v %s", run.Report, run.Error)
	}
	if provider.Refreshes() <= refreshes {
		t.Errorf("the token was not refreshed before the run (%d refreshes)", provider.Refreshes())
	}
	// The provider rotates refresh tokens: a second run succeeds only if
	// the host kept the new ones.
	refreshes = provider.Refreshes()
	aged.expire.Store(1)
	var again apps.Run
	e.api("POST", "/api/apps/syncs/"+sy.ID+"/run", nil, 202, &again)
	testkit.WaitUntil(t, "the second run", func() bool {
		e.api("GET", "/api/apps/runs/"+again.ID, nil, 200, &again)
		return again.Status == apps.StatusSucceeded || again.Status == apps.StatusFailed
	})
	if again.Status != apps.StatusSucceeded || provider.Refreshes() <= refreshes {
		t.Fatalf("second run: %s, %s (%d refreshes)", again.Status, again.Error, provider.Refreshes())
	}
	// No token value in the kept exchanges.
	raw := e.api("GET", "/api/apps/runs/"+again.ID, nil, 200, nil).raw
	for _, m := range regexp.MustCompile(`(access_token|refresh_token)\\?":\\?"([^"\\]*)`).FindAllStringSubmatch(string(raw), -1) {
		if m[2] != "***" {
			t.Errorf("a token in the exchanges: %s", m[0])
		}
	}
	if !strings.Contains(string(raw), "access_token") {
		t.Errorf("no exchange shows the account")
	}
}

// An OAuth 1 account is connected the same way: the request token's secret
// waits (sealed) for the callback, whose verifier completes the exchange.
func TestAppsOAuth1Account(t *testing.T) {
	t.Parallel()
	e := newAppsEnv(t, "sqlite::memory:", nil)
	p := oauthtest.NewOAuth1Server(t, oauthtest.OAuth1Config{})
	nop := zerolog.Nop()
	app := &appkit.App{ID: "oauth1items", Name: "OAuth 1 items", Version: "1.0.0", Description: "OAuth 1 test app", Logger: &nop,
		Auth: []appkit.Auth{appkit.OAuth1Auth("Provider account", &oauth.OAuth1{ConsumerKey: p.ConsumerKey, ConsumerSecret: p.ConsumerSecret,
			RequestTokenURL: p.RequestTokenURL, AuthorizeURL: p.AuthorizeURL, AccessTokenURL: p.AccessTokenURL})},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "items", Name: "Items", Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]oauthItem, error) {
			if req.Account.String("access_token") == "" {
				return nil, appkit.InvalidAccount("no token")
			}
			return []oauthItem{{ID: "1", Title: "one"}}, nil
		})}}},
	}
	var a apps.App
	e.api("POST", "/api/apps", map[string]any{"url": testapp.Serve(t, app)}, 201, &a)
	var start apps.OAuthStart
	e.api("POST", "/api/apps/oauth/start", map[string]any{"app": a.ID, "auth": "oauth"}, 200, &start)
	if !strings.HasPrefix(start.CallbackURI, e.srv.URL+"/api/apps/oauth/callback?state=") {
		t.Fatalf("start: %+v", start)
	}
	back, err := p.Approve(context.Background(), start.RedirectURI)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(back.String())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || p.AccessTokens() != 1 {
		t.Fatalf("callback: %d %s (%d access tokens)", resp.StatusCode, body, p.AccessTokens())
	}
	var accounts []apps.Account
	e.api("GET", "/api/apps/accounts", nil, 200, &accounts)
	if len(accounts) != 1 || accounts[0].Auth != "oauth" || !slices.Contains(accounts[0].Fields, "access_token") || !slices.Contains(accounts[0].Fields, "access_secret") {
		t.Fatalf("accounts %+v", accounts)
	}
	var sy apps.Sync
	e.api("POST", "/api/apps/syncs", map[string]any{"app": a.ID, "account": accounts[0].ID}, 201, &sy)
	if run := e.waitRuns(sy.ID, "", 1)[0]; run.Status != apps.StatusSucceeded {
		t.Fatalf("run: %+v", run)
	}
}
