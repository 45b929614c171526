package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/rs/zerolog"
	"golang.org/x/oauth2"

	"github.com/appkitgo/appkit/appkit"
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

// maxAPIAnswer bounds an answer of the provider's API.
const maxAPIAnswer = 4 << 20

// newApp declares the app: one OAuth 2 authentication and one type, items.
func newApp(cfg Config) *appkit.App {
	api := strings.TrimSuffix(cfg.APIURL, "/")
	flow := &oauth.OAuth2{
		ClientID:     cfg.ClientID,
		ClientSecret: cfg.ClientSecret,
		AuthURL:      cfg.AuthURL,
		TokenURL:     cfg.TokenURL,
		Scopes:       cfg.Scopes,
		PKCE:         cfg.PKCE,
		PKCEKey:      cfg.PKCEKey,
		// The profile names the account and confirms the token on /validate.
		Account: func(ctx context.Context, c *http.Client, _ *oauth2.Token) (map[string]any, error) {
			var me struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			}
			if err := getJSON(ctx, c, api+"/me", &me); err != nil {
				return nil, err
			}
			return map[string]any{"name": me.Name, "account_id": me.ID}, nil
		},
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
			Data: appkit.Pages(itemsPage(api)),
		}}},
	}
}

// Item is one item of the provider: the struct declares the type's schema.
type Item struct {
	ID    string `appkit:"id"`
	Title string `appkit:"name,name=Title"`
}

// pageCursor is the page cursor: the provider's page number (an object on
// the wire, as nextPageConfig must be).
type pageCursor struct {
	Page int `json:"page"`
}

// itemsPage loads one page of items.
func itemsPage(api string) appkit.PageFunc[Item, pageCursor] {
	return func(ctx context.Context, req *appkit.DataRequest, cursor *pageCursor) (*appkit.Page[Item, pageCursor], error) {
		page := 1
		if cursor != nil {
			page = cursor.Page
		}
		if page < 1 {
			return nil, appkit.BadRequest("pagination: page %d is not a page number", page)
		}
		c, err := req.HTTPClient(ctx)
		if err != nil {
			return nil, appkit.InvalidAccount("%v", err)
		}
		var out struct {
			Items []struct {
				ID    string `json:"id"`
				Title string `json:"title"`
			} `json:"items"`
			Next int `json:"next"`
		}
		if err := getJSON(ctx, c, api+"/items?page="+strconv.Itoa(page), &out); err != nil {
			return nil, err
		}
		p := &appkit.Page[Item, pageCursor]{Items: make([]Item, 0, len(out.Items))}
		for _, it := range out.Items {
			if it.ID == "" {
				return nil, fmt.Errorf("the provider answered an item without an id on page %d", page)
			}
			p.Items = append(p.Items, Item{ID: it.ID, Title: it.Title})
		}
		if out.Next > page { // a next page that does not move forward would loop
			p.Next = &pageCursor{Page: out.Next}
		}
		return p, nil
	}
}

// getJSON reads one answer of the provider's API. A refused token is an
// invalid account (401); throttling, outages and network failures are
// temporary (the service retries the page later).
func getJSON(ctx context.Context, c *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL adds nothing for the user
		}
		return appkit.TryLater(fmt.Errorf("the provider's API is unreachable: %w", err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return appkit.InvalidAccount("the provider refused the account's token (HTTP %d); connect the account again", resp.StatusCode)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return appkit.TryLater(fmt.Errorf("the provider's API answered HTTP %d", resp.StatusCode))
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the provider's API answered HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIAnswer+1))
	if err != nil {
		return appkit.TryLater(fmt.Errorf("reading the provider's answer: %w", err))
	}
	if len(body) > maxAPIAnswer {
		return fmt.Errorf("the provider's answer is larger than %d bytes", maxAPIAnswer)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("the provider's answer is not the expected JSON: %w", err)
	}
	return nil
}
