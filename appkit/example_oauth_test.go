package appkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"

	"github.com/rs/zerolog"
	"golang.org/x/oauth2"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/oauth"
)

// An app whose accounts connect with OAuth 2: appkit serves the authorize
// and access_token endpoints, refreshes tokens through /validate, and gives
// handlers an authenticated client (req.HTTPClient).
func ExampleOAuth2Auth() {
	provider := &oauth.OAuth2{
		ClientID: "client-1", ClientSecret: "secret-1",
		AuthURL: "https://provider.example.com/oauth/authorize", TokenURL: "https://provider.example.com/oauth/token",
		Scopes: []string{"items:read"}, PKCE: true,
		// Account names the connected account from the provider's API.
		Account: func(ctx context.Context, c *http.Client, _ *oauth2.Token) (map[string]any, error) {
			return map[string]any{"name": "Ada at Provider"}, nil
		},
	}
	type item struct {
		ID   string `appkit:"id"`
		Name string `appkit:"name"`
	}
	app := &appkit.App{
		ID: "items", Name: "Items", Version: "1.0.0", Logger: &zerolog.Logger{},
		Auth: []appkit.Auth{appkit.OAuth2Auth("Provider account", provider)},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "item", Name: "Items",
			Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]item, error) {
				client, err := req.HTTPClient(ctx) // sends the account's access token
				if err != nil {
					return nil, err
				}
				_ = client // client.Get("https://provider.example.com/api/items") ...
				return nil, nil
			})}}},
	}
	h, err := app.Handler()
	if err != nil {
		panic(err)
	}
	// The service starts the flow: appkit answers where to send the user.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/oauth2/v1/authorize",
		strings.NewReader(`{"callback_uri":"https://service.example.com/oauth/callback","state":"st-42"}`)))
	var out struct {
		RedirectURI string `json:"redirect_uri"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	u, _ := url.Parse(out.RedirectURI)
	keys := make([]string, 0, len(u.Query()))
	for k := range u.Query() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(rec.Code, u.Host+u.Path)
	fmt.Println(keys)
	fmt.Println("state:", u.Query().Get("state"), "scope:", u.Query().Get("scope"))
	// Output:
	// 200 provider.example.com/oauth/authorize
	// [client_id code_challenge code_challenge_method redirect_uri response_type scope state]
	// state: st-42 scope: items:read
}
