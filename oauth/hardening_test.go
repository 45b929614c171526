package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/appkitgo/appkit/oauth"
	"github.com/appkitgo/appkit/oauth/oauthtest"
)

// A refresh that succeeds at the provider but whose Account lookup fails
// still answers the new tokens (the old refresh token is consumed), and a
// retry with the old refresh token gets them again without a second
// refresh.
func TestOAuth2AccountFailureAfterRefreshKeepsTokens(t *testing.T) {
	t.Parallel()
	srv := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{})
	var fail atomic.Bool
	p := newOAuth2(srv, nil)
	account := p.Account
	p.Account = func(ctx context.Context, c *http.Client, tok *oauth2.Token) (map[string]any, error) {
		if fail.CompareAndSwap(true, false) {
			return nil, errors.New("profile API: 503")
		}
		return account(ctx, c, tok)
	}
	acct := connect(t, srv, p)
	stale := expiredCopy(acct)
	stale["name"] = "Stored Name"

	fail.Store(true)
	r1, err := p.Validate(t.Context(), maps.Clone(stale))
	if err != nil {
		t.Fatalf("Validate with a failing Account after a successful refresh: %v", err)
	}
	if srv.Refreshes() != 1 {
		t.Fatalf("refreshes = %d, want 1", srv.Refreshes())
	}
	rotated, _ := r1["refresh_token"].(string)
	if rotated == "" || rotated == acct["refresh_token"] || r1["access_token"] == acct["access_token"] {
		t.Fatalf("answer %v lacks the rotated tokens", r1)
	}
	if r1["name"] != "Stored Name" {
		t.Fatalf("name = %v, want the stored name", r1["name"])
	}

	// The answer was lost: the service retries with the consumed token.
	r2, err := p.Validate(t.Context(), maps.Clone(stale))
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if srv.Refreshes() != 1 || r2["refresh_token"] != rotated || r2["access_token"] != r1["access_token"] {
		t.Fatalf("retry = %v (refreshes %d), want the same rotated tokens without a second refresh", r2, srv.Refreshes())
	}
	if code := apiStatus(t, p, r2, srv.UserURL); code != http.StatusOK {
		t.Fatalf("data call with the kept token: %d", code)
	}
	// The rotated refresh token works.
	next := expiredCopy(r2)
	if _, err := p.Validate(t.Context(), next); err != nil || srv.Refreshes() != 2 {
		t.Fatalf("refresh with the rotated token: %v (refreshes %d)", err, srv.Refreshes())
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestIsTemporary(t *testing.T) {
	t.Parallel()
	srv := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{})
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()

	accountErr := func(err error) error {
		p := newOAuth2(srv, func(p *oauth.OAuth2) {
			p.Account = func(context.Context, *http.Client, *oauth2.Token) (map[string]any, error) { return nil, err }
		})
		_, err2 := p.Validate(t.Context(), map[string]any{"access_token": "a"})
		if err2 == nil {
			t.Fatal("Validate with a failing Account succeeded")
		}
		return err2
	}
	// A real refused connection in an Account callback.
	refused := accountErr(func() error {
		_, err := http.Get(downURL)
		return err
	}())

	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", errors.New("no"), false},
		{"provider 400", &oauth.ProviderError{Status: 400, Code: "invalid_grant"}, false},
		{"provider 401", &oauth.ProviderError{Status: 401}, false},
		{"provider 429", &oauth.ProviderError{Status: 429}, true},
		{"provider 503", fmt.Errorf("wrapped: %w", &oauth.ProviderError{Status: 503}), true},
		{"provider unreachable", &oauth.ProviderError{Unreachable: true}, true},
		{"sentinel unreachable", oauth.ErrProviderUnreachable, true},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), true},
		{"cancelled", context.Canceled, false},
		{"net timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, true},
		{"account: deadline", accountErr(context.DeadlineExceeded), true},
		{"account: refused connection", refused, true},
		{"account: 401", accountErr(errors.New("profile: status 401")), false},
		{"no access token", fmt.Errorf("v: %w", oauth.ErrNoAccessToken), false},
		{"expired", oauth.ErrTokenExpired, false},
	}
	for _, tc := range cases {
		if got := oauth.IsTemporary(tc.err); got != tc.want {
			t.Errorf("%s: IsTemporary(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}

	// A provider down at the refresh is temporary.
	p := newOAuth2(srv, func(p *oauth.OAuth2) { p.TokenURL = downURL + "/token" })
	_, err := p.Validate(t.Context(), map[string]any{"access_token": "a", "refresh_token": "r", "expire_on": "2000-01-01T00:00:00Z"})
	if !oauth.IsTemporary(err) {
		t.Fatalf("refresh against a closed server: %v is not temporary", err)
	}
}

// redirector answers every request with a redirect to target + path.
func redirector(target func() string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/same" {
			http.Redirect(w, r, "/landing", http.StatusFound)
			return
		}
		if r.URL.Path == "/landing" {
			w.Header().Set("X-Auth", r.Header.Get("Authorization"))
			return
		}
		http.Redirect(w, r, target()+"/x", http.StatusFound)
	}))
}

// The clients of Client send credentials only to the origin of the
// request made: a redirect to another host is followed without them.
func TestClientCredentialsStayOnOrigin(t *testing.T) {
	t.Parallel()
	var other atomic.Value
	other.Store("")
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Store("reached:" + r.Header.Get("Authorization"))
	}))
	defer evil.Close()
	// 127.0.0.1 redirects to localhost: another host, same machine.
	api := redirector(func() string { return strings.Replace(evil.URL, "127.0.0.1", "localhost", 1) })
	defer api.Close()

	o2 := &oauth.OAuth2{ClientID: "c", ClientSecret: "s", AuthURL: "https://p.example/a", TokenURL: "https://p.example/t"}
	o1 := &oauth.OAuth1{ConsumerKey: "ck", ConsumerSecret: "cs", RequestTokenURL: "https://p.example/r", AuthorizeURL: "https://p.example/a", AccessTokenURL: "https://p.example/t"}
	clients := map[string]interface {
		Client(context.Context, map[string]any) (*http.Client, error)
	}{"oauth2": o2, "oauth1": o1}
	for name, p := range clients {
		t.Run(name, func(t *testing.T) {
			c, err := p.Client(t.Context(), map[string]any{"access_token": "SECRET-TOKEN", "access_secret": "SECRET-SECRET"})
			if err != nil {
				t.Fatal(err)
			}
			// Same origin: the credentials follow the redirect.
			resp, err := c.Get(api.URL + "/same")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if a := resp.Header.Get("X-Auth"); !strings.Contains(a, "SECRET-TOKEN") && !strings.Contains(a, `oauth_token="SECRET-TOKEN"`) {
				t.Fatalf("same-origin redirect lost the credentials: %q", a)
			}
			// Another host: followed, without credentials.
			other.Store("")
			resp, err = c.Get(api.URL + "/away")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := other.Load().(string); got != "reached:" {
				t.Fatalf("the other host saw %q, want a request without Authorization", got)
			}
		})
	}

	// A configured CheckRedirect is honoured.
	stop := &oauth.OAuth2{ClientID: "c", ClientSecret: "s", AuthURL: "https://p.example/a", TokenURL: "https://p.example/t",
		HTTPClient: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	c, _ := stop.Client(t.Context(), map[string]any{"access_token": "SECRET-TOKEN"})
	resp, err := c.Get(api.URL + "/away")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("CheckRedirect ignored: status %d", resp.StatusCode)
	}
}

// tokenEndpoint is a minimal token endpoint that answers every grant with
// fresh tokens and the given expires_in (0: none), or a fixed failure.
type tokenEndpoint struct {
	expiresIn int
	status    int
	body      string
	calls     atomic.Int32
}

func (e *tokenEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := e.calls.Add(1)
	if e.status != 0 {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(e.status)
		fmt.Fprint(w, e.body)
		return
	}
	ans := map[string]any{"access_token": fmt.Sprintf("at-%d", n), "refresh_token": fmt.Sprintf("rt-%d", n), "token_type": "Bearer"}
	if e.expiresIn > 0 {
		ans["expires_in"] = e.expiresIn
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(ans)
}

func tokenFlow(t *testing.T, e *tokenEndpoint, margin time.Duration) *oauth.OAuth2 {
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return &oauth.OAuth2{ClientID: "c", ClientSecret: "client-secret-123", AuthURL: srv.URL + "/auth", TokenURL: srv.URL + "/token", RefreshMargin: margin}
}

// A refresh answer without expires_in clears the stored expiry, so the
// next validation does not refresh again.
func TestOAuth2RefreshWithoutExpiryClearsIt(t *testing.T) {
	t.Parallel()
	e := &tokenEndpoint{}
	p := tokenFlow(t, e, 0)
	stale := map[string]any{"access_token": "old", "refresh_token": "rt-0", "expire_on": oauth.FormatExpiry(time.Now().Add(-time.Minute)), "expires_on": oauth.FormatExpiry(time.Now().Add(-time.Minute))}
	r1, err := p.Validate(t.Context(), stale)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"expire_on", "expires_on"} {
		if v, ok := r1[k]; !ok || v != "" {
			t.Fatalf("%s = %v (present %v), want \"\" to clear the stale expiry", k, v, ok)
		}
	}
	// What the service stores: the stale values replaced by the answer.
	stored := maps.Clone(stale)
	maps.Copy(stored, r1)
	if _, err := p.Validate(t.Context(), stored); err != nil {
		t.Fatal(err)
	}
	if n := e.calls.Load(); n != 1 {
		t.Fatalf("token endpoint calls = %d, want 1 (no refresh of a token without expiry)", n)
	}
}

// A token that lives less than twice the margin is refreshed at half its
// lifetime, not on every validation.
func TestOAuth2MarginCappedByTokenLifetime(t *testing.T) {
	t.Parallel()
	e := &tokenEndpoint{expiresIn: 120}
	p := tokenFlow(t, e, 5*time.Minute)
	acct := map[string]any{"access_token": "old", "refresh_token": "rt-0", "expire_on": oauth.FormatExpiry(time.Now().Add(-time.Minute))}
	r1, err := p.Validate(t.Context(), acct)
	if err != nil || e.calls.Load() != 1 {
		t.Fatalf("first refresh: %v (calls %d)", err, e.calls.Load())
	}
	// Just refreshed (two minutes left, margin five): no second refresh.
	if _, err := p.Validate(t.Context(), r1); err != nil || e.calls.Load() != 1 {
		t.Fatalf("fresh short-lived token: %v, calls %d, want 1", err, e.calls.Load())
	}
	// Within half the lifetime of its expiry: refreshed.
	soon := maps.Clone(r1)
	soon["expire_on"] = oauth.FormatExpiry(time.Now().Add(50 * time.Second))
	if _, err := p.Validate(t.Context(), soon); err != nil || e.calls.Load() != 2 {
		t.Fatalf("token within half its lifetime: %v, calls %d, want 2", err, e.calls.Load())
	}
}

func TestOAuth2StateAndCallbackRequired(t *testing.T) {
	t.Parallel()
	e := &tokenEndpoint{}
	p := tokenFlow(t, e, 0)
	if u, err := p.Authorize(t.Context(), callback, ""); !errors.Is(err, oauth.ErrMissingState) {
		t.Fatalf("Authorize without state = %q, %v; want ErrMissingState", u, err)
	}
	for _, cb := range []string{"", "/relative", "ftp://x.example/cb"} {
		if _, err := p.Exchange(t.Context(), cb, "code-1234"); !errors.Is(err, oauth.ErrBadCallback) {
			t.Fatalf("Exchange with callback %q = %v, want ErrBadCallback", cb, err)
		}
	}
	if e.calls.Load() != 0 {
		t.Fatalf("the provider was called %d times", e.calls.Load())
	}
}

// A non-JSON error page of the token endpoint is reduced, not quoted.
func TestOAuth2HTMLErrorBodyReduced(t *testing.T) {
	t.Parallel()
	e := &tokenEndpoint{status: http.StatusBadGateway, body: "<html><body><h1>Bad gateway</h1><p>upstream 10.0.0.7 internals</p></body></html>"}
	p := tokenFlow(t, e, 0)
	_, err := p.Exchange(t.Context(), callback, "code-1234")
	var pe *oauth.ProviderError
	if !errors.As(err, &pe) || pe.Status != http.StatusBadGateway {
		t.Fatalf("Exchange = %v, want a 502 provider error", err)
	}
	if strings.Contains(err.Error(), "<") || strings.Contains(err.Error(), "internals") || !strings.Contains(err.Error(), "an HTML page") {
		t.Fatalf("message %q quotes the HTML page", err)
	}
	if !oauth.IsTemporary(err) {
		t.Fatalf("a 502 is not temporary: %v", err)
	}
}
