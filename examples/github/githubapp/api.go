package githubapp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
)

// Limits of the calls to GitHub.
const (
	// MaxAnswer bounds one answer's body.
	MaxAnswer = 8 << 20
	// CallTimeout bounds one call (inside the handler's own deadline).
	CallTimeout = 30 * time.Second
	// Attempts is the number of calls for one request that meets a 5xx or
	// a network failure; then the service is told to try later.
	Attempts = 3
	// MaxWait bounds the wait answered for a rate limit (a reset time
	// further away is answered as this).
	MaxWait = time.Hour
)

// ErrRateLimited is wrapped by the error of a call refused because the
// account's rate limit is exhausted.
var ErrRateLimited = errors.New("GitHub's rate limit is exhausted")

// ErrBadLink is wrapped by the error of an answer whose Link header names a
// next page the app will not follow (another host, the same page again).
var ErrBadLink = errors.New("GitHub's Link header is unusable")

// api calls the GitHub REST API with one account's token.
type api struct {
	app   *App
	token string
}

// limits remembers, per token (by its hash), until when GitHub's rate limit
// is exhausted, so that no call is made before the reset.
type limits struct {
	mu    sync.Mutex
	until map[[32]byte]time.Time
}

func (l *limits) wait(token string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until[sha256.Sum256([]byte(token))].Sub(now)
}

func (l *limits) set(token string, now, until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.until == nil {
		l.until = map[[32]byte]time.Time{}
	}
	for k, t := range l.until { // forget resets that passed
		if !t.After(now) {
			delete(l.until, k)
		}
	}
	l.until[sha256.Sum256([]byte(token))] = until
}

// get reads one answer of path (relative to the API base, query included)
// or of an absolute URL from a Link header into out, and returns the URL of
// the next page ("" on the last one).
func (a *api) get(ctx context.Context, path string, out any) (string, error) {
	u, err := a.app.base.Parse(strings.TrimPrefix(path, "/"))
	if err != nil || u.Scheme != a.app.base.Scheme || u.Host != a.app.base.Host {
		return "", fmt.Errorf("%w: %q is not on %s", ErrBadLink, path, a.app.base.Host)
	}
	for n := 1; ; n++ {
		next, err := a.once(ctx, u, out)
		var retry *retryable
		if !errors.As(err, &retry) {
			return next, err
		}
		if n >= Attempts {
			return "", appkit.TryLater(fmt.Errorf("GitHub failed %d times on %s: %w", n, u.Path, retry.err))
		}
		t := time.NewTimer(a.app.backoff << (n - 1))
		select {
		case <-ctx.Done():
			t.Stop()
			return "", appkit.TryLater(fmt.Errorf("GitHub %s: %w", u.Path, ctx.Err()))
		case <-t.C:
		}
	}
}

// retryable is a failure worth another attempt (5xx, network).
type retryable struct{ err error }

func (r *retryable) Error() string { return r.err.Error() }

func (a *api) once(ctx context.Context, u *url.URL, out any) (string, error) {
	now := a.app.now()
	if wait := a.app.limits.wait(a.token, now); wait > 0 {
		return "", appkit.TryLaterAfter(fmt.Errorf("%w until %s", ErrRateLimited, now.Add(wait).UTC().Format(time.RFC3339)), wait)
	}
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("Authorization", "Bearer "+a.token)
	start := time.Now()
	resp, err := a.app.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is logged below, without it in the message
		}
		a.log(u, 0, start)
		return "", &retryable{fmt.Errorf("GitHub is unreachable: %w", err)}
	}
	defer resp.Body.Close()
	a.log(u, resp.StatusCode, start)
	if wait, limited := rateLimited(resp, now); limited {
		wait = min(max(wait, time.Second), MaxWait)
		a.app.limits.set(a.token, now, now.Add(wait))
		return "", appkit.TryLaterAfter(fmt.Errorf("%w until %s (HTTP %d on %s)", ErrRateLimited, now.Add(wait).UTC().Format(time.RFC3339), resp.StatusCode, u.Path), wait)
	}
	switch s := resp.StatusCode; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return "", appkit.InvalidAccount("GitHub refused the token (HTTP %d on %s): %s", s, u.Path, message(resp.Body))
	case s == http.StatusNotFound:
		return "", appkit.BadRequest("GitHub has no %s (or the token cannot see it)", u.Path)
	case s >= 500:
		return "", &retryable{fmt.Errorf("HTTP %d", s)}
	case s != http.StatusOK:
		return "", fmt.Errorf("GitHub answered HTTP %d on %s: %s", s, u.Path, message(resp.Body))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	if err != nil {
		return "", &retryable{fmt.Errorf("reading GitHub's answer: %w", err)}
	}
	if len(body) > MaxAnswer {
		return "", fmt.Errorf("GitHub's answer on %s is larger than %d bytes", u.Path, MaxAnswer)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return "", fmt.Errorf("GitHub's answer on %s is not the expected JSON: %w", u.Path, err)
	}
	next, err := nextLink(resp.Header.Values("Link"))
	if err != nil || next == "" {
		return "", err
	}
	nu, err := u.Parse(next)
	if err != nil || nu.Scheme != u.Scheme || nu.Host != u.Host {
		return "", fmt.Errorf("%w: the next page %q is not on %s", ErrBadLink, next, u.Host)
	}
	if nu.String() == u.String() {
		return "", fmt.Errorf("%w: the next page of %s is the same page", ErrBadLink, u.Path)
	}
	return nu.String(), nil
}

// rateLimited reports a rate-limited answer (429, or 403 with
// X-RateLimit-Remaining: 0) and the wait GitHub asks for: Retry-After, else
// until X-RateLimit-Reset.
func rateLimited(resp *http.Response, now time.Time) (time.Duration, bool) {
	h := resp.Header
	if resp.StatusCode != http.StatusTooManyRequests && (resp.StatusCode != http.StatusForbidden || h.Get("X-RateLimit-Remaining") != "0") {
		return 0, false
	}
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s >= 0 {
		return time.Duration(min(s, int(MaxWait/time.Second))) * time.Second, true
	}
	if s, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
		return time.Unix(min(s, now.Add(MaxWait).Unix()), 0).Sub(now), true
	}
	return time.Minute, true // GitHub's advice for a secondary limit without headers
}

// nextLink returns the target of rel="next" in Link header values
// (RFC 8288), "" when there is none.
func nextLink(values []string) (string, error) {
	for _, v := range values {
		for v = strings.TrimSpace(v); v != ""; {
			if v[0] != '<' {
				return "", fmt.Errorf("%w: %q", ErrBadLink, v)
			}
			end := strings.IndexByte(v, '>')
			if end < 0 {
				return "", fmt.Errorf("%w: %q", ErrBadLink, v)
			}
			target, rest := v[1:end], v[end+1:]
			params, after, _ := strings.Cut(rest, ",")
			for p := range strings.SplitSeq(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "rel") {
					for rel := range strings.FieldsSeq(strings.ToLower(strings.Trim(strings.TrimSpace(val), `"`))) {
						if rel == "next" {
							return target, nil
						}
					}
				}
			}
			v = strings.TrimSpace(after)
		}
	}
	return "", nil
}

// message is GitHub's {"message"} of an error answer, bounded.
func message(r io.Reader) string {
	var m struct {
		Message string `json:"message"`
	}
	if json.NewDecoder(io.LimitReader(r, 64<<10)).Decode(&m) != nil || m.Message == "" {
		return "no message"
	}
	return m.Message
}

// log writes one debug line per call: method, host and path, status,
// duration. The token travels in a header, which is never logged.
func (a *api) log(u *url.URL, status int, start time.Time) {
	if l := a.app.logger; l != nil && l.GetLevel() <= zerolog.DebugLevel {
		l.Debug().Str("method", "GET").Str("host", u.Host).Str("path", u.Path).Int("status", status).
			Dur("duration", time.Since(start)).Msg("github call")
	}
}
