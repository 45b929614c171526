package oauth

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dghubble/oauth1"
)

// SignatureMethod is how OAuth 1 requests are signed (RFC 5849 section 3.4).
type SignatureMethod int

// The signature methods. The zero value is HMAC-SHA1.
const (
	HMACSHA1 SignatureMethod = iota
	HMACSHA256
	RSASHA1
)

// String returns the oauth_signature_method value.
func (m SignatureMethod) String() string {
	switch m {
	case HMACSHA1:
		return "HMAC-SHA1"
	case HMACSHA256:
		return "HMAC-SHA256"
	case RSASHA1:
		return "RSA-SHA1"
	}
	return "SignatureMethod(" + strconv.Itoa(int(m)) + ")"
}

// OAuth1 configures the OAuth 1.0a flow (RFC 5849) against one provider
// (authentication id "oauth"). Set the fields before the first use and do
// not change them afterwards; the methods are safe for concurrent use.
type OAuth1 struct {
	// ConsumerKey and ConsumerSecret identify the app at the provider (the
	// secret is not needed for RSA-SHA1).
	ConsumerKey, ConsumerSecret string
	// The provider's three endpoints.
	RequestTokenURL, AuthorizeURL, AccessTokenURL string
	// Signature selects the signature method; the zero value is HMAC-SHA1.
	Signature SignatureMethod
	// PrivateKey signs with RSA-SHA1.
	PrivateKey *rsa.PrivateKey
	// Realm, optional, is sent in the Authorization header.
	Realm string
	// Timeout bounds each outgoing call to the provider. Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// HTTPClient is the base client of the provider calls and of the
	// clients returned by Client (see OAuth2.HTTPClient).
	HTTPClient *http.Client
	// Now is the clock that token expiries are computed and checked with;
	// nil means time.Now (see OAuth2.Now).
	Now func() time.Time
	// Account, optional, is called after the access token step and on
	// Validate with a client signing with the token; its keys are merged
	// into the account data (say "name", "account_id").
	Account func(ctx context.Context, client *http.Client, token, secret string) (map[string]any, error)

	once    sync.Once
	initErr error
	timeout time.Duration
	host    string
}

// Check reports declaration errors: missing consumer key, endpoints that
// are not absolute http(s) URLs, an unknown signature method, a missing (or
// superfluous) RSA key, a missing consumer secret for HMAC, a negative
// timeout.
func (p *OAuth1) Check() error {
	var errs []error
	if p.ConsumerKey == "" {
		errs = append(errs, errors.New("ConsumerKey is empty"))
	}
	for _, e := range []struct{ name, url string }{
		{"RequestTokenURL", p.RequestTokenURL}, {"AuthorizeURL", p.AuthorizeURL}, {"AccessTokenURL", p.AccessTokenURL},
	} {
		if err := checkEndpoint(e.name, e.url); err != nil {
			errs = append(errs, err)
		}
	}
	switch p.Signature {
	case HMACSHA1, HMACSHA256:
		if p.ConsumerSecret == "" {
			errs = append(errs, fmt.Errorf("%s needs ConsumerSecret", p.Signature))
		}
		if p.PrivateKey != nil {
			errs = append(errs, fmt.Errorf("PrivateKey is set but the signature method is %s (use RSASHA1)", p.Signature))
		}
	case RSASHA1:
		if p.PrivateKey == nil {
			errs = append(errs, errors.New("RSA-SHA1 needs PrivateKey"))
		} else if err := p.PrivateKey.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("PrivateKey: %w", err))
		}
	default:
		errs = append(errs, fmt.Errorf("signature method %d is unknown", int(p.Signature)))
	}
	if p.Timeout < 0 {
		errs = append(errs, fmt.Errorf("the Timeout %s is negative", p.Timeout))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("oauth1: %w", err)
	}
	return nil
}

func (p *OAuth1) init() error {
	p.once.Do(func() {
		p.initErr = p.Check()
		p.timeout = timeoutOr(p.Timeout)
		if u, err := url.Parse(p.AuthorizeURL); err == nil {
			p.host = u.Hostname()
		}
	})
	return p.initErr
}

func (p *OAuth1) signer() oauth1.Signer {
	switch p.Signature {
	case HMACSHA256:
		return &oauth1.HMAC256Signer{ConsumerSecret: p.ConsumerSecret}
	case RSASHA1:
		return &oauth1.RSASigner{PrivateKey: p.PrivateKey}
	}
	return &oauth1.HMACSigner{ConsumerSecret: p.ConsumerSecret}
}

// config is a fresh dghubble configuration (its methods write to it).
func (p *OAuth1) config(callback string, hc *http.Client) *oauth1.Config {
	return &oauth1.Config{
		ConsumerKey:    p.ConsumerKey,
		ConsumerSecret: p.ConsumerSecret,
		CallbackURL:    callback,
		Endpoint:       oauth1.Endpoint{RequestTokenURL: p.RequestTokenURL, AuthorizeURL: p.AuthorizeURL, AccessTokenURL: p.AccessTokenURL},
		Realm:          p.Realm,
		Signer:         p.signer(),
		Noncer:         oauth1.Base64Noncer{},
		HTTPClient:     hc,
	}
}

// call prepares one provider call bound to ctx and the timeout.
func (p *OAuth1) call(ctx context.Context) (*recorder, *http.Client, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	rec := &recorder{ctx: ctx, base: baseTransport(p.HTTPClient)}
	hc := providerClient(p.HTTPClient, p.timeout)
	hc.Transport = rec
	return rec, hc, cancel
}

// Authorize answers POST /oauth1/v1/authorize: it obtains a request token
// from the provider, sending callbackURI (with its state query parameter)
// as oauth_callback, and returns the authorization URL and the request
// token and secret (which the service posts back to Exchange as
// fields.access_token and fields.access_secret).
func (p *OAuth1) Authorize(ctx context.Context, callbackURI string) (redirectURI, token, secret string, err error) {
	if err := p.init(); err != nil {
		return "", "", "", err
	}
	if err := checkCallback(callbackURI); err != nil {
		return "", "", "", fmt.Errorf("oauth1 authorize: %w", err)
	}
	rec, hc, cancel := p.call(ctx)
	defer cancel()
	cfg := p.config(callbackURI, hc)
	token, secret, err = cfg.RequestToken()
	if err != nil {
		return "", "", "", p.fail(rec, "request token", err, []string{p.ConsumerSecret})
	}
	u, err := cfg.AuthorizationURL(token)
	if err != nil {
		return "", "", "", fmt.Errorf("oauth1 authorize: AuthorizeURL: %w", err)
	}
	return u.String(), token, secret, nil
}

// Exchange answers POST /oauth1/v1/access_token: it trades the request
// token, its secret and the verifier for the access token. The account data
// holds access_token and access_secret; when the provider answers the
// session extension's oauth_expires_in, also expires_on and expire_on; its
// oauth_session_handle as session_handle (not refresh_token: the session
// refresh is not implemented, the user connects again when the token
// expired); of the provider's other parameters only user_id and
// screen_name (a whitelist, so that a provider parameter cannot overwrite
// a key the service keeps for itself); then the keys of Account. callbackURI is not needed by OAuth
// 1.0a (the verifier binds the callback) and is accepted for the protocol's
// sake.
func (p *OAuth1) Exchange(ctx context.Context, requestToken, requestSecret, callbackURI, verifier string) (map[string]any, error) {
	if err := p.init(); err != nil {
		return nil, err
	}
	if requestToken == "" || verifier == "" {
		return nil, fmt.Errorf("oauth1 access token: %w", ErrMissingVerifier)
	}
	rec, hc, cancel := p.call(ctx)
	defer cancel()
	secrets := []string{p.ConsumerSecret, requestSecret, verifier}
	cfg := p.config(callbackURI, hc)
	token, secret, err := cfg.AccessToken(requestToken, requestSecret, verifier)
	if err != nil {
		return nil, p.fail(rec, "access token", err, secrets)
	}
	out := map[string]any{KeyAccessToken: token, KeyAccessSecret: secret}
	if _, body := rec.answer(); body != nil {
		vals, _ := url.ParseQuery(strings.TrimSpace(string(body)))
		for _, k := range []string{"user_id", "screen_name"} {
			if v := vals.Get(k); v != "" {
				out[k] = v
			}
		}
		if s := vals.Get("oauth_expires_in"); s != "" {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && n < 1<<40 {
				e := FormatExpiry(p.now().Add(time.Duration(n) * time.Second))
				out[KeyExpiresOn], out[KeyExpireOn] = e, e
			}
		}
		if h := vals.Get("oauth_session_handle"); h != "" {
			out[KeySessionHandle] = h
		}
	}
	extra, err := p.account(ctx, token, secret)
	if err != nil {
		return nil, err
	}
	return merge(out, extra), nil
}

func (p *OAuth1) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Validate answers POST /validate for the id "oauth": the account must hold
// access_token and access_secret (the secret is optional with RSA-SHA1,
// which does not use it, as for Client); a stored expiry (expire_on or
// expires_on) that has passed fails with [ErrTokenExpired]; Account, when
// set, confirms the token is accepted and gives the name. The answer is {name} plus Account's keys.
// The name is Account's "name", else the stored "name", else the
// provider's host.
func (p *OAuth1) Validate(ctx context.Context, fields map[string]any) (map[string]any, error) {
	if err := p.init(); err != nil {
		return nil, err
	}
	token, secret, err := p.accessCredentials(fields, "oauth1 validate")
	if err != nil {
		return nil, err
	}
	// An unreadable expiry is treated as unknown, like a missing one.
	exp, known, _ := accountExpiry(fields)
	if known && !p.now().Before(exp) {
		return nil, fmt.Errorf("oauth1 validate: %w (it expired at %s)", ErrTokenExpired, FormatExpiry(exp))
	}
	extra, err := p.account(ctx, token, secret)
	if err != nil {
		return nil, err
	}
	name := str(fields, KeyName)
	if n, ok := extra[KeyName].(string); ok && n != "" {
		name = n
	}
	if name == "" {
		name = p.host
	}
	return merge(map[string]any{KeyName: name}, extra), nil
}

// Client returns a client that signs every request with the account's
// access_token and access_secret. Requests should carry their own context;
// the timeout is the HTTPClient's, or DefaultAPITimeout. Only requests to
// the origin (scheme and host) of the request made are signed: a redirect
// to another origin is followed without the Authorization header.
func (p *OAuth1) Client(ctx context.Context, account map[string]any) (*http.Client, error) {
	if err := p.init(); err != nil {
		return nil, err
	}
	token, secret, err := p.accessCredentials(account, "oauth1 client")
	if err != nil {
		return nil, err
	}
	return p.tokenClient(ctx, token, secret), nil
}

// accessCredentials reads the account's access_token and access_secret,
// the secret optional with RSA-SHA1 (which does not use it); op prefixes
// the error of a missing one.
func (p *OAuth1) accessCredentials(account map[string]any, op string) (token, secret string, err error) {
	token, secret = str(account, KeyAccessToken), str(account, KeyAccessSecret)
	if token == "" {
		return "", "", fmt.Errorf("%s: %w", op, ErrNoAccessToken)
	}
	if secret == "" && p.Signature != RSASHA1 {
		return "", "", fmt.Errorf("%s: %w", op, ErrNoAccessSecret)
	}
	return token, secret, nil
}

func (p *OAuth1) tokenClient(ctx context.Context, token, secret string) *http.Client {
	plain := baseTransport(p.HTTPClient)
	base := &http.Client{Transport: plain}
	c := oauth1.NewClient(context.WithValue(ctx, oauth1.HTTPClient, base), p.config("", nil), oauth1.NewToken(token, secret))
	return apiClient(p.HTTPClient, c.Transport, plain)
}

func (p *OAuth1) account(ctx context.Context, token, secret string) (map[string]any, error) {
	if p.Account == nil {
		return nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	m, err := p.Account(cctx, p.tokenClient(cctx, token, secret), token, secret)
	if err != nil {
		return nil, &accountError{
			msg: "oauth1 account lookup: " + scrub(err.Error(), []string{p.ConsumerSecret, token, secret}),
			err: err,
		}
	}
	return m, nil
}

// fail turns a dghubble error into a ProviderError, reading the provider's
// answer from the recorder: RFC 5849 problem reporting (oauth_problem,
// oauth_problem_advice), an RFC 6749-style JSON error, or a short text.
func (p *OAuth1) fail(rec *recorder, op string, err error, secrets []string) error {
	status, body := rec.answer()
	if status == 0 {
		return transportError(rec.ctx, "oauth1", op, err, p.timeout, secrets)
	}
	pe := &ProviderError{Version: "oauth1", Op: op, Status: status}
	if status == http.StatusOK || status == http.StatusCreated {
		// The answer came but lacked the token or the callback confirmation.
		pe.Description = scrub(strings.TrimPrefix(err.Error(), "oauth1: "), secrets)
		return pe
	}
	pe.Code, pe.Description = problem(body)
	pe.Code, pe.Description = scrub(pe.Code, secrets), scrub(pe.Description, secrets)
	return pe
}
