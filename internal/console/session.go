package console

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/appkitgo/appkit/internal/auth"
)

// session is the signed-in user of a request.
type session struct {
	user auth.User
	csrf string
}

type sessionKey struct{}

func sessionFrom(ctx context.Context) *session {
	s, _ := ctx.Value(sessionKey{}).(*session)
	return s
}

// withSession is r with the signed-in user s, for sessionFrom.
func withSession(r *http.Request, s *session) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), sessionKey{}, s))
}

// csrfOf derives a session's CSRF token from its (secret, HttpOnly) id.
func csrfOf(sid string) string {
	sum := sha256.Sum256([]byte("appkit console csrf\x00" + sid))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// currentSession returns the session of the request's cookie, or nil.
func (c *Console) currentSession(r *http.Request) (*session, error) {
	ck, err := r.Cookie(c.cfg.SessionCookie)
	if err != nil || ck.Value == "" {
		return nil, nil
	}
	u, err := c.cfg.Auth.SessionUser(r.Context(), ck.Value)
	if errors.Is(err, auth.ErrUnauthenticated) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("console: session: %w", err)
	}
	return &session{user: u, csrf: csrfOf(ck.Value)}, nil
}

// errStaleCSRF refuses a signed-in user's form without the session's
// CSRF token.
var errStaleCSRF = &pageError{Status: http.StatusForbidden, Title: "Refused", Message: "The form's security token is missing or stale: reload the page and try again."}

// user requires a signed-in user; on a POST also a same-origin request with
// the session's CSRF token and a bounded form.
func (c *Console) user(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		s, err := c.currentSession(r)
		if err != nil {
			return err
		}
		if s == nil {
			if r.Method == http.MethodGet {
				return c.signinPage(w, r, http.StatusUnauthorized, layout{Title: "Sign in", Next: safeNext(r.URL.RequestURI()), Error: "Sign in to see this page."})
			}
			return c.signinPage(w, r, http.StatusUnauthorized, layout{Title: "Sign in", Error: "Your session has ended: sign in again (what you sent was not saved)."})
		}
		r = withSession(r, s)
		if r.Method == http.MethodPost {
			if err := readForm(w, r); err != nil {
				return err
			}
			if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(s.csrf)) != 1 {
				return errStaleCSRF
			}
		}
		return h(w, r)
	}
}

// readForm checks the origin and parses a bounded form body (at most
// MaxForm bytes).
func readForm(w http.ResponseWriter, r *http.Request) error {
	if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r) {
		return &pageError{Status: http.StatusForbidden, Title: "Refused", Message: "Cross-origin form refused."}
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxForm)
	if err := r.ParseForm(); err != nil {
		return &pageError{Status: http.StatusRequestEntityTooLarge, Title: "Refused", Message: fmt.Sprintf("The form could not be read (at most %d bytes).", MaxForm)}
	}
	return nil
}

// sameOrigin reports whether origin is the request's own scheme://host.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return strings.EqualFold(u.Scheme, scheme) && strings.EqualFold(u.Host, r.Host) && (u.Path == "" || u.Path == "/")
}

// maxNext bounds a return address.
const maxNext = 2048

// safeNext keeps a return address on this host: a path ("/..."), judged
// as a browser will read it, else "/". A browser removes tabs and newlines
// anywhere in an address and reads "\" as "/" before resolving it, so
// "/\t/evil.example" would lead to //evil.example: an address holding any
// control character (tab included) is refused, and what is left once tabs
// and newlines are removed and "\" is read as "/" must not start with "//".
// It must also parse as a URL without scheme, host or user.
func safeNext(next string) string {
	if next == "" || len(next) > maxNext {
		return "/"
	}
	if strings.IndexFunc(next, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return "/"
	}
	read := strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(next)
	if !strings.HasPrefix(read, "/") || strings.HasPrefix(read, "//") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	return next
}
