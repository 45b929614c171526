package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/time/rate"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/oauth"
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
	// of the context (zerolog.Ctx), which is silent unless set.
	Logger *zerolog.Logger

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

	once    sync.Once // computes secrets and id when first needed
	mu      sync.Mutex
	secrets []string
	id      string
}

// For binds the client to an account (a request's req.Account).
func (c *Client) For(acct appkit.Account) *Session {
	auth, err := c.Auth.resolve(acct)
	return &Session{c: c, acct: acct, auth: auth, authErr: err}
}

// prepare computes the account's secrets and identity, once.
func (s *Session) prepare() {
	s.once.Do(func() {
		s.secrets = s.auth.secrets(s.acct)
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

// call runs the attempts of one request and returns the successful
// answer's body, or an unmapped error.
func (s *Session) call(ctx context.Context, r Request) (*Response, []byte, error) {
	if err := s.c.init(); err != nil {
		return nil, nil, err
	}
	if s.authErr != nil {
		return nil, nil, &CallError{Method: r.method(), Resource: s.c.base.Host, Err: s.authErr, msg: s.mask(s.authErr.Error()), kind: ErrUnauthorized}
	}
	u, err := s.target(r)
	if err != nil {
		kind := ErrBadAnswer
		if errors.Is(err, ErrRedirect) {
			kind = ErrRedirect
		}
		return nil, nil, &CallError{Method: r.method(), Resource: s.c.base.Host, Err: err, msg: s.mask(err.Error()), kind: kind}
	}
	var payload []byte
	if r.Body != nil {
		if payload, err = json.Marshal(r.Body); err != nil {
			return nil, nil, fmt.Errorf("upstream: encode the body of %s %s: %w", r.method(), resource(u), err)
		}
	}
	retries := s.c.Retries
	switch {
	case retries == 0:
		retries = DefaultRetries
	case retries < 0:
		retries = 0
	}
	if !r.idempotent() {
		retries = 0
	}
	refreshed := false
	for attempt := 0; ; attempt++ {
		if err := s.waitTurn(ctx, r.method(), u); err != nil {
			return nil, nil, err
		}
		resp, body, err := s.attempt(ctx, r, u, payload, attempt)
		if err == nil {
			return resp, body, nil
		}
		if errors.Is(err, ErrUnauthorized) && !refreshed && s.auth.kind == authOAuth2 && s.acct.String(oauth.KeyRefreshToken) != "" {
			refreshed = true
			if rerr := s.refresh(ctx); rerr != nil {
				return nil, nil, rerr
			}
			attempt-- // the refresh's retry is not one of the retries
			continue
		}
		if !errors.Is(err, ErrUnavailable) || attempt >= retries || ctx.Err() != nil {
			return nil, nil, err
		}
		wait := backoff(attempt)
		var se *StatusError
		if errors.As(err, &se) && se.Wait > wait {
			wait = se.Wait
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, nil, err // the next attempt would not finish in time
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, nil, err
		}
	}
}

// backoff is the wait before retry n+1: a random duration in [d/2, d],
// d = min(backoffBase·2ⁿ, backoffMax).
func backoff(n int) time.Duration {
	d := backoffMax
	if n < 5 {
		d = min(backoffBase<<n, backoffMax)
	}
	return d/2 + rand.N(d/2+1)
}

// attempt sends the request once.
func (s *Session) attempt(ctx context.Context, r Request, u *url.URL, payload []byte, attempt int) (*Response, []byte, error) {
	timeout := s.c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, r.method(), "", rd)
	if err != nil {
		return nil, nil, fmt.Errorf("upstream: %s %s: %w", r.method(), resource(u), err)
	}
	ru := *u // the query key, when there is one, is added to this copy
	req.URL, req.Host = &ru, u.Host
	for k, vs := range s.c.Header {
		req.Header[k] = vs
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	base := http.DefaultTransport
	if s.c.HTTPClient != nil && s.c.HTTPClient.Transport != nil {
		base = s.c.HTTPClient.Transport
	}
	rt, err := s.auth.apply(actx, req, s.acct, s.refreshedToken(), base)
	if err != nil {
		return nil, nil, &CallError{Method: r.method(), Resource: resource(u), Err: err, msg: s.mask(err.Error()), kind: ErrUnauthorized}
	}
	origin := req.URL
	hc := &http.Client{Transport: rt, CheckRedirect: func(next *http.Request, via []*http.Request) error {
		if !sameOrigin(origin, next.URL) {
			return fmt.Errorf("%w: to %s://%s", ErrRedirect, next.URL.Scheme, next.URL.Host)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("%w: more than %d redirects", ErrBadAnswer, maxRedirects)
		}
		return nil
	}}
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		s.log(ctx, r.method(), u, 0, time.Since(start), attempt, err)
		return nil, nil, s.transportError(ctx, actx, r.method(), u, err)
	}
	defer resp.Body.Close()
	limit := s.c.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	body, err := readBody(resp, limit)
	s.log(ctx, r.method(), u, resp.StatusCode, time.Since(start), attempt, err)
	if err != nil {
		return nil, nil, s.transportError(ctx, actx, r.method(), u, err)
	}
	if int64(len(body)) > limit {
		return nil, nil, s.callError(r.method(), resp.Request.URL, ErrBadAnswer, nil, fmt.Sprintf("the answer is larger than %d bytes", limit))
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return &Response{Status: resp.StatusCode, Header: resp.Header, URL: resp.Request.URL}, body, nil
	}
	return nil, nil, s.statusError(r.method(), resp, body)
}

// readBody reads up to limit+1 bytes of an answer, in one allocation when
// its length is known.
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	if n := resp.ContentLength; n >= 0 && n <= limit {
		buf := make([]byte, n)
		_, err := io.ReadFull(resp.Body, buf)
		return buf, err
	}
	return io.ReadAll(io.LimitReader(resp.Body, limit+1))
}

// statusError classifies an error answer.
func (s *Session) statusError(method string, resp *http.Response, body []byte) error {
	se := &StatusError{Method: method, Resource: s.mask(resource(resp.Request.URL)), Status: resp.StatusCode, Body: s.errorBody(body)}
	limited := func() {
		se.kind = ErrRateLimited
		wait, ok := RateLimitWait(resp.Header, time.Now())
		if !ok {
			wait = DefaultRateLimitWait
		}
		se.Wait = min(wait, s.maxWait())
	}
	switch st := resp.StatusCode; {
	case st == http.StatusUnauthorized:
		se.kind = ErrUnauthorized
	case st == http.StatusForbidden && RateLimitExhausted(resp.Header):
		limited()
	case st == http.StatusForbidden:
		se.kind = ErrUnauthorized
	case st == http.StatusTooManyRequests:
		limited()
	case st == http.StatusNotFound:
		se.kind = ErrNotFound
	case st >= 500:
		se.kind = ErrUnavailable
		if wait, ok := RateLimitWait(resp.Header, time.Now()); ok {
			se.Wait = min(wait, s.maxWait())
		}
	}
	return se
}

func (s *Session) maxWait() time.Duration {
	if s.c.MaxWait > 0 {
		return s.c.MaxWait
	}
	return DefaultMaxWait
}

// errorBody is the start of an error answer: a JSON message when there is
// one, else the text; never HTML; secrets masked.
func (s *Session) errorBody(body []byte) string {
	var m struct {
		Message string `json:"message"`
		Error   any    `json:"error"`
	}
	text := ""
	if json.Unmarshal(body, &m) == nil {
		if m.Message != "" {
			text = m.Message
		} else if e, ok := m.Error.(string); ok {
			text = e
		}
	} else if t := strings.TrimSpace(string(body)); t != "" && !strings.HasPrefix(t, "<") {
		text = t
	}
	text = strings.ToValidUTF8(text, "?")
	if len(text) > maxErrorBody {
		text = text[:maxErrorBody] + "..."
	}
	return s.mask(text)
}

// transportError classifies a failure to get an answer.
func (s *Session) transportError(ctx, actx context.Context, method string, u *url.URL, err error) error {
	switch {
	case errors.Is(err, ErrRedirect):
		return s.callError(method, u, ErrRedirect, err, s.mask(unwrapURLError(err).Error()))
	case errors.Is(err, ErrBadAnswer):
		return s.callError(method, u, ErrBadAnswer, err, s.mask(unwrapURLError(err).Error()))
	case ctx.Err() != nil:
		return s.callError(method, u, ErrUnavailable, ctx.Err(), "the handler's request ended: "+ctx.Err().Error())
	case actx.Err() != nil:
		return s.callError(method, u, ErrUnavailable, err, "no answer within the timeout")
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return s.callError(method, u, ErrUnavailable, err, "no answer within the timeout")
	}
	return s.callError(method, u, ErrUnavailable, err, "unreachable: "+s.mask(unwrapURLError(err).Error()))
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func (s *Session) callError(method string, u *url.URL, kind, cause error, msg string) *CallError {
	if cause == nil {
		cause = kind
	}
	return &CallError{Method: method, Resource: s.mask(resource(u)), Err: cause, msg: msg, kind: kind}
}

// resource is the host and path of a URL: never its query.
func resource(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.Host + u.EscapedPath()
}

// mask replaces the session's secrets in s.
func (s *Session) mask(text string) string {
	s.prepare()
	s.mu.Lock()
	secrets := s.secrets
	s.mu.Unlock()
	for _, sec := range secrets {
		if len(sec) >= 4 {
			text = strings.ReplaceAll(text, sec, "***")
			if esc := url.QueryEscape(sec); esc != sec {
				text = strings.ReplaceAll(text, esc, "***")
			}
		}
	}
	return text
}

// log writes the call's debug line.
func (s *Session) log(ctx context.Context, method string, u *url.URL, status int, d time.Duration, attempt int, err error) {
	l := s.c.Logger
	if l == nil {
		l = zerolog.Ctx(ctx)
	}
	ev := l.Debug()
	if ev == nil {
		return
	}
	ev = ev.Str("method", method).Str("host", u.Host).Str("path", s.mask(u.EscapedPath())).Int("status", status).Dur("duration", d)
	if attempt > 0 {
		ev = ev.Int("attempt", attempt+1)
	}
	if err != nil {
		ev = ev.Str("error", s.mask(err.Error()))
	}
	ev.Msg("upstream call")
}

// waitTurn applies the per-account rate limit: a wait that would outlast
// the context's deadline fails at once.
func (s *Session) waitTurn(ctx context.Context, method string, u *url.URL) error {
	if s.c.RateLimit <= 0 {
		return nil
	}
	lim := s.c.limiter(s.identity())
	res := lim.Reserve()
	d := res.Delay()
	if d == 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		res.Cancel()
		return &StatusError{Method: method, Resource: s.mask(resource(u)), Status: http.StatusTooManyRequests,
			Body: "the app's own rate limit for this account needs a wait past the request's deadline", Wait: d, kind: ErrRateLimited}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		res.Cancel()
		return s.callError(method, u, ErrUnavailable, ctx.Err(), "the handler's request ended: "+ctx.Err().Error())
	}
}

// limiter returns the rate limiter of an account.
func (c *Client) limiter(id string) *rate.Limiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.limiters[id]; ok {
		return l
	}
	if c.limiters == nil {
		c.limiters = map[string]*rate.Limiter{}
	}
	evictOne(c.limiters)
	l := rate.NewLimiter(c.RateLimit, max(c.Burst, 1))
	c.limiters[id] = l
	return l
}

// evictOne drops an arbitrary entry of a full map.
func evictOne[V any](m map[string]V) {
	if len(m) < maxAccounts {
		return
	}
	for k := range m {
		delete(m, k)
		return
	}
}

func (s *Session) refreshedToken() string {
	if s.auth.kind != authOAuth2 {
		return ""
	}
	id := s.identity()
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return s.c.refreshed[id]
}

// refresh obtains a new access token after a 401, through the flow's
// validation (one provider call for concurrent refreshes of one refresh
// token; the result is remembered by the flow, so the service's next
// /validate with the consumed refresh token gets the same new tokens).
func (s *Session) refresh(ctx context.Context) error {
	fields := make(map[string]any, len(s.acct)+1)
	for k, v := range s.acct {
		fields[k] = v
	}
	fields[oauth.KeyExpireOn] = oauth.FormatExpiry(time.Unix(0, 0)) // expired: Validate refreshes
	out, err := s.auth.oauth2.Validate(ctx, fields)
	if err != nil {
		kind := ErrUnauthorized
		if oauth.IsTemporary(err) {
			kind = ErrUnavailable
		}
		return &CallError{Method: "POST", Resource: "token refresh", Err: err, msg: s.mask(err.Error()), kind: kind}
	}
	tok, _ := out[oauth.KeyAccessToken].(string)
	if tok == "" {
		return &CallError{Method: "POST", Resource: "token refresh", Err: ErrUnauthorized, msg: "the refresh answered no access token", kind: ErrUnauthorized}
	}
	s.prepare()
	s.mu.Lock()
	s.secrets = append(s.secrets, tok)
	if rt, _ := out[oauth.KeyRefreshToken].(string); rt != "" {
		s.secrets = append(s.secrets, rt)
	}
	s.mu.Unlock()
	id := s.identity()
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	if s.c.refreshed == nil {
		s.c.refreshed = map[string]string{}
	}
	evictOne(s.c.refreshed)
	s.c.refreshed[id] = tok
	return nil
}

// sameOrigin compares scheme and host with the port (default ports
// spelled out).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if strings.EqualFold(u.Scheme, "https") {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}
