package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/appkitgo/appkit/internal/auth"
)

// home is the sign-in form for a signed-out visitor, the apps otherwise.
func (c *Console) home(w http.ResponseWriter, r *http.Request) error {
	s, err := c.currentSession(r)
	if err != nil {
		return err
	}
	if s == nil {
		return c.signinPage(w, r, http.StatusOK, layout{Title: "Sign in", Next: safeNext(r.URL.Query().Get("next"))})
	}
	return c.appsPage(w, withSession(r, s))
}

// signinPage renders the sign-in form with a fresh login CSRF value, set in
// a SameSite=Strict cookie as well.
func (c *Console) signinPage(w http.ResponseWriter, r *http.Request, status int, l layout) error {
	v := randomToken()
	http.SetCookie(w, &http.Cookie{
		Name: loginCookie, Value: v, Path: "/", MaxAge: 3600,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
	})
	l.LoginCSRF = v
	return signinScreen.show(c, w, r, status, l, noView{})
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// login signs in with the host's users and sets the host's session cookie.
func (c *Console) login(w http.ResponseWriter, r *http.Request) error {
	if ok, retry := c.cfg.AllowSignIn(r); !ok {
		secs := retrySeconds(retry)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		return c.signinPage(w, r, http.StatusTooManyRequests, layout{Title: "Sign in", Error: fmt.Sprintf("Too many sign-in attempts from your address: try again in %d s.", secs)})
	}
	if err := readForm(w, r); err != nil {
		return err
	}
	ck, err := r.Cookie(loginCookie)
	if err != nil || ck.Value == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(r.PostForm.Get("csrf"))) != 1 {
		return c.signinPage(w, r, http.StatusForbidden, layout{Title: "Sign in", Error: "The form's security token is missing or stale: try again."})
	}
	f, err := parseLoginForm(r.PostForm)
	fe, _ := formProblems(err)
	back := func(status int, msg string) error {
		return c.signinPage(w, r, status, layout{Title: "Sign in", Error: msg, FieldErrors: fe, Form: url.Values{"email": {f.Email}}, Next: f.Next})
	}
	if len(fe) > 0 {
		return back(http.StatusBadRequest, "")
	}
	sid, _, err := c.cfg.Auth.Login(r.Context(), f.Email, f.Password)
	var throttled *auth.ThrottledError
	switch {
	case errors.As(err, &throttled):
		secs := retrySeconds(throttled.RetryAfter)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		return back(http.StatusTooManyRequests, fmt.Sprintf("Too many failed sign-ins for this account: try again in %d s.", secs))
	case errors.Is(err, auth.ErrBusy):
		w.Header().Set("Retry-After", "1")
		return back(http.StatusServiceUnavailable, "Too many sign-ins in progress: try again in a moment.")
	case errors.Is(err, auth.ErrInvalidCredentials):
		return back(http.StatusUnauthorized, "Invalid e-mail or password.")
	case err != nil:
		return fmt.Errorf("console: sign in: %w", err)
	}
	http.SetCookie(w, c.cfg.Auth.SessionCookie(c.cfg.SessionCookie, sid, r.TLS != nil))
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return redirect(w, r, f.Next)
}

// retrySeconds is a Retry-After in whole seconds, at least 1.
func retrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request) error {
	if ck, err := r.Cookie(c.cfg.SessionCookie); err == nil {
		if err := c.cfg.Auth.Logout(r.Context(), ck.Value); err != nil {
			return fmt.Errorf("console: sign out: %w", err)
		}
	}
	http.SetCookie(w, c.cfg.Auth.SessionCookie(c.cfg.SessionCookie, "", r.TLS != nil))
	return redirect(w, r, "/")
}
