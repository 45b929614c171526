package appkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/oauth2"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/oauth"
	"github.com/appkitgo/appkit/oauth/oauthtest"
)

// oauthApp is a sync app whose data handler lists the provider's items with
// the account's authenticated client.
func oauthApp(auth appkit.Auth, itemsURL string, logger *zerolog.Logger) *appkit.App {
	return &appkit.App{ID: "oauth-app", Name: "OAuth app", Version: "1", Logger: logger, Auth: []appkit.Auth{auth},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "item", Name: "Items",
			Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "Title")},
			Data: appkit.Pages(func(ctx context.Context, r *appkit.DataRequest, page *cursor) (*appkit.Page[appkit.Item, cursor], error) {
				client, err := r.HTTPClient(ctx)
				if err != nil {
					return nil, err
				}
				n := 1
				if page != nil {
					n = page.Offset
				}
				req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s?page=%d", itemsURL, n), nil)
				resp, err := client.Do(req)
				if err != nil {
					return nil, err
				}
				defer resp.Body.Close()
				if resp.StatusCode != 200 {
					return nil, appkit.InvalidAccount("provider answered %d", resp.StatusCode)
				}
				var body struct {
					Items []struct{ ID, Title string }
					Next  int
				}
				if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
					return nil, err
				}
				p := &appkit.Page[appkit.Item, cursor]{}
				for _, it := range body.Items {
					p.Items = append(p.Items, appkit.Item{"id": it.ID, "name": it.Title})
				}
				if body.Next > 0 {
					p.Next = &cursor{Offset: body.Next}
				}
				return p, nil
			}),
		}}}}
}

func postJSON(t *testing.T, h http.Handler, path string, body any) response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return call(t, h, "POST", path, string(b))
}

func TestOAuth2FlowThroughEndpoints(t *testing.T) {
	t.Parallel()
	prov := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{AccessTokenExp: 2 * time.Second})
	var logs bytes.Buffer
	logger := zerolog.New(&logs)
	p := &oauth.OAuth2{
		ClientID: prov.ClientID, ClientSecret: prov.ClientSecret, AuthURL: prov.AuthURL, TokenURL: prov.TokenURL,
		Scopes: []string{"items"}, PKCE: true, RefreshMargin: time.Minute,
		Account: func(ctx context.Context, c *http.Client, tok *oauth2.Token) (map[string]any, error) {
			resp, err := c.Get(prov.UserURL)
			if err != nil {
				return nil, err
			}
			defer resp.Body.Close()
			var me struct{ ID, Name string }
			if err := json.NewDecoder(resp.Body).Decode(&me); err != nil {
				return nil, err
			}
			return map[string]any{"name": me.Name, "account_id": me.ID}, nil
		},
	}
	h := testapp.Handler(t, oauthApp(appkit.OAuth2Auth("Example", p), prov.ItemsURL, &logger))

	// The descriptor shows the oauth field, so the service renders the connect form.
	d := call(t, h, "GET", "/", "")
	auth := d.body["authentication"].([]any)[0].(map[string]any)
	if auth["id"] != "oauth2" || auth["fields"].([]any)[0].(map[string]any)["type"] != "oauth" {
		t.Fatalf("authentication = %v", auth)
	}

	callback := "https://service.example.com/oauth/callback"
	r := postJSON(t, h, "/oauth2/v1/authorize", map[string]any{"callback_uri": callback, "state": "st-42"})
	if r.status != 200 {
		t.Fatalf("authorize = %d %s", r.status, r.raw)
	}
	redirect, _ := url.Parse(r.body["redirect_uri"].(string))
	q := redirect.Query()
	if q.Get("state") != "st-42" || q.Get("client_id") != prov.ClientID || q.Get("redirect_uri") != callback || q.Get("code_challenge_method") != "S256" {
		t.Fatalf("redirect_uri = %s", redirect)
	}
	back, err := prov.Approve(context.Background(), redirect.String())
	if err != nil {
		t.Fatalf("consent: %v", err)
	}
	if back.Query().Get("state") != "st-42" {
		t.Fatalf("callback lost the state: %s", back)
	}
	r = postJSON(t, h, "/oauth2/v1/access_token", map[string]any{"fields": map[string]any{"callback_uri": callback}, "code": back.Query().Get("code")})
	if r.status != 200 {
		t.Fatalf("access_token = %d %s", r.status, r.raw)
	}
	account := r.body
	if account["access_token"] == nil || account["refresh_token"] == nil || account["expires_on"] == nil || account["name"] != prov.UserName || account["account_id"] != prov.UserID {
		t.Fatalf("account = %v", account)
	}
	account["auth"] = "oauth2"

	// A data call with the token pages through the provider's items.
	var ids []string
	var page any
	for {
		r = postJSON(t, h, "/api/v1/synchronizer/data", map[string]any{"requestedType": "item", "account": account, "pagination": page})
		if r.status != 200 {
			t.Fatalf("data = %d %s", r.status, r.raw)
		}
		for _, it := range r.body["items"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		pg := r.body["pagination"].(map[string]any)
		if pg["hasNext"] != true {
			break
		}
		page = pg["nextPageConfig"]
	}
	if len(ids) != 5 {
		t.Fatalf("items = %v", ids)
	}

	// The token is about to expire: /validate refreshes it, and the refresh
	// token rotates.
	r = postJSON(t, h, "/validate", map[string]any{"id": "oauth2", "fields": map[string]any{
		"access_token": account["access_token"], "refresh_token": account["refresh_token"], "expire_on": account["expires_on"]}})
	if r.status != 200 {
		t.Fatalf("validate = %d %s", r.status, r.raw)
	}
	if r.body["access_token"] == account["access_token"] || r.body["refresh_token"] == account["refresh_token"] || r.body["expire_on"] == nil || r.body["name"] != prov.UserName {
		t.Fatalf("refresh answer = %v", r.body)
	}
	if prov.Refreshes() != 1 {
		t.Fatalf("refreshes = %d, want 1", prov.Refreshes())
	}
	refreshed := r.body
	// A retry that still carries the consumed refresh token gets the same
	// answer, without a second refresh at the provider.
	r = postJSON(t, h, "/validate", map[string]any{"id": "oauth2", "fields": map[string]any{
		"access_token": account["access_token"], "refresh_token": account["refresh_token"], "expire_on": account["expires_on"]}})
	if r.status != 200 || r.body["access_token"] != refreshed["access_token"] || prov.Refreshes() != 1 {
		t.Fatalf("retried validate = %d %s (refreshes %d)", r.status, r.raw, prov.Refreshes())
	}
	// A revoked refresh token is refused with 401.
	prov.RevokeRefreshToken(refreshed["refresh_token"].(string))
	r = postJSON(t, h, "/validate", map[string]any{"id": "oauth2", "fields": map[string]any{
		"access_token": refreshed["access_token"], "refresh_token": refreshed["refresh_token"], "expire_on": time.Now().Add(-time.Hour).Format(time.RFC3339)}})
	if r.status != 401 || r.body["message"] == "" {
		t.Fatalf("validate with a revoked refresh token = %d %s", r.status, r.raw)
	}

	for _, secret := range []string{prov.ClientSecret, account["access_token"].(string), account["refresh_token"].(string)} {
		if strings.Contains(logs.String(), secret) {
			t.Fatalf("a secret reached the log:\n%s", logs.String())
		}
	}
}

func TestOAuth2FailuresAnswer401(t *testing.T) {
	t.Parallel()
	prov := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{})
	p := &oauth.OAuth2{ClientID: prov.ClientID, ClientSecret: prov.ClientSecret, AuthURL: prov.AuthURL, TokenURL: prov.TokenURL}
	h := testapp.Handler(t, oauthApp(appkit.OAuth2Auth("Example", p), prov.ItemsURL, quietLogger()))
	r := postJSON(t, h, "/oauth2/v1/access_token", map[string]any{"fields": map[string]any{"callback_uri": "https://svc/cb"}, "code": "not-a-code"})
	if r.status != 401 || r.body["message"] == "" || strings.Contains(string(r.raw), prov.ClientSecret) {
		t.Fatalf("bad code = %d %s", r.status, r.raw)
	}
	if r := postJSON(t, h, "/oauth2/v1/access_token", map[string]any{"fields": map[string]any{}}); r.status != 400 || !strings.Contains(r.body["message"].(string), "code is required") {
		t.Fatalf("no code = %d %s", r.status, r.raw)
	}
	if r := postJSON(t, h, "/oauth2/v1/authorize", map[string]any{"callback_uri": "not a url"}); r.status != 400 {
		t.Fatalf("bad callback = %d %s", r.status, r.raw)
	}
	prov.Close()
	r = postJSON(t, h, "/validate", map[string]any{"id": "oauth2", "fields": map[string]any{"access_token": "a", "refresh_token": "r", "expire_on": "2001-01-01T00:00:00Z"}})
	if r.status != 503 || r.body["tryLater"] != true {
		t.Fatalf("provider down = %d %s, want 503 tryLater: an outage says nothing about the account", r.status, r.raw)
	}
}

func TestOAuth1FlowThroughEndpoints(t *testing.T) {
	t.Parallel()
	prov := oauthtest.NewOAuth1Server(t, oauthtest.OAuth1Config{Method: "HMAC-SHA256"})
	p := &oauth.OAuth1{ConsumerKey: prov.ConsumerKey, ConsumerSecret: prov.ConsumerSecret,
		RequestTokenURL: prov.RequestTokenURL, AuthorizeURL: prov.AuthorizeURL, AccessTokenURL: prov.AccessTokenURL,
		Signature: oauth.HMACSHA256}
	h := testapp.Handler(t, oauthApp(appkit.OAuth1Auth("Example", p), prov.UserURL, quietLogger()))
	callback := "https://service.example.com/oauth1/callback?state=xyz"
	r := postJSON(t, h, "/oauth1/v1/authorize", map[string]any{"callback_uri": callback})
	if r.status != 200 || r.body["token"] == "" || r.body["secret"] == "" {
		t.Fatalf("authorize = %d %s", r.status, r.raw)
	}
	back, err := prov.Approve(context.Background(), r.body["redirect_uri"].(string))
	if err != nil {
		t.Fatalf("consent: %v", err)
	}
	if back.Query().Get("state") != "xyz" {
		t.Fatalf("callback lost the state: %s", back)
	}
	r = postJSON(t, h, "/oauth1/v1/access_token", map[string]any{
		"fields":         map[string]any{"access_token": r.body["token"], "access_secret": r.body["secret"], "callback_uri": callback},
		"oauth_verifier": back.Query().Get("oauth_verifier")})
	if r.status != 200 || r.body["access_token"] == nil || r.body["access_secret"] == nil {
		t.Fatalf("access_token = %d %s", r.status, r.raw)
	}
	r = postJSON(t, h, "/validate", map[string]any{"id": "oauth", "fields": map[string]any{"access_token": r.body["access_token"], "access_secret": r.body["access_secret"]}})
	if r.status != 200 || r.body["name"] == "" {
		t.Fatalf("validate = %d %s", r.status, r.raw)
	}
	r = postJSON(t, h, "/oauth1/v1/access_token", map[string]any{
		"fields": map[string]any{"access_token": "forged", "access_secret": "forged"}, "oauth_verifier": "nope"})
	if r.status != 401 {
		t.Fatalf("forged access_token = %d %s", r.status, r.raw)
	}
}

func TestAtMostOneAuthenticationPerOAuthVersion(t *testing.T) {
	t.Parallel()
	p := &oauth.OAuth2{ClientID: "c", ClientSecret: "s", AuthURL: "https://p.example.com/auth", TokenURL: "https://p.example.com/token"}
	app := oauthApp(appkit.OAuth2Auth("A", p), "", quietLogger())
	app.Auth = append(app.Auth, appkit.OAuth2Auth("B", p))
	if err := app.Check(); err == nil || !strings.Contains(err.Error(), "at most one OAuth 2 authentication") {
		t.Fatalf("Check = %v", err)
	}
	bad := oauthApp(appkit.OAuth2Auth("A", &oauth.OAuth2{ClientID: "c"}), "", quietLogger())
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), `authentication "oauth2"`) {
		t.Fatalf("Check of an incomplete OAuth 2 config = %v", err)
	}
}
