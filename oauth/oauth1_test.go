package oauth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/oauth"
	"github.com/appkitgo/appkit/oauth/oauthtest"
)

const callback1 = "https://service.example/oauth1/callback?state=st-77"

var rsaKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func newOAuth1(srv *oauthtest.OAuth1Server, method oauth.SignatureMethod, mod func(*oauth.OAuth1)) *oauth.OAuth1 {
	p := &oauth.OAuth1{
		ConsumerKey: srv.ConsumerKey, ConsumerSecret: srv.ConsumerSecret,
		RequestTokenURL: srv.RequestTokenURL, AuthorizeURL: srv.AuthorizeURL, AccessTokenURL: srv.AccessTokenURL,
		Signature: method, Timeout: 5 * time.Second,
		Account: func(ctx context.Context, c *http.Client, _, _ string) (map[string]any, error) {
			var me struct{ ID, Name string }
			if err := getJSON(ctx, c, srv.UserURL, &me); err != nil {
				return nil, err
			}
			return map[string]any{"name": me.Name, "account_id": me.ID}, nil
		},
	}
	if method == oauth.RSASHA1 {
		p.PrivateKey = rsaKey()
		p.ConsumerSecret = ""
	}
	if mod != nil {
		mod(p)
	}
	return p
}

func newOAuth1Server(t *testing.T, method oauth.SignatureMethod, cfg oauthtest.OAuth1Config) *oauthtest.OAuth1Server {
	cfg.Method = method.String()
	if method == oauth.RSASHA1 {
		cfg.PublicKey = &rsaKey().PublicKey
	}
	return oauthtest.NewOAuth1Server(t, cfg)
}

// approved1 runs authorize → consent and returns the request token, its
// secret and the verifier the callback carries.
func approved1(t *testing.T, srv *oauthtest.OAuth1Server, p *oauth.OAuth1) (token, secret, verifier string) {
	t.Helper()
	redirect, token, secret, err := p.Authorize(t.Context(), callback1)
	if err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	if token == "" || secret == "" || !strings.HasPrefix(redirect, srv.AuthorizeURL+"?") || !strings.Contains(redirect, "oauth_token="+token) {
		t.Fatalf("Authorize = %q %q %q", redirect, token, secret)
	}
	back, err := srv.Approve(t.Context(), redirect)
	if err != nil {
		t.Fatalf("consent: %v", err)
	}
	if back.Query().Get("state") != "st-77" || back.Query().Get("oauth_token") != token {
		t.Fatalf("callback %s lost the state or the token", back)
	}
	return token, secret, back.Query().Get("oauth_verifier")
}

// connect1 runs authorize → consent → callback → access_token.
func connect1(t *testing.T, srv *oauthtest.OAuth1Server, p *oauth.OAuth1) map[string]any {
	t.Helper()
	token, secret, verifier := approved1(t, srv, p)
	acct, err := p.Exchange(t.Context(), token, secret, callback1, verifier)
	if err != nil {
		t.Fatalf("Exchange: %v", err)
	}
	return acct
}

func TestOAuth1FullFlow(t *testing.T) {
	t.Parallel()
	for _, m := range []oauth.SignatureMethod{oauth.HMACSHA1, oauth.HMACSHA256, oauth.RSASHA1} {
		t.Run(m.String(), func(t *testing.T) {
			srv := newOAuth1Server(t, m, oauthtest.OAuth1Config{})
			p := newOAuth1(srv, m, nil)
			if err := p.Check(); err != nil {
				t.Fatal(err)
			}
			acct := connect1(t, srv, p)
			if acct["access_token"] == "" || acct["access_secret"] == "" || acct["access_token"] == nil || acct["access_secret"] == nil {
				t.Fatalf("account data lacks the token: %v", acct)
			}
			if acct["user_id"] != srv.UserID || acct["name"] != srv.UserName || acct["account_id"] != srv.UserID {
				t.Fatalf("provider parameters or Account keys missing: %v", acct)
			}
			if _, ok := acct["expires_on"]; ok {
				t.Fatalf("expires_on without a session extension: %v", acct)
			}
			if code := apiStatus(t, p, acct, srv.UserURL); code != http.StatusOK {
				t.Fatalf("signed data call: %d", code)
			}
			v, err := p.Validate(t.Context(), acct)
			if err != nil || v["name"] != srv.UserName {
				t.Fatalf("Validate = %v, %v", v, err)
			}
			if srv.Rejected() != 0 || srv.AccessTokens() != 1 {
				t.Fatalf("rejected %d, tokens %d", srv.Rejected(), srv.AccessTokens())
			}
		})
	}
}

func TestOAuth1SessionExtension(t *testing.T) {
	t.Parallel()
	srv := newOAuth1Server(t, oauth.HMACSHA1, oauthtest.OAuth1Config{ExpiresIn: time.Hour})
	acct := connect1(t, srv, newOAuth1(srv, oauth.HMACSHA1, nil))
	exp := expiryOf(t, acct["expires_on"])
	if d := time.Until(exp); d < 59*time.Minute || d > 61*time.Minute {
		t.Fatalf("expires_on %v is not an hour away", exp)
	}
	if h, _ := acct["session_handle"].(string); !strings.HasPrefix(h, "sh-") {
		t.Fatalf("session_handle %v is not the provider's session handle", acct["session_handle"])
	}
	if _, ok := acct["refresh_token"]; ok {
		t.Fatalf("refresh_token %v is set, but no session refresh is implemented", acct["refresh_token"])
	}

	// The stored expiry is enforced by Validate.
	p := newOAuth1(srv, oauth.HMACSHA1, nil)
	if _, err := p.Validate(t.Context(), acct); err != nil {
		t.Fatalf("Validate before the expiry: %v", err)
	}
	expired := maps.Clone(acct)
	expired["expire_on"] = oauth.FormatExpiry(time.Now().Add(-time.Second))
	if _, err := p.Validate(t.Context(), expired); !errors.Is(err, oauth.ErrTokenExpired) {
		t.Fatalf("Validate after the expiry = %v, want ErrTokenExpired", err)
	}
}

// The access token answer's parameters are kept only from a whitelist: a
// provider's "auth" or "name" does not reach the account data.
func TestOAuth1AccessAnswerWhitelist(t *testing.T) {
	t.Parallel()
	srv := newOAuth1Server(t, oauth.HMACSHA1, oauthtest.OAuth1Config{AccessExtra: url.Values{
		"auth": {"evil"}, "name": {"evil"}, "lang": {"fr"}, "refresh_token": {"evil"},
	}})
	acct := connect1(t, srv, newOAuth1(srv, oauth.HMACSHA1, func(p *oauth.OAuth1) { p.Account = nil }))
	for _, k := range []string{"auth", "name", "lang", "refresh_token"} {
		if v, ok := acct[k]; ok {
			t.Errorf("account data holds the provider's %s=%v", k, v)
		}
	}
	if acct["user_id"] != srv.UserID || acct["screen_name"] != srv.UserName {
		t.Errorf("account data lacks user_id or screen_name: %v", acct)
	}
}

// RSA-SHA1 does not use the token secret: Validate accepts an account
// without one, as Client does.
func TestOAuth1RSAWithoutAccessSecret(t *testing.T) {
	t.Parallel()
	srv := newOAuth1Server(t, oauth.RSASHA1, oauthtest.OAuth1Config{})
	p := newOAuth1(srv, oauth.RSASHA1, func(p *oauth.OAuth1) { p.Account = nil })
	acct := map[string]any{"access_token": "at-1"}
	if _, err := p.Client(t.Context(), acct); err != nil {
		t.Fatalf("Client: %v", err)
	}
	if _, err := p.Validate(t.Context(), acct); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	h := newOAuth1(srv, oauth.HMACSHA1, nil)
	if _, err := h.Validate(t.Context(), acct); !errors.Is(err, oauth.ErrNoAccessSecret) {
		t.Fatalf("HMAC Validate without a secret = %v", err)
	}
	if _, err := h.Client(t.Context(), acct); !errors.Is(err, oauth.ErrNoAccessSecret) {
		t.Fatalf("HMAC Client without a secret = %v", err)
	}
}

// tamper changes a request after it was signed.
type tamper struct{ base http.RoundTripper }

func (tp tamper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	q := r.URL.Query()
	q.Set("extra", "added-after-signing")
	r.URL.RawQuery = q.Encode()
	return tp.base.RoundTrip(r)
}

func TestOAuth1Refusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		method  oauth.SignatureMethod // of the server
		mod     func(*oauth.OAuth1)
		step    string // "authorize", "exchange", "verifier", "reuse", "api"
		problem string
	}{
		{name: "wrong consumer secret", mod: func(p *oauth.OAuth1) { p.ConsumerSecret = "not-the-secret-4242" }, step: "authorize", problem: "signature_invalid"},
		{name: "wrong consumer key", mod: func(p *oauth.OAuth1) { p.ConsumerKey = "someone-else" }, step: "authorize", problem: "consumer_key_unknown"},
		{name: "method not accepted", mod: func(p *oauth.OAuth1) { p.Signature = oauth.HMACSHA256 }, step: "authorize", problem: "signature_method_rejected"},
		{name: "request changed after signing", mod: func(p *oauth.OAuth1) {
			p.HTTPClient = &http.Client{Transport: tamper{http.DefaultTransport}}
		}, step: "authorize", problem: "signature_invalid"},
		{name: "wrong request secret", step: "exchange", problem: "signature_invalid"},
		{name: "wrong verifier", step: "verifier", problem: "verifier_invalid"},
		{name: "request token used twice", step: "reuse", problem: "token_rejected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newOAuth1Server(t, tc.method, oauthtest.OAuth1Config{})
			p := newOAuth1(srv, tc.method, tc.mod)
			var err error
			var secrets []string
			switch tc.step {
			case "authorize":
				_, _, _, err = p.Authorize(t.Context(), callback1)
				secrets = []string{p.ConsumerSecret, srv.ConsumerSecret}
			default:
				tok, sec, verifier := approved1(t, srv, p)
				secrets = []string{sec, verifier, srv.ConsumerSecret}
				switch tc.step {
				case "exchange":
					_, err = p.Exchange(t.Context(), tok, "rs-forged-secret", callback1, verifier)
				case "verifier":
					_, err = p.Exchange(t.Context(), tok, sec, callback1, "v-guessed")
				case "reuse":
					if _, err := p.Exchange(t.Context(), tok, sec, callback1, verifier); err != nil {
						t.Fatal(err)
					}
					_, err = p.Exchange(t.Context(), tok, sec, callback1, verifier)
				}
			}
			var pe *oauth.ProviderError
			if !errors.As(err, &pe) || pe.Code != tc.problem || pe.Status != http.StatusUnauthorized {
				t.Fatalf("err = %v, want a 401 %s", err, tc.problem)
			}
			if !strings.Contains(err.Error(), tc.problem) {
				t.Fatalf("message %q does not say what the provider said", err)
			}
			assertNoSecrets(t, err, secrets...)
			if srv.Rejected() != 1 {
				t.Fatalf("provider rejected %d requests, want 1", srv.Rejected())
			}
		})
	}
	t.Run("forged access secret at the API", func(t *testing.T) {
		srv := newOAuth1Server(t, oauth.HMACSHA1, oauthtest.OAuth1Config{})
		p := newOAuth1(srv, oauth.HMACSHA1, nil)
		acct := connect1(t, srv, p)
		acct["access_secret"] = "as-forged"
		if code := apiStatus(t, p, acct, srv.UserURL); code != http.StatusUnauthorized {
			t.Fatalf("forged secret: %d, want 401", code)
		}
		if _, err := p.Validate(t.Context(), acct); err == nil || strings.Contains(err.Error(), "as-forged") {
			t.Fatalf("Validate with a forged secret: %v", err)
		}
	})
}

func TestOAuth1ProviderDown(t *testing.T) {
	t.Parallel()
	srv := newOAuth1Server(t, oauth.HMACSHA1, oauthtest.OAuth1Config{})
	p := newOAuth1(srv, oauth.HMACSHA1, nil)
	srv.Close()
	_, _, _, err := p.Authorize(t.Context(), callback1)
	if !errors.Is(err, oauth.ErrProviderUnreachable) {
		t.Fatalf("err = %v, want ErrProviderUnreachable", err)
	}
	assertNoSecrets(t, err, srv.ConsumerSecret)
}

func TestOAuth1Inputs(t *testing.T) {
	t.Parallel()
	srv := newOAuth1Server(t, oauth.HMACSHA1, oauthtest.OAuth1Config{})
	p := newOAuth1(srv, oauth.HMACSHA1, nil)
	if _, _, _, err := p.Authorize(t.Context(), "not a url"); !errors.Is(err, oauth.ErrBadCallback) {
		t.Errorf("bad callback: %v", err)
	}
	if _, err := p.Exchange(t.Context(), "rt", "rs", callback1, ""); !errors.Is(err, oauth.ErrMissingVerifier) {
		t.Errorf("missing verifier: %v", err)
	}
	if _, err := p.Client(t.Context(), map[string]any{"access_token": "at"}); !errors.Is(err, oauth.ErrNoAccessSecret) {
		t.Errorf("client without secret: %v", err)
	}
	if _, err := p.Validate(t.Context(), map[string]any{}); !errors.Is(err, oauth.ErrNoAccessToken) {
		t.Errorf("validate without token: %v", err)
	}
	if srv.Rejected() != 0 {
		t.Errorf("the provider was called: %d", srv.Rejected())
	}
}

func TestOAuth1Check(t *testing.T) {
	t.Parallel()
	ok := func() *oauth.OAuth1 {
		return &oauth.OAuth1{ConsumerKey: "k", ConsumerSecret: "s",
			RequestTokenURL: "https://p.example/rt", AuthorizeURL: "https://p.example/auth", AccessTokenURL: "https://p.example/at"}
	}
	cases := []struct {
		name string
		mod  func(*oauth.OAuth1)
		want string
	}{
		{"valid", func(*oauth.OAuth1) {}, ""},
		{"valid rsa", func(p *oauth.OAuth1) { p.Signature, p.PrivateKey, p.ConsumerSecret = oauth.RSASHA1, rsaKey(), "" }, ""},
		{"no consumer key", func(p *oauth.OAuth1) { p.ConsumerKey = "" }, "ConsumerKey is empty"},
		{"hmac without secret", func(p *oauth.OAuth1) { p.ConsumerSecret = "" }, "HMAC-SHA1 needs ConsumerSecret"},
		{"rsa without key", func(p *oauth.OAuth1) { p.Signature = oauth.RSASHA1 }, "RSA-SHA1 needs PrivateKey"},
		{"key with hmac", func(p *oauth.OAuth1) { p.PrivateKey = rsaKey() }, "use RSASHA1"},
		{"unknown method", func(p *oauth.OAuth1) { p.Signature = 9 }, "unknown"},
		{"bad url", func(p *oauth.OAuth1) { p.AccessTokenURL = "at" }, "AccessTokenURL"},
		{"negative timeout", func(p *oauth.OAuth1) { p.Timeout = -1 }, "Timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := ok()
			tc.mod(p)
			wantCheck(t, p.Check(), tc.want)
		})
	}
}

// wantCheck fails the test unless err is nil (want "") or says want; it
// reports whether err is the failure wanted.
func wantCheck(t *testing.T, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Check() = %v, want %q", err, want)
	}
	return true
}
