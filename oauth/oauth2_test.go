package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/appkitgo/appkit/oauth"
	"github.com/appkitgo/appkit/oauth/oauthtest"
)

const callback = "https://service.example/oauth/callback"

// newOAuth2 configures the flow against an in-process provider, with an
// Account callback that reads the provider's profile.
func newOAuth2(srv *oauthtest.OAuth2Server, mod func(*oauth.OAuth2)) *oauth.OAuth2 {
	p := &oauth.OAuth2{
		ClientID:     srv.ClientID,
		ClientSecret: srv.ClientSecret,
		AuthURL:      srv.AuthURL,
		TokenURL:     srv.TokenURL,
		Scopes:       []string{"read", "write"},
		Timeout:      5 * time.Second,
		Account: func(ctx context.Context, c *http.Client, _ *oauth2.Token) (map[string]any, error) {
			var me struct{ ID, Name string }
			if err := getJSON(ctx, c, srv.UserURL, &me); err != nil {
				return nil, err
			}
			return map[string]any{"name": me.Name, "account_id": me.ID}, nil
		},
	}
	if mod != nil {
		mod(p)
	}
	return p
}

func getJSON(ctx context.Context, c *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// connect runs authorize → consent → callback → access_token.
func connect(t *testing.T, srv *oauthtest.OAuth2Server, p *oauth.OAuth2) map[string]any {
	t.Helper()
	acct, err := p.Exchange(t.Context(), callback, approvedCode(t, srv, p, callback))
	if err != nil {
		t.Fatalf("Exchange: %v", err)
	}
	return acct
}

func expiryOf(t *testing.T, v any) time.Time {
	t.Helper()
	e, err := oauth.ParseExpiry(v)
	if err != nil || e.IsZero() {
		t.Fatalf("expiry %v: %v", v, err)
	}
	return e
}

// apiStatus calls the provider's API with an account's client.
func apiStatus(t *testing.T, p interface {
	Client(context.Context, map[string]any) (*http.Client, error)
}, acct map[string]any, u string) int {
	t.Helper()
	c, err := p.Client(t.Context(), acct)
	if err != nil {
		t.Fatalf("Client: %v", err)
	}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestOAuth2FullFlow(t *testing.T) {
	t.Parallel()
	for _, pkce := range []bool{false, true} {
		t.Run(fmt.Sprintf("pkce=%v", pkce), func(t *testing.T) {
			srv := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{ForcePKCE: pkce})
			p := newOAuth2(srv, func(p *oauth.OAuth2) { p.PKCE = pkce })
			if err := p.Check(); err != nil {
				t.Fatal(err)
			}
			acct := connect(t, srv, p)

			// The access_token step's account data.
			for _, k := range []string{"access_token", "refresh_token", "expires_on", "expire_on"} {
				if s, _ := acct[k].(string); s == "" {
					t.Fatalf("account data lacks %s: %v", k, acct)
				}
			}
			if acct["name"] != srv.UserName || acct["account_id"] != srv.UserID {
				t.Fatalf("Account keys not merged: %v", acct)
			}
			exp := expiryOf(t, acct["expires_on"])
			if d := time.Until(exp); d < 55*time.Minute || d > 61*time.Minute {
				t.Fatalf("expires_on %v is not about an hour away", exp)
			}
			if acct["expires_on"] != acct["expire_on"] {
				t.Fatalf("expires_on %v != expire_on %v", acct["expires_on"], acct["expire_on"])
			}
			if code := apiStatus(t, p, acct, srv.ItemsURL); code != http.StatusOK {
				t.Fatalf("data call with the token: %d", code)
			}

			// A fresh token validates without a refresh.
			v, err := p.Validate(t.Context(), acct)
			if err != nil {
				t.Fatalf("Validate fresh: %v", err)
			}
			if v["name"] != srv.UserName || v["access_token"] != nil || srv.Refreshes() != 0 {
				t.Fatalf("Validate fresh = %v, refreshes %d; want only the name, no refresh", v, srv.Refreshes())
			}

			// Expired (as the service stores it): refreshed, rotated.
			expired := maps.Clone(acct)
			expired["expire_on"] = oauth.FormatExpiry(time.Now().Add(-time.Minute))
			r1, err := p.Validate(t.Context(), expired)
			if err != nil {
				t.Fatalf("Validate expired: %v", err)
			}
			if srv.Refreshes() != 1 {
				t.Fatalf("refreshes = %d, want 1", srv.Refreshes())
			}
			if r1["access_token"] == acct["access_token"] || r1["refresh_token"] == acct["refresh_token"] || r1["refresh_token"] == "" {
				t.Fatalf("refresh did not rotate: %v", r1)
			}
			if r1["name"] != srv.UserName || r1["expire_on"] == nil || r1["expire_on"] != r1["expires_on"] {
				t.Fatalf("refresh answer %v lacks name or expire_on", r1)
			}
			if !expiryOf(t, r1["expire_on"]).After(time.Now().Add(50 * time.Minute)) {
				t.Fatalf("refreshed expire_on %v is not in the future", r1["expire_on"])
			}
			if code := apiStatus(t, p, r1, srv.UserURL); code != http.StatusOK {
				t.Fatalf("data call with the refreshed token: %d", code)
			}
			if code := apiStatus(t, p, acct, srv.UserURL); code != http.StatusUnauthorized {
				t.Fatalf("data call with the replaced token: %d, want 401", code)
			}

			// A retry with the consumed refresh token gets the same answer.
			r2, err := p.Validate(t.Context(), expired)
			if err != nil || r2["access_token"] != r1["access_token"] || srv.Refreshes() != 1 {
				t.Fatalf("retry with the consumed refresh token = %v, %v (refreshes %d)", r2, err, srv.Refreshes())
			}

			// Soon expiring (within the margin) refreshes with the rotated token.
			next := maps.Clone(acct)
			maps.Copy(next, r1)
			next["expire_on"] = oauth.FormatExpiry(time.Now().Add(2 * time.Minute))
			r3, err := p.Validate(t.Context(), next)
			if err != nil {
				t.Fatalf("Validate soon-expiring: %v", err)
			}
			if srv.Refreshes() != 2 || r3["refresh_token"] == r1["refresh_token"] {
				t.Fatalf("soon-expiring token: refreshes %d, answer %v", srv.Refreshes(), r3)
			}
		})
	}
}

func TestOAuth2AuthorizeURL(t *testing.T) {
	t.Parallel()
	p := &oauth.OAuth2{
		ClientID: "cid", ClientSecret: "csecret-123456", PKCE: true,
		AuthURL: "https://provider.example/authorize?tenant=t1", TokenURL: "https://provider.example/token",
		Scopes:     []string{"read", "write"},
		AuthParams: map[string]string{"access_type": "offline"},
	}
	const state = "a b&c=d/é"
	got, err := p.Authorize(t.Context(), callback+"?x=1", state)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	want := map[string]string{
		"tenant": "t1", "response_type": "code", "client_id": "cid", "redirect_uri": callback + "?x=1",
		"scope": "read write", "state": state, "access_type": "offline", "code_challenge_method": "S256",
	}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q (url %s)", k, q.Get(k), v, got)
		}
	}
	if len(q.Get("code_challenge")) != 43 {
		t.Errorf("code_challenge %q is not an S256 challenge", q.Get("code_challenge"))
	}
	if strings.Contains(got, p.ClientSecret) {
		t.Errorf("the authorization URL holds the client secret: %s", got)
	}
	// The same callback gives the same challenge (the verifier is derived).
	again, _ := p.Authorize(t.Context(), callback+"?x=1", "other")
	u2, _ := url.Parse(again)
	if u2.Query().Get("code_challenge") != q.Get("code_challenge") {
		t.Error("the challenge of one callback changed between authorizations")
	}

	for _, bad := range []string{"", "/relative", "ftp://x/cb", "https://"} {
		if _, err := p.Authorize(t.Context(), bad, "s"); !errors.Is(err, oauth.ErrBadCallback) {
			t.Errorf("callback %q: err = %v, want ErrBadCallback", bad, err)
		}
	}
}

func TestOAuth2PKCEAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{ForcePKCE: true})
	a := newOAuth2(srv, func(p *oauth.OAuth2) { p.PKCE = true })
	b := newOAuth2(srv, func(p *oauth.OAuth2) { p.PKCE = true })
	other := newOAuth2(srv, func(p *oauth.OAuth2) { p.PKCE = true; p.PKCEKey = []byte("another-replica-key-0123") })
	noPKCE := newOAuth2(srv, nil)

	code := func(p *oauth.OAuth2) string { return approvedCode(t, srv, p, callback) }
	// Started on replica a, finished on replica b (same client secret).
	if _, err := b.Exchange(t.Context(), callback, code(a)); err != nil {
		t.Fatalf("exchange on another replica: %v", err)
	}
	// A replica with another key cannot redeem the code.
	_, err := other.Exchange(t.Context(), callback, code(a))
	var pe *oauth.ProviderError
	if !errors.As(err, &pe) || pe.Status != http.StatusBadRequest {
		t.Fatalf("exchange with another PKCE key: %v, want a 400 provider error", err)
	}
	// A provider that requires PKCE refuses an authorization without it.
	redirect, _ := noPKCE.Authorize(t.Context(), callback, "s")
	if back, err := srv.Approve(t.Context(), redirect); err == nil {
		t.Fatalf("authorization without PKCE was approved: %v", back)
	}
}

// assertNoSecrets fails if an error message holds any secret.
func assertNoSecrets(t *testing.T, err error, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(err.Error(), s) {
			t.Fatalf("error %q leaks a secret %q", err, s)
		}
	}
}

func TestOAuth2ExchangeFailures(t *testing.T) {
	t.Parallel()
	type result struct {
		status int
		code   string
		down   bool
	}
	cases := []struct {
		name string
		cfg  oauthtest.OAuth2Config
		mod  func(*oauth.OAuth2)
		// run returns the secrets in play and the error of the exchange.
		run  func(t *testing.T, srv *oauthtest.OAuth2Server, p *oauth.OAuth2) ([]string, error)
		want result
	}{
		{name: "bad code", want: result{status: 400, code: "invalid_grant"},
			run: func(t *testing.T, srv *oauthtest.OAuth2Server, p *oauth.OAuth2) ([]string, error) {
				_, err := p.Exchange(t.Context(), callback, "not-a-code-xyz")
				return []string{"not-a-code-xyz", srv.ClientSecret}, err
			}},
		{name: "code used twice", want: result{status: 400, code: "invalid_grant"},
			run: func(t *testing.T, srv *oauthtest.OAuth2Server, p *oauth.OAuth2) ([]string, error) {
				c := approvedCode(t, srv, p, callback)
				if _, err := p.Exchange(t.Context(), callback, c); err != nil {
					t.Fatal(err)
				}
				_, err := p.Exchange(t.Context(), callback, c)
				return []string{c, srv.ClientSecret}, err
			}},
		{name: "wrong redirect", want: result{status: 400, code: "invalid_grant"},
			run: func(t *testing.T, srv *oauthtest.OAuth2Server, p *oauth.OAuth2) ([]string, error) {
				c := approvedCode(t, srv, p, callback)
				_, err := p.Exchange(t.Context(), callback+"/elsewhere", c)
				return []string{c, srv.ClientSecret}, err
			}},
		{name: "redirect to an unregistered host", cfg: oauthtest.OAuth2Config{CallbackHost: "service.example"},
			want: result{status: 400, code: "invalid_grant"},
			run: func(t *testing.T, srv *oauthtest.OAuth2Server, p *oauth.OAuth2) ([]string, error) {
				c := approvedCode(t, srv, p, callback)
				_, err := p.Exchange(t.Context(), "https://evil.example/cb", c)
				return []string{c, srv.ClientSecret}, err
			}},
		{name: "wrong client secret", mod: func(p *oauth.OAuth2) { p.ClientSecret = "wrong-secret-987654" },
			want: result{status: 401, code: "invalid_client"},
			run: func(t *testing.T, srv *oauthtest.OAuth2Server, p *oauth.OAuth2) ([]string, error) {
				c := approvedCode(t, srv, p, callback)
				_, err := p.Exchange(t.Context(), callback, c)
				return []string{c, "wrong-secret-987654"}, err
			}},
		{name: "provider down", want: result{down: true},
			run: func(t *testing.T, srv *oauthtest.OAuth2Server, p *oauth.OAuth2) ([]string, error) {
				c := approvedCode(t, srv, p, callback)
				srv.Close()
				_, err := p.Exchange(t.Context(), callback, c)
				return []string{c, srv.ClientSecret}, err
			}},
		{name: "provider too slow", cfg: oauthtest.OAuth2Config{TokenDelay: 5 * time.Second},
			mod: func(p *oauth.OAuth2) { p.Timeout = 100 * time.Millisecond }, want: result{down: true},
			run: func(t *testing.T, srv *oauthtest.OAuth2Server, p *oauth.OAuth2) ([]string, error) {
				c := approvedCode(t, srv, p, callback)
				_, err := p.Exchange(t.Context(), callback, c)
				return []string{c, srv.ClientSecret}, err
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := oauthtest.NewOAuth2Server(t, tc.cfg)
			p := newOAuth2(srv, tc.mod)
			secrets, err := tc.run(t, srv, p)
			if err == nil {
				t.Fatal("exchange succeeded")
			}
			assertNoSecrets(t, err, secrets...)
			var pe *oauth.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err %T %v is not a ProviderError", err, err)
			}
			if tc.want.down {
				if !errors.Is(err, oauth.ErrProviderUnreachable) || !pe.Temporary() {
					t.Fatalf("err %v: want an unreachable, temporary provider", err)
				}
				return
			}
			if pe.Status != tc.want.status || pe.Code != tc.want.code || pe.Temporary() {
				t.Fatalf("err %q: status %d code %q, want %d %q", err, pe.Status, pe.Code, tc.want.status, tc.want.code)
			}
			if !strings.Contains(err.Error(), tc.want.code) {
				t.Fatalf("message %q does not say what the provider said", err)
			}
		})
	}
	t.Run("token endpoint redirects", func(t *testing.T) {
		srv := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{})
		var followed atomic.Bool
		elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed.Store(true) }))
		defer elsewhere.Close()
		redirector := httptest.NewServer(http.RedirectHandler(elsewhere.URL, http.StatusTemporaryRedirect))
		defer redirector.Close()
		p := newOAuth2(srv, func(p *oauth.OAuth2) { p.TokenURL = redirector.URL })
		_, err := p.Exchange(t.Context(), callback, approvedCode(t, srv, p, callback))
		var pe *oauth.ProviderError
		if !errors.As(err, &pe) || pe.Status != http.StatusTemporaryRedirect || followed.Load() {
			t.Fatalf("err = %v, followed %v; want the redirect refused, not followed", err, followed.Load())
		}
	})
	t.Run("missing code", func(t *testing.T) {
		srv := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{})
		if _, err := newOAuth2(srv, nil).Exchange(t.Context(), callback, ""); !errors.Is(err, oauth.ErrMissingCode) {
			t.Fatalf("err = %v, want ErrMissingCode", err)
		}
		if srv.Exchanges() != 0 {
			t.Fatal("the provider was called without a code")
		}
	})
}

// approvedCode runs authorize → consent and returns the code of the
// callback, which must be cb with the state preserved.
func approvedCode(t *testing.T, srv *oauthtest.OAuth2Server, p *oauth.OAuth2, cb string) string {
	t.Helper()
	const state = "st-42 &/é"
	redirect, err := p.Authorize(t.Context(), cb, state)
	if err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	back, err := srv.Approve(t.Context(), redirect)
	if err != nil {
		t.Fatalf("consent: %v", err)
	}
	if got := back.Scheme + "://" + back.Host + back.Path; got != cb {
		t.Fatalf("provider sent the user to %q, want the callback %q", got, cb)
	}
	if got := back.Query().Get("state"); got != state {
		t.Fatalf("state = %q, want %q preserved", got, state)
	}
	code := back.Query().Get("code")
	if code == "" {
		t.Fatalf("no code in the callback %s", back)
	}
	return code
}

// connected is a provider of cfg, a flow for it and an account connected
// through them.
func connected(t *testing.T, cfg oauthtest.OAuth2Config) (*oauthtest.OAuth2Server, *oauth.OAuth2, map[string]any) {
	t.Helper()
	srv := oauthtest.NewOAuth2Server(t, cfg)
	p := newOAuth2(srv, nil)
	return srv, p, connect(t, srv, p)
}

func expiredCopy(acct map[string]any) map[string]any {
	f := maps.Clone(acct)
	f["expire_on"] = oauth.FormatExpiry(time.Now().Add(-time.Hour))
	delete(f, "expires_on")
	return f
}

func TestOAuth2ValidateRevokedRefreshToken(t *testing.T) {
	t.Parallel()
	srv, p, acct := connected(t, oauthtest.OAuth2Config{})
	rt := acct["refresh_token"].(string)
	srv.RevokeRefreshToken(rt)
	_, err := p.Validate(t.Context(), expiredCopy(acct))
	var pe *oauth.ProviderError
	if !errors.As(err, &pe) || pe.Code != "invalid_grant" || pe.Op != "token refresh" {
		t.Fatalf("err = %v, want invalid_grant from the refresh", err)
	}
	assertNoSecrets(t, err, rt, srv.ClientSecret, acct["access_token"].(string))
}

func TestOAuth2ValidateProviderDown(t *testing.T) {
	t.Parallel()
	srv, p, acct := connected(t, oauthtest.OAuth2Config{})
	srv.Close()
	_, err := p.Validate(t.Context(), expiredCopy(acct))
	if !errors.Is(err, oauth.ErrProviderUnreachable) {
		t.Fatalf("err = %v, want ErrProviderUnreachable", err)
	}
	assertNoSecrets(t, err, acct["refresh_token"].(string), srv.ClientSecret)
}

func TestOAuth2ConcurrentValidateRefreshesOnce(t *testing.T) {
	t.Parallel()
	// The delay keeps the refresh in flight while the others arrive.
	srv, p, acct := connected(t, oauthtest.OAuth2Config{TokenDelay: 100 * time.Millisecond})
	fields := expiredCopy(acct)

	const n = 16
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make([]map[string]any, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = p.Validate(t.Context(), maps.Clone(fields))
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("validation %d: %v", i, errs[i])
		}
		if results[i]["access_token"] != results[0]["access_token"] || results[i]["refresh_token"] != results[0]["refresh_token"] {
			t.Fatalf("validation %d got other tokens: %v vs %v", i, results[i], results[0])
		}
	}
	if got := srv.Refreshes(); got != 1 {
		t.Fatalf("the provider saw %d refreshes, want exactly 1", got)
	}
	// Callers own their answers.
	results[0]["access_token"] = "changed"
	if r, _ := p.Validate(t.Context(), maps.Clone(fields)); r["access_token"] == "changed" {
		t.Fatal("a caller's change leaked into the shared result")
	}
}

func TestOAuth2RefreshSurvivesCancelledCaller(t *testing.T) {
	t.Parallel()
	slow, ps, acct := connected(t, oauthtest.OAuth2Config{TokenDelay: 300 * time.Millisecond})
	fields := expiredCopy(acct)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	if _, err := ps.Validate(ctx, fields); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
	// The refresh went on; a retry gets its result without a second refresh.
	r, err := ps.Validate(t.Context(), fields)
	if err != nil || r["access_token"] == acct["access_token"] {
		t.Fatalf("retry: %v %v", r, err)
	}
	if slow.Refreshes() != 1 {
		t.Fatalf("refreshes = %d, want 1", slow.Refreshes())
	}
}

func TestOAuth2ValidateWithoutRefresh(t *testing.T) {
	t.Parallel()
	past := oauth.FormatExpiry(time.Now().Add(-time.Minute))
	soon := oauth.FormatExpiry(time.Now().Add(time.Minute))
	later := time.Now().Add(3 * time.Hour).UTC().Format("2006-01-02T15:04:05.000") // no zone, millis
	cases := []struct {
		name    string
		fields  map[string]any
		account func() (map[string]any, error)
		want    error  // errors.Is target
		wantMsg string // substring of the error
		name2   string // expected name on success
	}{
		{name: "no token", fields: map[string]any{}, want: oauth.ErrNoAccessToken},
		{name: "expired, no refresh token", fields: map[string]any{"access_token": "tok-abcdef", "expire_on": past}, want: oauth.ErrTokenExpired},
		{name: "no expiry: valid", fields: map[string]any{"access_token": "tok-abcdef"}, name2: "From Account"},
		{name: "soon, no refresh token: still valid", fields: map[string]any{"access_token": "tok-abcdef", "expire_on": soon}, name2: "From Account"},
		{name: "later, lenient format", fields: map[string]any{"access_token": "tok-abcdef", "refresh_token": "r-abcdef", "expires_on": later}, name2: "From Account"},
		{name: "stored name without Account", fields: map[string]any{"access_token": "tok-abcdef", "name": "Stored"}, account: nil, name2: "Stored"},
		{name: "Account refuses, message scrubbed", fields: map[string]any{"access_token": "tok-abcdef"},
			account: func() (map[string]any, error) { return nil, errors.New("token tok-abcdef was revoked") },
			wantMsg: "token [redacted] was revoked"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			p := &oauth.OAuth2{ClientID: "c", ClientSecret: "s-123456", AuthURL: "https://p.example/a", TokenURL: "http://127.0.0.1:1/token"}
			acc := tc.account
			if acc == nil && tc.name != "stored name without Account" {
				acc = func() (map[string]any, error) { return map[string]any{"name": "From Account"}, nil }
			}
			if acc != nil {
				p.Account = func(context.Context, *http.Client, *oauth2.Token) (map[string]any, error) { calls++; return acc() }
			}
			got, err := p.Validate(t.Context(), tc.fields)
			switch {
			case tc.want != nil:
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
			case tc.wantMsg != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantMsg) || strings.Contains(err.Error(), "tok-abcdef") {
					t.Fatalf("err = %v, want it to contain %q and no token", err, tc.wantMsg)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if got["name"] != tc.name2 || got["access_token"] != nil {
					t.Fatalf("got %v, want name %q and no token keys", got, tc.name2)
				}
			}
		})
	}
}

func TestOAuth2Client(t *testing.T) {
	t.Parallel()
	srv := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{})
	p := newOAuth2(srv, nil)
	if _, err := p.Client(t.Context(), map[string]any{"refresh_token": "r"}); !errors.Is(err, oauth.ErrNoAccessToken) {
		t.Fatalf("Client without a token: %v", err)
	}
	if code := apiStatus(t, p, map[string]any{"access_token": "forged"}, srv.UserURL); code != http.StatusUnauthorized {
		t.Fatalf("forged token: %d, want 401", code)
	}
	acct := connect(t, srv, p)
	var page struct {
		Items []struct{ ID string }
		Next  int
	}
	c, _ := p.Client(t.Context(), acct)
	if err := getJSON(t.Context(), c, srv.ItemsURL, &page); err != nil || len(page.Items) != 2 || page.Next != 2 {
		t.Fatalf("items page: %+v %v", page, err)
	}
}

func TestOAuth2Check(t *testing.T) {
	t.Parallel()
	ok := func() *oauth.OAuth2 {
		return &oauth.OAuth2{ClientID: "c", AuthURL: "https://p.example/auth", TokenURL: "https://p.example/token"}
	}
	cases := []struct {
		name string
		mod  func(*oauth.OAuth2)
		want string
	}{
		{"valid", func(*oauth.OAuth2) {}, ""},
		{"no client id", func(p *oauth.OAuth2) { p.ClientID = "" }, "ClientID is empty"},
		{"relative auth url", func(p *oauth.OAuth2) { p.AuthURL = "/auth" }, "AuthURL"},
		{"no token url", func(p *oauth.OAuth2) { p.TokenURL = "" }, "TokenURL is empty"},
		{"scope with space", func(p *oauth.OAuth2) { p.Scopes = []string{"a b"} }, "one scope per element"},
		{"negative margin", func(p *oauth.OAuth2) { p.RefreshMargin = -time.Second }, "RefreshMargin"},
		{"negative timeout", func(p *oauth.OAuth2) { p.Timeout = -time.Second }, "Timeout"},
		{"reserved auth param", func(p *oauth.OAuth2) { p.AuthParams = map[string]string{"state": "x"} }, `"state" is set by the flow`},
		{"short pkce key", func(p *oauth.OAuth2) { p.PKCEKey = []byte("short") }, "PKCEKey"},
		{"unknown auth style", func(p *oauth.OAuth2) { p.AuthStyle = 7 }, "AuthStyle"},
		{"pkce without key or secret", func(p *oauth.OAuth2) { p.PKCE = true }, "PKCESingleProcess"},
		{"pkce single process", func(p *oauth.OAuth2) { p.PKCE = true; p.PKCESingleProcess = true }, ""},
		{"pkce with a key", func(p *oauth.OAuth2) { p.PKCE = true; p.PKCEKey = []byte("0123456789abcdef") }, ""},
		{"pkce with a secret", func(p *oauth.OAuth2) { p.PKCE = true; p.ClientSecret = "s" }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := ok()
			tc.mod(p)
			if !wantCheck(t, p.Check(), tc.want) {
				return
			}
			// The methods refuse a configuration that fails Check.
			if _, err := p.Authorize(t.Context(), callback, "s"); err == nil {
				t.Fatal("Authorize accepted an invalid configuration")
			}
		})
	}
}

func TestPresets(t *testing.T) {
	t.Parallel()
	for _, p := range []*oauth.OAuth2{
		oauth.GitHub("id", "secret", "repo"), oauth.GitLab("id", "secret", "read_api"),
		oauth.Google("id", "secret", "openid"), oauth.Microsoft("", "id", "secret", "User.Read"),
	} {
		if err := p.Check(); err != nil {
			t.Errorf("%s: %v", p.AuthURL, err)
		}
	}
	ms := oauth.Microsoft("", "id", "secret", "User.Read")
	if !strings.Contains(ms.AuthURL, "/common/") || ms.Scopes[len(ms.Scopes)-1] != "offline_access" {
		t.Errorf("Microsoft preset: %s %v", ms.AuthURL, ms.Scopes)
	}
	g := oauth.Google("id", "secret")
	u, _ := g.Authorize(t.Context(), callback, "s")
	if !strings.Contains(u, "access_type=offline") || !strings.Contains(u, "code_challenge=") {
		t.Errorf("Google preset URL %s lacks offline access or PKCE", u)
	}
}

// The flow's clock, not the wall clock, decides when a token is due: a
// token an hour from expiry is kept, the same token a minute from expiry
// (by the clock) is refreshed, the new expiry is the clock plus
// expires_in, and a token past its expiry without a refresh token is
// refused. No real time passes.
func TestOAuth2ClockDecidesExpiry(t *testing.T) {
	t.Parallel()
	srv := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{})
	clock := oauth.NewTestClock(time.Date(2031, 5, 1, 9, 0, 0, 0, time.UTC))
	p := newOAuth2(srv, func(p *oauth.OAuth2) { p.Now = clock.Now })
	acct := connect(t, srv, p)
	if got, want := expiryOf(t, acct["expire_on"]), clock.Now().Add(time.Hour); !got.Equal(want) {
		t.Fatalf("a new token expires at %v, want the clock plus expires_in: %v", got, want)
	}
	if _, err := p.Validate(t.Context(), acct); err != nil || srv.Refreshes() != 0 {
		t.Fatalf("an hour from expiry: %v, %d refreshes; want no refresh", err, srv.Refreshes())
	}
	clock.Set(clock.Now().Add(time.Hour - oauth.DefaultRefreshMargin/2))
	r, err := p.Validate(t.Context(), acct)
	if err != nil || srv.Refreshes() != 1 {
		t.Fatalf("within the margin by the clock: %v, %d refreshes; want one", err, srv.Refreshes())
	}
	if got, want := expiryOf(t, r["expire_on"]), clock.Now().Add(time.Hour); !got.Equal(want) {
		t.Errorf("the refreshed token expires at %v, want %v", got, want)
	}
	noRefresh := map[string]any{"access_token": r["access_token"], "expire_on": r["expire_on"]}
	clock.Set(clock.Now().Add(time.Hour))
	if _, err := p.Validate(t.Context(), noRefresh); !errors.Is(err, oauth.ErrTokenExpired) {
		t.Errorf("past its expiry by the clock: %v, want ErrTokenExpired", err)
	}
}
