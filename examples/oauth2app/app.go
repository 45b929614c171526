package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/rs/zerolog"
	"golang.org/x/oauth2"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
	"github.com/appkitgo/appkit/oauth"
)

// Config configures the app: the OAuth 2 provider and the API it protects.
type Config struct {
	// ClientID, ClientSecret, AuthURL, TokenURL, Scopes and PKCE configure
	// the authorization-code flow (see oauth.OAuth2).
	ClientID, ClientSecret string
	AuthURL, TokenURL      string
	Scopes                 []string
	PKCE                   bool
	// PKCEKey is the key of the PKCE verifiers (see oauth.OAuth2.PKCEKey);
	// PKCE without a client secret needs it.
	PKCEKey []byte
	// APIURL is the base of the provider's API: GET {APIURL}/me answers
	// {"id","name"}; GET {APIURL}/items?page=N answers
	// {"items":[{"id","title"}],"next":N+1 or 0}.
	APIURL string
	// Logger receives the request log; nil means appkit's default (stderr).
	Logger *zerolog.Logger
}

// newApp declares the app: one OAuth 2 authentication and one type, items.
// The provider's API is called through appkit/upstream: the account's
// token, JSON, paging, and the API's 401/429/5xx mapped onto the protocol.
func newApp(cfg Config) *appkit.App {
	flow := &oauth.OAuth2{
		ClientID:     cfg.ClientID,
		ClientSecret: cfg.ClientSecret,
		AuthURL:      cfg.AuthURL,
		TokenURL:     cfg.TokenURL,
		Scopes:       cfg.Scopes,
		PKCE:         cfg.PKCE,
		PKCEKey:      cfg.PKCEKey,
	}
	api := &upstream.Client{BaseURL: cfg.APIURL, Auth: upstream.OAuth2(flow), Logger: cfg.Logger}
	// The profile names the account and confirms the token on /validate.
	flow.Account = func(ctx context.Context, _ *http.Client, tok *oauth2.Token) (map[string]any, error) {
		account := appkit.Account{oauth.KeyAccessToken: tok.AccessToken, oauth.KeyTokenType: tok.TokenType}
		me, err := upstream.Get[struct{ ID, Name string }](ctx, api.For(account), "/me", nil)
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": me.Name, "account_id": me.ID}, nil
	}
	return &appkit.App{
		ID:          "oauth2app",
		Name:        "OAuth 2 items",
		Version:     "1.0.0",
		Description: "Synchronizes the items of an API protected by OAuth 2.",
		Website:     "https://github.com/appkitgo/appkit/tree/main/examples/oauth2app",
		Auth:        []appkit.Auth{appkit.OAuth2Auth("Provider account", flow)},
		Logger:      cfg.Logger,
		Sync: &appkit.Sync{Types: []appkit.Type{{
			ID: "items", Name: "Items", Default: true,
			// GET /items?page=N answers {"items": [...], "next": N+1 or 0}.
			Data: upstream.Items(api, "/items", upstream.BodyCursor("next", "page").Items("items"), toItem),
		}}},
	}
}

// Item is one item of the provider: the struct declares the type's schema.
type Item struct {
	ID    string `appkit:"id"`
	Title string `appkit:"name,name=Title"`
}

// apiItem is an item as the provider's API answers it.
type apiItem struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

func toItem(it apiItem) (Item, error) {
	if it.ID == "" {
		return Item{}, errors.New("the provider answered an item without an id")
	}
	return Item(it), nil
}
