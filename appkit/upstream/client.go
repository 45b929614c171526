package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/time/rate"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/secretmask"
)

// Defaults of a Client's zero fields.
const (
	// DefaultTimeout bounds one attempt of a call (inside the handler's
	// own deadline, when it has one).
	DefaultTimeout = 30 * time.Second
	// DefaultMaxBody bounds an answer's body.
	DefaultMaxBody = 16 << 20
	// DefaultRetries is how many times an idempotent call is retried after
	// a 5xx answer, a timeout or a network error.
	DefaultRetries = 2
	// DefaultMaxWait caps a wait an upstream asks for (Retry-After and the
	// rate-limit headers): a Retry-After of a year waits this long.
	DefaultMaxWait = 15 * time.Minute
	// DefaultRateLimitWait is the wait of a rate-limited answer that names
	// none.
	DefaultRateLimitWait = time.Minute
	// backoffBase and backoffMax shape the retries' exponential backoff:
	// retry n+1 waits a random duration in [d/2, d], d = min(base·2ⁿ, max).
	backoffBase = time.Second
	backoffMax  = 8 * time.Second
	// maxRedirects bounds a redirect chain.
	maxRedirects = 10
	// maxAccounts bounds the per-account state (rate limiters, refreshed
	// tokens) kept by a Client.
	maxAccounts = 10_000
	// maxErrorBody is how much of an error answer an error shows.
	maxErrorBody = 512
)

// Client calls one upstream API on behalf of the app's accounts. Declare
// it once (a package variable or a field of the app) and bind it to a
// request's account with [Client.For]. Set the fields before the first
// call and do not change them afterwards; a Client is safe for concurrent
// use.
type Client struct {
	// BaseURL is the API's root ("https://api.github.com"); request paths
	// are relative to it. Required: an absolute http(s) URL.
	BaseURL string
	// Auth says how the account's credentials are sent.
	Auth Auth
	// HTTPClient provides the transport (nil: http.DefaultTransport), for
	// instance a recorder of appkittest. Its Timeout, CheckRedirect and Jar
	// are not used.
	HTTPClient *http.Client
	// Header is sent with every request (User-Agent, Accept, API version).
	Header http.Header
	// Timeout bounds each attempt; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxBody bounds an answer's body; zero means DefaultMaxBody.
	MaxBody int64
	// Retries is how often an idempotent call is retried after a 5xx, a
	// timeout or a network error; zero means DefaultRetries, negative none.
	Retries int
	// MaxWait caps a wait the upstream asks for; zero means DefaultMaxWait.
	MaxWait time.Duration
	// RateLimit, when positive, limits the calls per second of each
	// account, with bursts of Burst (at least 1). A call that would wait
	// past the handler's deadline fails at once with tryLater.
	RateLimit rate.Limit
	// Burst is the rate limiter's burst.
	Burst int
	// Logger receives one debug line per call: method, host and path,
	// status, duration (never the query or a credential). Nil: the logger
	// of the context (zerolog.Ctx): in an appkit handler, the app's logger
	// with the request id; elsewhere silent unless set.
	Logger *zerolog.Logger
	// Observe, when set, counts the calls (appkit_upstream_requests_total
	// by host and status, their latency, retries, rate-limit waits and
	// answers that said to slow down) and traces each attempt, sending its
	// W3C traceparent to the upstream. Nil: the app's (App.Observe), found
	// in the handler's context.
	Observe *appkit.Observe

	once    sync.Once
	base    *url.URL
	initErr error

	mu        sync.Mutex
	limiters  map[string]*rate.Limiter
	refreshed map[string]string // account identity → refreshed access token
}

func (c *Client) init() error {
	c.once.Do(func() {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			c.initErr = fmt.Errorf("upstream: BaseURL %q is not an absolute http(s) URL", c.BaseURL)
			return
		}
		u.Path = strings.TrimSuffix(u.Path, "/")
		u.RawPath = ""
		c.base = u
	})
	return c.initErr
}

// Check reports a configuration error (a BaseURL that is not an absolute
// http(s) URL); the calls return it too.
func (c *Client) Check() error { return c.init() }

// Session is a Client bound to one account. It is cheap: make one per
// handler call with [Client.For].
type Session struct {
	c       *Client
	acct    appkit.Account
	auth    Auth
	authErr error

	once   sync.Once // computes masker and id when first needed
	masker *secretmask.Masker
	id     string
}

// For binds the client to an account (a request's req.Account).
func (c *Client) For(acct appkit.Account) *Session {
	auth, err := c.Auth.resolve(acct)
	return &Session{c: c, acct: acct, auth: auth, authErr: err}
}

// prepare computes the masker of the account's secrets and its identity,
// once.
func (s *Session) prepare() {
	s.once.Do(func() {
		s.masker = secretmask.New(s.auth.secrets(s.acct)...)
		s.id = s.auth.identity(s.acct)
	})
}

// identity is the hashed identity of the account's credentials.
func (s *Session) identity() string {
	s.prepare()
	return s.id
}

// Request is one call.
type Request struct {
	// Method is the HTTP method; empty means GET.
	Method string
	// Path is relative to the BaseURL ("/repos/a/b/issues", query allowed),
	// or an absolute URL of the same origin (a Link header's target,
	// followed as given).
	Path string
	// Query is added to the path's query.
	Query url.Values
	// Body, when not nil, is sent as JSON.
	Body any
	// Header is added to the Client's.
	Header http.Header
	// Idempotent allows retries of a method that is not idempotent by
	// definition (POST, PATCH); GET, HEAD, OPTIONS, PUT and DELETE are.
	Idempotent bool
}

// Response describes a successful answer.
type Response struct {
	// Status is the HTTP status (2xx).
	Status int
	// Header holds the answer's headers.
	Header http.Header
	// URL is the URL answered, after redirects.
	URL *url.URL
}

// Get calls GET path and decodes the JSON answer into a T.
func Get[T any](ctx context.Context, s *Session, path string, query url.Values) (T, error) {
	var out T
	_, err := s.do(ctx, Request{Path: path, Query: query}, &out, true)
	return out, err
}

// Send calls r with in as the JSON body and decodes the answer into an Out.
func Send[In, Out any](ctx context.Context, s *Session, method, path string, in In) (Out, error) {
	var out Out
	_, err := s.do(ctx, Request{Method: method, Path: path, Body: in}, &out, true)
	return out, err
}

// Do calls r and decodes the JSON answer into out (a pointer; nil
// discards the answer). out is written only when the whole answer
// decoded. A failure comes mapped onto the protocol (see the package doc):
// handlers return it as it is.
func (s *Session) Do(ctx context.Context, r Request, out any) (*Response, error) {
	return s.do(ctx, r, out, false)
}

// do is Do; fresh says out is a zero value of the caller's own, decoded
// into directly (and zeroed again on failure).
func (s *Session) do(ctx context.Context, r Request, out any, fresh bool) (*Response, error) {
	resp, body, err := s.call(ctx, r)
	if err != nil {
		return nil, protocolError(err)
	}
	if out != nil && len(bytes.TrimSpace(body)) > 0 {
		decode := decodeInto
		if fresh {
			decode = decodeFresh
		}
		if err := decode(body, out); err != nil {
			return nil, protocolError(s.callError(r.method(), resp.URL, ErrBadAnswer, err, "the answer is not the expected JSON ("+contentType(resp.Header)+"): "+s.mask(err.Error())))
		}
	}
	return resp, nil
}

// decodeFresh unmarshals into out, a zero value, and zeroes it again on
// failure.
func decodeFresh(body []byte, out any) error {
	if err := json.Unmarshal(body, out); err != nil {
		v := reflect.ValueOf(out).Elem()
		v.Set(reflect.Zero(v.Type()))
		return err
	}
	return nil
}

// decodeInto unmarshals into a fresh value of out's type and copies it
// over on success, so that a failure leaves out untouched.
func decodeInto(body []byte, out any) error {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("upstream: decode into %T, not a non-nil pointer", out)
	}
	fresh := reflect.New(v.Type().Elem())
	if err := json.Unmarshal(body, fresh.Interface()); err != nil {
		return err
	}
	v.Elem().Set(fresh.Elem())
	return nil
}

func contentType(h http.Header) string {
	if ct := h.Get("Content-Type"); ct != "" {
		if len(ct) > 60 {
			ct = ct[:60]
		}
		return "Content-Type " + ct
	}
	return "no Content-Type"
}

func (r Request) method() string {
	if r.Method == "" {
		return http.MethodGet
	}
	return strings.ToUpper(r.Method)
}

func (r Request) idempotent() bool {
	switch r.method() {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return r.Idempotent
}

// target resolves a request's URL against the base; an absolute URL must
// share the base's origin.
func (s *Session) target(r Request) (*url.URL, error) {
	base := s.c.base
	var u *url.URL
	if strings.HasPrefix(r.Path, "http://") || strings.HasPrefix(r.Path, "https://") {
		p, err := url.Parse(r.Path)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not a URL", ErrBadAnswer, s.mask(r.Path))
		}
		if !sameOrigin(p, base) {
			return nil, fmt.Errorf("%w: %s://%s is not the upstream's origin %s://%s", ErrRedirect, p.Scheme, p.Host, base.Scheme, base.Host)
		}
		u = p
	} else {
		path, query, _ := strings.Cut(r.Path, "?")
		p, err := url.Parse(base.Scheme + "://" + base.Host + base.Path + "/" + strings.TrimPrefix(path, "/"))
		if err != nil {
			return nil, fmt.Errorf("upstream: path %q: %w", s.mask(r.Path), err)
		}
		p.RawQuery = query
		u = p
	}
	if len(r.Query) > 0 {
		q := u.Query()
		for k, vs := range r.Query {
			for _, v := range vs {
				q.Add(k, v)
			}
		}
		u.RawQuery = q.Encode()
	}
	return u, nil
}
