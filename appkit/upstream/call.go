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
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/calllog"
	"github.com/appkitgo/appkit/oauth"
)

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
		if errors.Is(err, ErrRateLimited) {
			s.rateLimited(ctx)
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
	req, span := s.startSpan(req, u, attempt)
	col := calllog.From(ctx)
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		d := time.Since(start)
		s.ended(ctx, span, r.method(), u, 0, d, attempt, err)
		if col != nil {
			s.report(col, r.method(), u, 0, d, payload, nil, err)
		}
		return nil, nil, s.transportError(ctx, actx, r.method(), u, err)
	}
	defer resp.Body.Close()
	limit := s.c.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	body, err := readBody(resp, limit)
	d := time.Since(start)
	s.ended(ctx, span, r.method(), u, resp.StatusCode, d, attempt, err)
	if col != nil {
		s.report(col, r.method(), u, resp.StatusCode, d, payload, body, err)
	}
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

// report adds an attempt to the collector of the host's request (the host
// asked for the calls): the URL and error masked as the debug line masks
// them, the query's secret-named parameters too, and the bodies when they
// were asked.
func (s *Session) report(col *calllog.Collector, method string, u *url.URL, status int, d time.Duration, payload, body []byte, err error) {
	c := calllog.Call{Method: method, URL: s.callURL(u), Status: status, DurationMS: d.Milliseconds(), Bytes: int64(len(body))}
	if err != nil {
		c.Error = s.mask(err.Error())
	}
	if col.Bodies() {
		c.Request, c.Response = s.reportBody(payload), s.reportBody(body)
	}
	col.Add(c)
}

// callURL is a call's URL as reported: the path masked as the debug line
// masks it, and the query (which the debug line leaves out) with its
// secret-named parameters masked, then the session's secrets.
func (s *Session) callURL(u *url.URL) string {
	s.prepare()
	text := u.Scheme + "://" + u.Host + u.EscapedPath()
	if u.RawQuery != "" {
		text += "?" + s.masker.Query(u.RawQuery)
	}
	return s.mask(text)
}

// reportBody is a body as reported: its secret-named JSON fields and the
// session's secrets masked, then cut at calllog.MaxBody bytes (masked
// before the cut, and never ending with the start of a secret: see
// secretmask.Masker.Body).
func (s *Session) reportBody(b []byte) string {
	s.prepare()
	return s.masker.Body(b, calllog.MaxBody, "…", false)
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
		// A wait only when the answer asks for one: an upstream such as
		// GitHub sends X-RateLimit-Reset on every answer, and a 502 with
		// quota left must be retried after the backoff, not at the reset.
		if !RateLimitExhausted(resp.Header) {
			break
		}
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
	// Masked before the cut: a secret cut in half would not be masked.
	text = s.mask(text)
	if len(text) > maxErrorBody {
		text = text[:maxErrorBody] + "..."
	}
	return strings.ToValidUTF8(text, "?") // also a rune cut in half
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

// mask replaces the session's secrets in text, in every spelling.
func (s *Session) mask(text string) string {
	s.prepare()
	return s.masker.Mask(text)
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
	ev = ev.Str(appkit.LogKeyMethod, method).Str(appkit.LogKeyHost, u.Host).Str(appkit.LogKeyPath, s.mask(u.EscapedPath())).
		Int(appkit.LogKeyStatus, status).Dur(appkit.LogKeyDuration, d)
	if attempt > 0 {
		ev = ev.Int(appkit.LogKeyAttempt, attempt+1)
	}
	if err != nil {
		ev = ev.Str(appkit.LogKeyError, s.mask(err.Error()))
	}
	ev.Msg("upstream call")
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
