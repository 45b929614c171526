package upstream

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"golang.org/x/time/rate"

	"github.com/appkitgo/appkit/oauth"
)

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
	s.rateWait(ctx, d)
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
	rt, _ := out[oauth.KeyRefreshToken].(string)
	s.masker.Add(tok, rt)
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
