package console_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/oauth"
	"github.com/appkitgo/appkit/oauth/oauthtest"
)

type oauthItem struct {
	ID    string `appkit:"id"`
	Title string `appkit:"name"`
}

// An OAuth 2 authentication is a connect button: it starts the app's flow
// through the host, the provider sends the user to the host's callback
// page, and the account appears on the app's page.
func TestOAuthConnect(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	p := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{Items: 3})
	nop := zerolog.Nop()
	app := &appkit.App{ID: "oauthitems", Name: "OAuth items", Version: "1.0.0", Description: "OAuth 2 test app", Logger: &nop,
		Auth: []appkit.Auth{appkit.OAuth2Auth("Provider account", &oauth.OAuth2{ClientID: p.ClientID, ClientSecret: p.ClientSecret,
			AuthURL: p.AuthURL, TokenURL: p.TokenURL, Scopes: []string{"items:read"}})},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "items", Name: "Items", Data: appkit.All(func(context.Context, *appkit.DataRequest) ([]oauthItem, error) {
			return nil, nil
		})}}},
	}
	appURL := testapp.Serve(t, app)

	b := e.browser()
	tok := b.signIn()
	appPath := b.register(tok, appURL)
	form := b.get(appPath + "/accounts/new?auth=oauth2")
	if !strings.Contains(form.body, `action="`+appPath+`/oauth"`) || strings.Contains(form.body, `type="password"`) {
		t.Fatalf("the OAuth form is not a connect button:\n%s", form.body)
	}
	r := b.post(appPath+"/oauth", url.Values{"auth": {"oauth2"}, "csrf": {tok}})
	if r.code != http.StatusSeeOther || !strings.HasPrefix(r.location, p.AuthURL) {
		t.Fatalf("connect: %d %q", r.code, r.location)
	}
	back, err := p.Approve(context.Background(), r.location)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(back.String(), e.srv.URL+"/api/apps/oauth/callback?") {
		t.Fatalf("the provider sent the user to %s", back)
	}
	resp, err := http.Get(back.String())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Account connected") {
		t.Fatalf("callback: %d %s", resp.StatusCode, body)
	}
	page := b.get(appPath)
	if !strings.Contains(page.body, "<td>oauth2</td>") || !strings.Contains(page.body, "access_token") {
		t.Errorf("the connected account is not listed:\n%s", page.body)
	}
	// Without the page's token the flow does not start.
	if r := b.post(appPath+"/oauth", url.Values{"auth": {"oauth2"}}); r.code != http.StatusForbidden {
		t.Errorf("connect without csrf: %d", r.code)
	}
}
