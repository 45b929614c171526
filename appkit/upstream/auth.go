package upstream

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"golang.org/x/oauth2"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/oauth"
)

// Auth says how a request carries the account's credentials. Build one
// with [Bearer], [TokenHeader], [Basic], [QueryKey], [OAuth2], [OAuth1] or
// [ByAuth]; the zero value sends none. Credentials are added only to
// requests to the Client's origin (scheme, host and port of BaseURL).
type Auth struct {
	kind           authKind
	header, scheme string // token header
	field, field2  string // account keys
	param          string // query key
	oauth2         *oauth.OAuth2
	oauth1         *oauth.OAuth1
	byID           map[string]Auth
}

type authKind int

const (
	authNone authKind = iota
	authHeader
	authBasic
	authQuery
	authOAuth2
	authOAuth1
	authByID
)

// Bearer sends the account value field as "Authorization: Bearer <value>".
func Bearer(field string) Auth { return TokenHeader("Authorization", "Bearer", field) }

// TokenHeader sends the account value field in header, after scheme and a
// space when scheme is not empty: TokenHeader("Authorization", "token",
// "token") for "Authorization: token <value>", TokenHeader("X-Api-Key",
// "", "key") for "X-Api-Key: <value>".
func TokenHeader(header, scheme, field string) Auth {
	return Auth{kind: authHeader, header: http.CanonicalHeaderKey(header), scheme: scheme, field: field}
}

// Basic sends HTTP basic authentication with the account values userField
// and passwordField.
func Basic(userField, passwordField string) Auth {
	return Auth{kind: authBasic, field: userField, field2: passwordField}
}

// QueryKey sends the account value field as the query parameter param.
// The parameter is masked in logs and errors.
func QueryKey(param, field string) Auth { return Auth{kind: authQuery, param: param, field: field} }

// OAuth2 sends the account's OAuth 2 access token (the flow's Client). On
// a 401 the token is refreshed once through the flow (concurrent refreshes
// of one account are one provider call) and the request sent again; see
// the package doc for where the new tokens go.
func OAuth2(flow *oauth.OAuth2) Auth { return Auth{kind: authOAuth2, oauth2: flow} }

// OAuth1 signs requests with the account's OAuth 1 token (the flow's
// Client). OAuth 1 tokens are not refreshed: a 401 is an invalid account.
// The flow's HTTPClient carries these requests, not the Client's.
func OAuth1(flow *oauth.OAuth1) Auth { return Auth{kind: authOAuth1, oauth1: flow} }

// ByAuth picks the Auth by the account's authentication id (the "auth"
// key the service stores with the account), for apps with several
// authentications. An account without one (or with an id not in byID)
// gets the first entry, in the order of the ids, whose credentials it
// holds (OAuth: an access_token).
func ByAuth(byID map[string]Auth) Auth { return Auth{kind: authByID, byID: byID} }

// resolve picks the concrete Auth for an account.
func (a Auth) resolve(acct appkit.Account) (Auth, error) {
	if a.kind != authByID {
		return a, nil
	}
	if x, ok := a.byID[acct.Auth()]; ok {
		return x, nil
	}
	for _, id := range slices.Sorted(maps.Keys(a.byID)) {
		if x := a.byID[id]; x.holds(acct) {
			return x, nil
		}
	}
	return Auth{}, fmt.Errorf("%w: the account holds the credentials of none of the authentications %v", ErrUnauthorized, slices.Sorted(maps.Keys(a.byID)))
}

// holds reports whether the account has the values this Auth sends.
func (a Auth) holds(acct appkit.Account) bool {
	switch a.kind {
	case authHeader, authQuery:
		return acct.String(a.field) != ""
	case authBasic:
		return acct.String(a.field) != "" && acct.String(a.field2) != ""
	case authOAuth2, authOAuth1:
		return acct.String(oauth.KeyAccessToken) != ""
	case authByID:
		return false
	}
	return true
}

// secrets are the account values that must never be shown.
func (a Auth) secrets(acct appkit.Account) []string {
	var out []string
	add := func(k string) {
		if v := acct.String(k); v != "" {
			out = append(out, v)
		}
	}
	switch a.kind {
	case authHeader, authQuery:
		add(a.field)
	case authBasic:
		add(a.field2)
		// The header carries base64("user:password"): an upstream that
		// echoes it must not show it decodable.
		if u, p := acct.String(a.field), acct.String(a.field2); p != "" {
			for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
				out = append(out, enc.EncodeToString([]byte(u+":"+p)), enc.EncodeToString([]byte(p)))
			}
		}
	case authByID:
		for _, x := range a.byID {
			out = append(out, x.secrets(acct)...)
		}
	}
	for _, k := range []string{oauth.KeyAccessToken, oauth.KeyRefreshToken, oauth.KeyAccessSecret} {
		add(k)
	}
	return out
}

// identity is a key of the account's credentials for the per-account rate
// limiter and the refreshed-token cache: a hash, never the secret itself.
func (a Auth) identity(acct appkit.Account) string {
	h := sha256.New()
	for _, k := range []string{a.field, a.field2, oauth.KeyAccessToken, oauth.KeyRefreshToken} {
		if k != "" {
			fmt.Fprintf(h, "%s=%s\x00", k, acct.String(k))
		}
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// errNoCredential is a required account value that is empty.
var errNoCredential = errors.New("the account has no credential for the upstream")

// apply adds the credentials to a request to the origin and returns the
// transport to send it with: base, or the OAuth flow's (which signs only
// requests to the origin of the first request). accessToken, when set,
// replaces the account's (a token refreshed after a 401).
func (a Auth) apply(ctx context.Context, r *http.Request, acct appkit.Account, accessToken string, base http.RoundTripper) (http.RoundTripper, error) {
	need := func(k string) (string, error) {
		v := acct.String(k)
		if v == "" {
			return "", fmt.Errorf("%w: %w (%q is empty)", ErrUnauthorized, errNoCredential, k)
		}
		return v, nil
	}
	switch a.kind {
	case authHeader:
		v, err := need(a.field)
		if err != nil {
			return nil, err
		}
		if a.scheme != "" {
			v = a.scheme + " " + v
		}
		r.Header.Set(a.header, v)
	case authBasic:
		u, err := need(a.field)
		if err != nil {
			return nil, err
		}
		p, err := need(a.field2)
		if err != nil {
			return nil, err
		}
		r.SetBasicAuth(u, p)
	case authQuery:
		v, err := need(a.field)
		if err != nil {
			return nil, err
		}
		q := r.URL.Query()
		q.Set(a.param, v)
		r.URL.RawQuery = q.Encode()
	case authOAuth2:
		fields := map[string]any(acct)
		if accessToken != "" {
			fields = map[string]any{oauth.KeyAccessToken: accessToken, oauth.KeyTokenType: acct.String(oauth.KeyTokenType)}
		}
		c, err := a.oauth2.Client(context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: base}), fields)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnauthorized, err)
		}
		return c.Transport, nil
	case authOAuth1:
		c, err := a.oauth1.Client(ctx, acct)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnauthorized, err)
		}
		return c.Transport, nil
	}
	return base, nil
}

// The forms of [Bearer], [TokenHeader], [Basic] and [QueryKey] that take
// the typed handle of the account field instead of its id, the handle the
// app's Auth lists (appkit.TokenAuthToken for an appkit.TokenAuth, or one
// made with appkit.SecretAccountField): the id is then written once, and a
// renamed field cannot leave the client reading the old one.

// BearerFrom sends the value of the account field h as
// "Authorization: Bearer <value>": upstream.BearerFrom(appkit.TokenAuthToken).
func BearerFrom(h appkit.AccountFieldOf[string]) Auth { return Bearer(h.ID()) }

// TokenHeaderFrom is [TokenHeader] with the account field's handle.
func TokenHeaderFrom(header, scheme string, h appkit.AccountFieldOf[string]) Auth {
	return TokenHeader(header, scheme, h.ID())
}

// BasicFrom is [Basic] with the account fields' handles:
// upstream.BasicFrom(appkit.BasicAuthUsername, appkit.BasicAuthPassword).
func BasicFrom(user, password appkit.AccountFieldOf[string]) Auth {
	return Basic(user.ID(), password.ID())
}

// QueryKeyFrom is [QueryKey] with the account field's handle.
func QueryKeyFrom(param string, h appkit.AccountFieldOf[string]) Auth {
	return QueryKey(param, h.ID())
}
