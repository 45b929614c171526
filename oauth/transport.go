package oauth

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
