package host

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/httpjson"
	"github.com/appkitgo/appkit/internal/httprec"
)

// reqInfo is what the log line of a request tells, filled in by the layers
// the request passes; it travels by pointer in the context.
type reqInfo struct {
	userID  string
	tokenID string
	// client is the client's address (see Host.clientAddr).
	client string
}

type infoKey struct{}

func info(ctx context.Context) *reqInfo {
	if ri, ok := ctx.Value(infoKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

type userKey struct{}

// userFrom returns the authenticated user that withSession or withToken put
// into the context.
func userFrom(ctx context.Context) (auth.User, bool) {
	u, ok := ctx.Value(userKey{}).(auth.User)
	return u, ok
}

// secretShape matches a document secret however the path spells it: a
// UUID's 32 hex digits in any case, hyphens optional.
var secretShape = regexp.MustCompile(`(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}`)

// maxLoggedPath is how much of a path a log line or message shows.
const maxLoggedPath = 200

// redactPath keeps document secrets out of logs and messages: every
// UUID-shaped run anywhere in the path becomes <secret> (whatever the
// prefix: //api/documents/, /API/documents/, /api/./documents/ all reach
// the log), then a long path is cut.
func redactPath(p string) string {
	p = secretShape.ReplaceAllLiteralString(p, "<secret>")
	if len(p) > maxLoggedPath {
		return p[:maxLoggedPath] + "..."
	}
	return p
}

// logRequests writes one line per request: method, path (secrets redacted),
// status, size, duration, client, and the user and token ids (never the
// token's value or the cookie).
func (h *Host) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{client: h.clientAddr(r)}
		sw := httprec.New(w)
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), infoKey{}, ri)))
		status := sw.Status()
		ev := h.log.Info()
		if status >= 500 {
			ev = h.log.Error()
		}
		ev = ev.Str("method", r.Method).Str("path", redactPath(r.URL.Path)).Int("status", status).
			Int64("bytes", sw.Bytes()).Dur("duration", time.Since(start)).Str("remote", ri.client)
		if ri.userID != "" {
			ev = ev.Str("user", ri.userID)
		}
		if ri.tokenID != "" {
			ev = ev.Str("token_id", ri.tokenID)
		}
		ev.Msg("request")
	})
}

// internalError logs err and answers 500 {"message": "internal error"}: the
// cause stays in the log.
func (h *Host) internalError(w http.ResponseWriter, r *http.Request, err error) {
	h.logError(r, err)
	httpjson.Message(w, http.StatusInternalServerError, "internal error")
}

// failed answers err, when there is one, and says whether it did: status
// with msg (empty: err's own message) when err is want, an internal error
// otherwise.
func (h *Host) failed(w http.ResponseWriter, r *http.Request, err, want error, status int, msg string) bool {
	switch {
	case err == nil:
		return false
	case !errors.Is(err, want):
		h.internalError(w, r, err)
	case msg == "":
		httpjson.Message(w, status, err.Error())
	default:
		httpjson.Message(w, status, msg)
	}
	return true
}

func (h *Host) logError(r *http.Request, err error) {
	h.log.Error().Err(err).Str("method", r.Method).Str("path", redactPath(r.URL.Path)).Msg("request failed")
}

// recoverPanics turns a panic into 500 {message} (when nothing was written
// yet) and a log line with the stack.
func (h *Host) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw, ok := w.(*httprec.Recorder)
		if !ok {
			sw = httprec.New(w)
		}
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler { //nolint:errorlint // sentinel compared as net/http does
				panic(p)
			}
			h.log.Error().Str("panic", fmt.Sprint(p)).Str("method", r.Method).Str("path", redactPath(r.URL.Path)).
				Bytes("stack", debug.Stack()).Msg("panic in handler")
			if !sw.Written() {
				httpjson.Message(sw, http.StatusInternalServerError, "internal error")
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// timeout bounds the request's context.
func (h *Host) timeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), h.cfg.RequestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// methods answers 405 {message} with Allow for other methods.
func methods(next http.Handler, allowed ...string) http.Handler {
	allow := strings.Join(allowed, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, m := range allowed {
			if r.Method == m {
				next.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("Allow", allow)
		httpjson.Message(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed here (allowed: "+allow+")")
	})
}

// limitBody caps the request body at cfg.MaxBody.
func (h *Host) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > h.cfg.MaxBody {
			httpjson.Message(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", h.cfg.MaxBody))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, h.cfg.MaxBody)
		next.ServeHTTP(w, r)
	})
}

// errNoToken is the answer to a request without a usable Authorization
// header.
var errNoToken = errors.New("missing or malformed Authorization header: send \"Authorization: Token <API token>\"")

// ParseAuthorization returns the token of an "Authorization: Token <token>"
// header value. The scheme is case-insensitive; the token is one word of
// printable ASCII.
func ParseAuthorization(header string) (string, error) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Token") {
		return "", errNoToken
	}
	token = strings.TrimLeft(token, " ")
	if token == "" || len(token) > 512 {
		return "", errNoToken
	}
	for i := 0; i < len(token); i++ {
		if c := token[i]; c <= ' ' || c >= 0x7f {
			return "", errNoToken
		}
	}
	return token, nil
}

// withToken authenticates "Authorization: Token <token>" (401 otherwise) and
// applies the rate limits (429 with Retry-After). A client address that sent
// too many invalid tokens gets 429 before its token is even looked at.
func (h *Host) withToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		value, err := ParseAuthorization(r.Header.Get("Authorization"))
		if err != nil {
			unauthorized(w, err.Error())
			return
		}
		ip := limitKey(clientIP(r))
		if blocked, retry := h.badTokens.Blocked(ip); blocked {
			tooMany(w, retry, "too many invalid API tokens from this address; try again later")
			return
		}
		u, tok, err := h.auth.Authenticate(r.Context(), value)
		if errors.Is(err, auth.ErrUnauthenticated) {
			h.badTokens.Allow(ip)
			unauthorized(w, "invalid API token")
			return
		}
		if err != nil {
			h.internalError(w, r, err)
			return
		}
		ri := info(r.Context())
		ri.userID, ri.tokenID = u.ID, tok.ID
		if h.rateLimited(w, tok.ID, "token") {
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	})
}

// rateLimited takes a request of key (an API token's id, "session:" and a
// user's id) from the host's rate limits; when one of them refuses it, it
// answers 429 with Retry-After, naming the limit (per is what the key's
// limit is per: "token", "user session"), and reports true.
func (h *Host) rateLimited(w http.ResponseWriter, key, per string) bool {
	d := h.limiter.Take(key)
	if d.OK {
		return false
	}
	msg := fmt.Sprintf("rate limit exceeded: at most %g requests per second per %s", h.cfg.RateLimit, per)
	if d.Workspace {
		msg = fmt.Sprintf("workspace rate limit exceeded: at most %g requests per second over all tokens of the workspace", h.cfg.WorkspaceRateLimit)
	}
	tooMany(w, d.RetryAfter, msg)
	return true
}

// unauthorized answers 401 {message} with the challenge of the API's
// token scheme.
func unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Token realm="appkit"`)
	httpjson.Message(w, http.StatusUnauthorized, msg)
}

// tooMany answers 429 {message} with Retry-After (at least a second).
func tooMany(w http.ResponseWriter, retry time.Duration, msg string) {
	secs := int(math.Ceil(retry.Seconds()))
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	httpjson.Message(w, http.StatusTooManyRequests, msg)
}

// withSession authenticates the session cookie (401 otherwise). The
// Authorization header is not looked at.
func (h *Host) withSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(SessionCookie)
		if err != nil {
			httpjson.Message(w, http.StatusUnauthorized, "sign in first: this endpoint accepts only the session cookie of POST /api/login")
			return
		}
		u, err := h.auth.SessionUser(r.Context(), c.Value)
		if h.failed(w, r, err, auth.ErrUnauthenticated, http.StatusUnauthorized, "the session has expired or is invalid: sign in again") {
			return
		}
		info(r.Context()).userID = u.ID
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	})
}

// sameOrigin refuses state-changing requests whose Origin header is not the
// host's own origin (a second line of defence behind SameSite=Lax, and the
// only one for sign-in, which has no cookie yet). A request without Origin
// (not sent by a browser) passes.
func (h *Host) sameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if o := r.Header.Get("Origin"); o != "" && !sameOriginAs(o, r) {
				httpjson.Message(w, http.StatusForbidden, "cross-origin request refused")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// sameOriginAs reports whether origin (an Origin header value) is the origin
// r was sent to: same scheme, host (case-insensitive) and port, a missing
// port being the scheme's default.
func sameOriginAs(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return false // "null", a bare word, anything that is not scheme://host[:port]
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if !strings.EqualFold(u.Scheme, scheme) {
		return false
	}
	oHost, oPort := splitHostPortDefault(u.Host, scheme)
	rHost, rPort := splitHostPortDefault(r.Host, scheme)
	return oHost != "" && strings.EqualFold(oHost, rHost) && oPort == rPort
}

// splitHostPortDefault splits host[:port], filling in the scheme's default
// port.
func splitHostPortDefault(hostport, scheme string) (host, port string) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), ""
	}
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	return host, port
}
