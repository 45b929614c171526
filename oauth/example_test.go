package oauth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"

	"github.com/appkitgo/appkit/oauth"
)

// An OAuth 2 flow against a generic provider, with an Account callback that
// names the account. appkit mounts it with appkit.OAuth2Auth(name, flow).
func ExampleOAuth2() {
	flow := &oauth.OAuth2{
		ClientID:     "my-client",
		ClientSecret: "my-secret",
		AuthURL:      "https://provider.example/oauth/authorize",
		TokenURL:     "https://provider.example/oauth/token",
		Scopes:       []string{"read"},
		PKCE:         true,
		AuthParams:   map[string]string{"access_type": "offline"},
		Account: func(ctx context.Context, c *http.Client, _ *oauth2.Token) (map[string]any, error) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.provider.example/me", nil)
			resp, err := c.Do(req)
			if err != nil {
				return nil, err
			}
			defer resp.Body.Close()
			var me struct{ ID, Login string }
			if err := json.NewDecoder(resp.Body).Decode(&me); err != nil {
				return nil, err
			}
			return map[string]any{"name": me.Login, "account_id": me.ID}, nil
		},
	}
	if err := flow.Check(); err != nil {
		fmt.Println(err)
		return
	}
	redirect, _ := flow.Authorize(context.Background(), "https://service.example/oauth/callback", "state-1")
	u, _ := url.Parse(redirect)
	q := u.Query()
	fmt.Println(u.Host, q.Get("client_id"), q.Get("state"), q.Get("code_challenge_method"), q.Get("access_type"))
	// Output: provider.example my-client state-1 S256 offline
}

// Reading an expiry as the service may store it.
func ExampleParseExpiry() {
	for _, v := range []any{"2026-11-22T09:30:00Z", "2026-11-22 10:30:00.250+01:00", "2026-11-22T09:30:00", float64(1795339800)} {
		t, _ := oauth.ParseExpiry(v)
		fmt.Println(oauth.FormatExpiry(t))
	}
	// Output:
	// 2026-11-22T09:30:00Z
	// 2026-11-22T09:30:00Z
	// 2026-11-22T09:30:00Z
	// 2026-11-22T09:30:00Z
}
