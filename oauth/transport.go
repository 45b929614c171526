package oauth

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Defaults of the flows' zero values.
const (
	// DefaultTimeout bounds each outgoing call to a provider.
	DefaultTimeout = 15 * time.Second
	// DefaultRefreshMargin: a token expiring within this is refreshed.
	DefaultRefreshMargin = 5 * time.Minute
	// DefaultAPITimeout bounds each request of the clients returned by
	// Client, unless the configured HTTPClient has its own Timeout.
	DefaultAPITimeout = 60 * time.Second
	// maxProviderAnswer bounds an OAuth 1 token endpoint's answer (OAuth 2
	// answers are bounded to 1 MiB by golang.org/x/oauth2).
	maxProviderAnswer = 64 << 10
)

func timeoutOr(d time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return DefaultTimeout
}

// baseTransport is the round tripper of a configured client, or the default.
func baseTransport(c *http.Client) http.RoundTripper {
	if c != nil && c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// providerClient is the client of the calls to the provider's token
// endpoints: the configured one with the flow's timeout. Unless the
// configured client has its own redirect policy, redirects are not followed:
// a token endpoint does not redirect, and following a 307 would send the
// client secret and the code to wherever it points.
func providerClient(c *http.Client, timeout time.Duration) *http.Client {
	out := &http.Client{Transport: baseTransport(c), Timeout: timeout, CheckRedirect: noRedirects}
	if c != nil {
		if c.CheckRedirect != nil {
			out.CheckRedirect = c.CheckRedirect
		}
		out.Jar = c.Jar
	}
	return out
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// apiTimeout is the timeout of the clients returned by Client.
func apiTimeout(c *http.Client) time.Duration {
	if c != nil && c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultAPITimeout
}

// recorder is the transport of one OAuth 1 provider call: it binds the
// call to a context (github.com/dghubble/oauth1 builds its requests without
// one), bounds the answer's size and keeps the answer, so that extra
// parameters (oauth_expires_in, user ids) and error details can be read.
type recorder struct {
	ctx  context.Context
	base http.RoundTripper

	mu     sync.Mutex
	status int
	body   []byte
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req.WithContext(r.ctx))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxProviderAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if len(b) > maxProviderAnswer {
		return nil, fmt.Errorf("the answer is larger than %d bytes", maxProviderAnswer)
	}
	r.mu.Lock()
	r.status, r.body = resp.StatusCode, b
	r.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	return resp, nil
}

func (r *recorder) answer() (int, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.body
}

// checkCallback accepts an absolute http(s) URL with a host.
func checkCallback(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ErrBadCallback
	}
	return nil
}

// checkEndpoint accepts an absolute http(s) URL for a provider endpoint.
func checkEndpoint(name, s string) error {
	if s == "" {
		return fmt.Errorf("%s is empty", name)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q is not an absolute http or https URL", name, s)
	}
	if u.Fragment != "" {
		return fmt.Errorf("%s %q has a fragment", name, s)
	}
	return nil
}

// apiClient is a client of Client: auth adds the account's credentials and
// plain is the bare base transport. Credentials go only to the origin
// (scheme and host) of the request the caller made; a redirect to another
// origin is followed without them. The configured client's CheckRedirect
// and Jar are kept; its Timeout, or DefaultAPITimeout.
func apiClient(c *http.Client, auth, plain http.RoundTripper) *http.Client {
	out := &http.Client{Transport: originOnly{auth: auth, plain: plain}, Timeout: apiTimeout(c)}
	if c != nil {
		out.CheckRedirect = c.CheckRedirect
		out.Jar = c.Jar
	}
	return out
}

// originOnly sends a request through auth when it goes to the origin of
// the first request of its redirect chain, else through plain: transports
// such as oauth2.Transport add the Authorization header on every hop, which
// http.Client's own stripping of sensitive headers on redirects cannot see.
type originOnly struct{ auth, plain http.RoundTripper }

func (o originOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	first := r
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	if first == r || sameOrigin(first.URL, r.URL) {
		return o.auth.RoundTrip(r)
	}
	return o.plain.RoundTrip(r)
}

// sameOrigin compares scheme and host (with the port, default ports
// spelled out).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return u.Host
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return net.JoinHostPort(u.Hostname(), "443")
	case "http":
		return net.JoinHostPort(u.Hostname(), "80")
	}
	return u.Host
}
