package oauth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/appkitgo/appkit/internal/secretmask"
	"golang.org/x/oauth2"
)

// OAuth2 configures the authorization-code flow against one provider
// (authentication id "oauth2"). Set the fields before the first use and do
// not change them afterwards; the methods are safe for concurrent use.
// Check reports configuration errors once, when the app is built.
type OAuth2 struct {
	// ClientID and ClientSecret identify the app at the provider.
	ClientID, ClientSecret string
	// AuthURL is the provider's authorization endpoint (where the user is
	// sent); TokenURL its token endpoint.
	AuthURL, TokenURL string
	// Scopes are requested at authorization, space-separated on the wire.
	Scopes []string
	// PKCE sends an S256 code challenge at authorization and its verifier
	// at the token exchange (see the package doc for how the verifier is
	// carried between the two requests).
	PKCE bool
	// PKCEKey is the key from which PKCE verifiers are derived; at least 16
	// bytes, the same on every replica of the app. Empty: derived from
	// ClientSecret. Without a client secret either, Check refuses PKCE
	// unless PKCESingleProcess is set.
	PKCEKey []byte
	// PKCESingleProcess allows PKCE without PKCEKey and without a client
	// secret: the verifier key is then random per process, so an
	// authorization and its exchange must reach the same process (one
	// replica, no restart in between); with several replicas, exchanges
	// would fail at the provider with a verifier mismatch.
	PKCESingleProcess bool
	// AuthStyle is how the client authenticates at the token endpoint; the
	// zero value tries HTTP Basic, then form parameters, and remembers what
	// worked.
	AuthStyle oauth2.AuthStyle
	// AuthParams are extra query parameters of the authorization URL
	// (access_type=offline, prompt=consent, audience=...). The parameters
	// the flow sets itself are refused by Check.
	AuthParams map[string]string
	// RefreshMargin: /validate refreshes a token that expires within this
	// margin. Zero means DefaultRefreshMargin. When a refresh yields a token
	// that lives less than twice the margin, the effective margin becomes
	// half that lifetime (see the package doc), so that short-lived tokens
	// are not refreshed on every validation.
	RefreshMargin time.Duration
	// Timeout bounds each outgoing call to the provider. Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// HTTPClient is the base client of the calls to the provider and of the
	// clients returned by Client: its Transport, CheckRedirect and Jar are
	// used (without a CheckRedirect, token endpoint calls do not follow
	// redirects); Timeout is replaced by the flow's for provider calls and
	// kept for the clients of Client. Nil means http.DefaultTransport.
	HTTPClient *http.Client
	// Account, optional, is called after a token exchange and after each
	// validation (refreshed or not) with a client authenticated by the
	// token. Its keys are merged into the account data, except the token
	// keys: say "name" (the friendly account name that /validate answers)
	// and "account_id". An error fails the step (see [IsTemporary]),
	// except after a successful refresh: the new tokens are answered anyway
	// (with the stored name), since the consumed refresh token is gone.
	Account func(ctx context.Context, client *http.Client, tok *oauth2.Token) (map[string]any, error)
	// Now is the clock that token expiries are computed and checked with
	// (the expiry of a new token is Now plus the provider's expires_in);
	// nil means time.Now. Tests set it to move past an expiry without
	// waiting.
	Now func() time.Time

	once    sync.Once
	rt      *oauth2Runtime
	initErr error
}

// oauth2Runtime is what the flow derives once from its configuration.
type oauth2Runtime struct {
	conf    *oauth2.Config
	key     []byte // PKCE verifier key
	timeout time.Duration
	margin  time.Duration
	client  *http.Client // for the token endpoint
	host    string       // of AuthURL: the default account name
	now     func() time.Time
	flights flights
	// lifetime is the last lifetime (nanoseconds) of a token observed at a
	// refresh, 0 before the first; it caps the effective refresh margin.
	lifetime atomic.Int64
}

// setExpiry measures a new token's expiry with the flow's clock: Now plus
// the provider's expires_in (golang.org/x/oauth2 measures it with
// time.Now).
func (rt *oauth2Runtime) setExpiry(tok *oauth2.Token) {
	if tok.ExpiresIn > 0 && tok.ExpiresIn < 1<<40 {
		tok.Expiry = rt.now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
}

// effectiveMargin is the refresh margin: RefreshMargin, or half the token
// lifetime observed at the last refresh when that is shorter than twice
// the margin.
func (rt *oauth2Runtime) effectiveMargin() time.Duration {
	m := rt.margin
	if l := time.Duration(rt.lifetime.Load()); l > 0 && l < 2*m {
		m = l / 2
	}
	return m
}

// reservedAuthParams are set by the flow itself.
var reservedAuthParams = []string{"response_type", "client_id", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method"}

// Check reports declaration errors: missing client id, endpoints that are
// not absolute http(s) URLs, negative durations, an unknown AuthStyle,
// AuthParams that the flow sets itself, a short PKCEKey, PKCE without a
// PKCEKey and without a client secret unless PKCESingleProcess is set.
func (p *OAuth2) Check() error {
	var errs []error
	if p.ClientID == "" {
		errs = append(errs, errors.New("ClientID is empty"))
	}
	if err := checkEndpoint("AuthURL", p.AuthURL); err != nil {
		errs = append(errs, err)
	}
	if err := checkEndpoint("TokenURL", p.TokenURL); err != nil {
		errs = append(errs, err)
	}
	for _, s := range p.Scopes {
		if s == "" || strings.ContainsAny(s, " \t\r\n") {
			errs = append(errs, fmt.Errorf("scope %q is empty or holds a space (give one scope per element)", s))
		}
	}
	if p.RefreshMargin < 0 {
		errs = append(errs, fmt.Errorf("the RefreshMargin %s is negative", p.RefreshMargin))
	}
	if p.Timeout < 0 {
		errs = append(errs, fmt.Errorf("the Timeout %s is negative", p.Timeout))
	}
	switch p.AuthStyle {
	case oauth2.AuthStyleAutoDetect, oauth2.AuthStyleInParams, oauth2.AuthStyleInHeader:
	default:
		errs = append(errs, fmt.Errorf("AuthStyle %d is unknown", p.AuthStyle))
	}
	for _, k := range reservedAuthParams {
		if _, ok := p.AuthParams[k]; ok {
			errs = append(errs, fmt.Errorf("AuthParams: %q is set by the flow", k))
		}
	}
	if p.PKCE && len(p.PKCEKey) == 0 && p.ClientSecret == "" && !p.PKCESingleProcess {
		errs = append(errs, errors.New("PKCE without PKCEKey and without ClientSecret would use a random verifier key per process "+
			"(exchanges fail when they reach another replica or a restarted process): set PKCEKey, or PKCESingleProcess to accept that"))
	}
	if len(p.PKCEKey) > 0 && len(p.PKCEKey) < 16 {
		errs = append(errs, fmt.Errorf("PKCEKey has %d bytes, at least 16 are needed", len(p.PKCEKey)))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("oauth2: %w", err)
	}
	return nil
}

func (p *OAuth2) runtime() (*oauth2Runtime, error) {
	p.once.Do(func() {
		if err := p.Check(); err != nil {
			p.initErr = err
			return
		}
		rt := &oauth2Runtime{
			conf: &oauth2.Config{
				ClientID:     p.ClientID,
				ClientSecret: p.ClientSecret,
				Endpoint:     oauth2.Endpoint{AuthURL: p.AuthURL, TokenURL: p.TokenURL, AuthStyle: p.AuthStyle},
				Scopes:       append([]string(nil), p.Scopes...),
			},
			timeout: timeoutOr(p.Timeout),
			margin:  p.RefreshMargin,
			now:     p.Now,
		}
		if rt.now == nil {
			rt.now = time.Now
		}
		rt.flights.now = rt.now
		if rt.margin == 0 {
			rt.margin = DefaultRefreshMargin
		}
		rt.client = providerClient(p.HTTPClient, rt.timeout)
		if u, err := url.Parse(p.AuthURL); err == nil {
			rt.host = u.Hostname()
		}
		switch {
		case len(p.PKCEKey) > 0:
			rt.key = append([]byte(nil), p.PKCEKey...)
		case p.ClientSecret != "":
			m := hmac.New(sha256.New, []byte(p.ClientSecret))
			m.Write([]byte("appkit oauth2 pkce verifier key v1"))
			rt.key = m.Sum(nil)
		default:
			rt.key = make([]byte, 32)
			_, _ = rand.Read(rt.key)
		}
		p.rt = rt
	})
	return p.rt, p.initErr
}

// verifier derives the PKCE code verifier of a callback URI: 43 characters
// of base64url (RFC 7636 section 4.1).
func (rt *oauth2Runtime) verifier(clientID, callbackURI string) string {
	m := hmac.New(sha256.New, rt.key)
	m.Write([]byte(clientID))
	m.Write([]byte{0})
	m.Write([]byte(callbackURI))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Authorize answers POST /oauth2/v1/authorize: the provider's authorization
// URL with the client id, the callback as redirect_uri, the scopes, the
// given state unchanged, the PKCE challenge when configured, and AuthParams.
// It makes no network call. An empty state is refused ([ErrMissingState]):
// the returned URL must carry the state, and without it the service could
// not tie the callback to its flow.
func (p *OAuth2) Authorize(ctx context.Context, callbackURI, state string) (string, error) {
	rt, err := p.runtime()
	if err != nil {
		return "", err
	}
	if err := checkCallback(callbackURI); err != nil {
		return "", fmt.Errorf("oauth2 authorize: %w", err)
	}
	if state == "" {
		return "", fmt.Errorf("oauth2 authorize: %w", ErrMissingState)
	}
	opts := make([]oauth2.AuthCodeOption, 0, len(p.AuthParams)+2)
	for k, v := range p.AuthParams {
		opts = append(opts, oauth2.SetAuthURLParam(k, v))
	}
	opts = append(opts, oauth2.SetAuthURLParam("redirect_uri", callbackURI))
	if p.PKCE {
		opts = append(opts, oauth2.S256ChallengeOption(rt.verifier(p.ClientID, callbackURI)))
	}
	return rt.conf.AuthCodeURL(state, opts...), nil
}

// Exchange answers POST /oauth2/v1/access_token: it trades the code for a
// token (sending the callback as redirect_uri, and the PKCE verifier) and
// returns the account data: access_token, refresh_token (when given),
// token_type, expires_on and expire_on (RFC 3339 UTC, when the provider
// gives an expiry), scope (when the provider echoes it), and the keys
// returned by Account. A failure is a *ProviderError or a sentinel error.
// callbackURI is required and checked as Authorize checks it
// ([ErrBadCallback]); it must be the one given to Authorize (the provider
// compares the redirect_uri, and the PKCE verifier is derived from it).
func (p *OAuth2) Exchange(ctx context.Context, callbackURI, code string) (map[string]any, error) {
	rt, err := p.runtime()
	if err != nil {
		return nil, err
	}
	if err := checkCallback(callbackURI); err != nil {
		return nil, fmt.Errorf("oauth2 token exchange: %w", err)
	}
	if code == "" {
		return nil, fmt.Errorf("oauth2 token exchange: %w", ErrMissingCode)
	}
	secrets := []string{p.ClientSecret, code}
	opts := []oauth2.AuthCodeOption{oauth2.SetAuthURLParam("redirect_uri", callbackURI)}
	if p.PKCE {
		v := rt.verifier(p.ClientID, callbackURI)
		secrets = append(secrets, v)
		opts = append(opts, oauth2.VerifierOption(v))
	}
	cctx, cancel := rt.callContext(ctx)
	defer cancel()
	tok, err := rt.conf.Exchange(cctx, code, opts...)
	if err != nil {
		return nil, rt.fail(cctx, "token exchange", err, secrets)
	}
	rt.setExpiry(tok)
	out := tokenData(tok)
	extra, err := p.account(ctx, rt, tok)
	if err != nil {
		return nil, err
	}
	return merge(out, extra), nil
}

// Validate answers POST /validate for the id "oauth2". fields are the
// stored account: access_token, refresh_token, expire_on or expires_on.
//
// When the token expires within RefreshMargin (or the account has a refresh
// token but no access token, or an unreadable expiry), the token is
// refreshed and the answer holds name, access_token, refresh_token (the
// rotated one, or the same), expire_on and expires_on, token_type, and the
// keys of Account: the service stores them in the account. Concurrent
// validations of one account (one refresh token) refresh once and share
// the result; a validation that repeats an already used refresh token within
// a minute gets the same result again instead of a second refresh (a
// rotating provider would refuse the old token). When the provider answers
// no expires_in, the answer clears the stored expiry (expire_on and
// expires_on are ""), so that the stale one does not trigger a refresh on
// every validation. Once the provider granted new tokens, a failing Account
// does not fail the validation: the tokens are answered with the stored
// name (or the provider's host), and remembered for a retry like any other
// result.
//
// Otherwise no provider call is made except Account, when set, which
// confirms the token is still accepted; the answer is {name} plus the keys
// of Account. An account without a known expiry is not refreshed: it is
// treated as valid until the provider refuses it. The name is Account's
// "name", else the account's stored "name", else the provider's host.
func (p *OAuth2) Validate(ctx context.Context, fields map[string]any) (map[string]any, error) {
	rt, err := p.runtime()
	if err != nil {
		return nil, err
	}
	access := str(fields, KeyAccessToken)
	refresh := str(fields, KeyRefreshToken)
	if access == "" && refresh == "" {
		return nil, fmt.Errorf("oauth2 validate: %w", ErrNoAccessToken)
	}
	var key [sha256.Size]byte
	if refresh != "" {
		key = sha256.Sum256([]byte(refresh))
		// A refresh token this process just consumed: the service has not
		// stored the answer yet (or lost it); answer the same new tokens.
		if out, ok := rt.flights.lookup(string(key[:])); ok {
			return out, nil
		}
	}
	exp, known, expErr := accountExpiry(fields)
	soon := known && !rt.now().Add(rt.effectiveMargin()).Before(exp)
	if refresh != "" && (access == "" || expErr != nil || soon) {
		name := str(fields, KeyName)
		return rt.flights.do(ctx, string(key[:]), func(fctx context.Context) (map[string]any, time.Time, error) {
			return p.refresh(fctx, rt, refresh, name)
		})
	}
	if known && !rt.now().Before(exp) {
		return nil, fmt.Errorf("oauth2 validate: %w (it expired at %s)", ErrTokenExpired, FormatExpiry(exp))
	}
	tok := &oauth2.Token{AccessToken: access, TokenType: str(fields, KeyTokenType), RefreshToken: refresh, Expiry: exp}
	extra, err := p.account(ctx, rt, tok)
	if err != nil {
		return nil, err
	}
	out := map[string]any{KeyName: p.name(rt, extra, str(fields, KeyName))}
	return merge(out, extra), nil
}

// refresh runs one refresh_token grant and the Account lookup of its token.
// It returns the account data and the new token's expiry (zero if unknown).
func (p *OAuth2) refresh(ctx context.Context, rt *oauth2Runtime, refresh, storedName string) (map[string]any, time.Time, error) {
	cctx, cancel := rt.callContext(ctx)
	defer cancel()
	// An empty access token makes the token source refresh at once.
	tok, err := rt.conf.TokenSource(cctx, &oauth2.Token{RefreshToken: refresh}).Token()
	if err != nil {
		return nil, time.Time{}, rt.fail(cctx, "token refresh", err, []string{p.ClientSecret, refresh})
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = refresh
	}
	rt.setExpiry(tok)
	out := tokenData(tok)
	if tok.Expiry.IsZero() {
		// No expires_in: clear the stored expiry, which has passed or is
		// about to, so that later validations do not refresh again.
		out[KeyExpiresOn], out[KeyExpireOn] = "", ""
	} else if l := tok.Expiry.Sub(rt.now()); l > 0 {
		rt.lifetime.Store(int64(l))
	}
	// The grant consumed the old refresh token: from here on the new tokens
	// must reach the service whatever Account says.
	extra, _ := p.account(ctx, rt, tok)
	out = merge(out, extra)
	out[KeyName] = p.name(rt, extra, storedName)
	return out, tok.Expiry, nil
}

// Client returns a client that authenticates every request with the
// account's access_token (and token_type). It never refreshes: the service
// refreshes through /validate before it calls the app, and a refresh here
// would not reach the service's storage (a rotated refresh token would be
// lost). Requests should carry their own context. The timeout is the
// HTTPClient's, or DefaultAPITimeout. A client set in ctx under
// oauth2.HTTPClient provides the base transport. The token is sent only to
// the origin (scheme and host) of the request made: a redirect to another
// origin is followed without it (HTTPClient's CheckRedirect, when set,
// decides whether redirects are followed at all).
func (p *OAuth2) Client(ctx context.Context, account map[string]any) (*http.Client, error) {
	access := str(account, KeyAccessToken)
	if access == "" {
		return nil, fmt.Errorf("oauth2 client: %w", ErrNoAccessToken)
	}
	tok := &oauth2.Token{AccessToken: access, TokenType: str(account, KeyTokenType)}
	return p.tokenClient(ctx, tok), nil
}

func (p *OAuth2) tokenClient(ctx context.Context, tok *oauth2.Token) *http.Client {
	base := baseTransport(p.HTTPClient)
	if hc, ok := ctx.Value(oauth2.HTTPClient).(*http.Client); ok && hc != nil {
		base = baseTransport(hc)
	}
	return apiClient(p.HTTPClient, &oauth2.Transport{Source: oauth2.StaticTokenSource(tok), Base: base}, base)
}

// account calls Account, if set, with a client for tok.
func (p *OAuth2) account(ctx context.Context, rt *oauth2Runtime, tok *oauth2.Token) (map[string]any, error) {
	if p.Account == nil {
		return nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, rt.timeout)
	defer cancel()
	m, err := p.Account(cctx, p.tokenClient(cctx, tok), tok)
	if err != nil {
		return nil, &accountError{
			msg: "oauth2 account lookup: " + scrub(err.Error(), []string{p.ClientSecret, tok.AccessToken, tok.RefreshToken}),
			err: err,
		}
	}
	return m, nil
}

func (p *OAuth2) name(rt *oauth2Runtime, extra map[string]any, stored string) string {
	if n, ok := extra[KeyName].(string); ok && n != "" {
		return n
	}
	if stored != "" {
		return stored
	}
	return rt.host
}

// callContext bounds a provider call and makes x/oauth2 use the flow's
// client.
func (rt *oauth2Runtime) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, rt.client)
	return context.WithTimeout(ctx, rt.timeout)
}

// fail turns an x/oauth2 error into a ProviderError without secrets.
func (rt *oauth2Runtime) fail(ctx context.Context, op string, err error, secrets []string) error {
	// The client's credentials in a Basic header (AuthStyleInHeader), as
	// x/oauth2 spells them, in case the provider echoes the header.
	secrets = append(secrets, secretmask.BasicSpellings(url.QueryEscape(rt.conf.ClientID), url.QueryEscape(rt.conf.ClientSecret))...)
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		pe := &ProviderError{
			Version:     "oauth2",
			Op:          op,
			Code:        scrub(re.ErrorCode, secrets),
			Description: scrub(re.ErrorDescription, secrets),
		}
		if re.Response != nil {
			pe.Status = re.Response.StatusCode
		}
		if pe.Code == "" && pe.Description == "" {
			// Not an RFC 6749 error: reduce the body (an HTML page says
			// nothing useful and may be large).
			c, d := problem(re.Body)
			pe.Code, pe.Description = scrub(c, secrets), scrub(d, secrets)
		}
		return pe
	}
	var ue *url.Error
	if errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return transportError(ctx, "oauth2", op, err, rt.timeout, secrets)
	}
	// A 2xx answer that is not a token (no access_token, not JSON).
	return &ProviderError{Version: "oauth2", Op: op, Description: scrub(strings.TrimPrefix(err.Error(), "oauth2: "), secrets)}
}

// tokenData is the account data of a token. Both expiry keys are written:
// the access_token step names the expiry expires_on and the /validate
// refresh expire_on; writing both keeps every copy the service stores
// up to date, whichever it sends back.
func tokenData(tok *oauth2.Token) map[string]any {
	out := map[string]any{KeyAccessToken: tok.AccessToken}
	if tok.RefreshToken != "" {
		out[KeyRefreshToken] = tok.RefreshToken
	}
	if tok.TokenType != "" {
		out[KeyTokenType] = tok.TokenType
	}
	if !tok.Expiry.IsZero() {
		e := FormatExpiry(tok.Expiry)
		out[KeyExpiresOn] = e
		out[KeyExpireOn] = e
	}
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		out["scope"] = s
	}
	return out
}

// tokenKeys are never overwritten by an Account callback.
var tokenKeys = map[string]bool{
	KeyAccessToken: true, KeyAccessSecret: true, KeyRefreshToken: true,
	KeyTokenType: true, KeyExpiresOn: true, KeyExpireOn: true, KeySessionHandle: true,
}

// merge adds extra's keys to out, except the token keys.
func merge(out, extra map[string]any) map[string]any {
	for k, v := range extra {
		if !tokenKeys[k] {
			out[k] = v
		}
	}
	return out
}

// accountError is a failing Account callback, with a scrubbed message.
type accountError struct {
	msg string
	err error
}

func (e *accountError) Error() string { return e.msg }
func (e *accountError) Unwrap() error { return e.err }
