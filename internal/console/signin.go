package console

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/internal/auth"
)

// home is the sign-in form for a signed-out visitor, the apps otherwise.
func (c *Console) home(w http.ResponseWriter, r *http.Request) {
	s, err := c.currentSession(r)
	if err != nil {
		c.internal(w, r, err)
		return
	}
	if s == nil {
		c.signinPage(w, r, http.StatusOK, &page{Title: "Sign in", Next: safeNext(r.URL.Query().Get("next"))})
		return
	}
	c.user(c.appsPage).ServeHTTP(w, r)
}

// signinPage renders the sign-in form with a fresh login CSRF value, set in
// a SameSite=Strict cookie as well.
func (c *Console) signinPage(w http.ResponseWriter, r *http.Request, status int, p *page) {
	v := randomToken()
	http.SetCookie(w, &http.Cookie{
		Name: loginCookie, Value: v, Path: "/", MaxAge: 3600,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
	})
	p.LoginCSRF = v
	c.render(w, r, status, "signin", p)
}

// login signs in with the host's users and sets the host's session cookie.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	if ok, retry := c.cfg.AllowSignIn(r); !ok {
		secs := retrySeconds(retry)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		c.signinPage(w, r, http.StatusTooManyRequests, &page{Title: "Sign in", Error: fmt.Sprintf("Too many sign-in attempts from your address: try again in %d s.", secs)})
		return
	}
	if !c.formOK(w, r) {
		return
	}
	ck, err := r.Cookie(loginCookie)
	if err != nil || ck.Value == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(r.PostForm.Get("csrf"))) != 1 {
		c.signinPage(w, r, http.StatusForbidden, &page{Title: "Sign in", Error: "The form's security token is missing or stale: try again."})
		return
	}
	email, password := strings.TrimSpace(r.PostForm.Get("email")), r.PostForm.Get("password")
	next := safeNext(r.PostForm.Get("next"))
	fe := map[string]string{}
	if email == "" || !strings.Contains(email, "@") {
		fe["email"] = "Enter the e-mail address of a user of this host."
	}
	if password == "" {
		fe["password"] = "Enter the password."
	}
	back := func(status int, msg string) {
		c.signinPage(w, r, status, &page{Title: "Sign in", Error: msg, FieldErrors: fe, Form: map[string][]string{"email": {email}}, Next: next})
	}
	if len(fe) > 0 {
		back(http.StatusBadRequest, "")
		return
	}
	sid, _, err := c.cfg.Auth.Login(r.Context(), email, password)
	var throttled *auth.ThrottledError
	switch {
	case errors.As(err, &throttled):
		secs := retrySeconds(throttled.RetryAfter)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		back(http.StatusTooManyRequests, fmt.Sprintf("Too many failed sign-ins for this account: try again in %d s.", secs))
		return
	case errors.Is(err, auth.ErrBusy):
		w.Header().Set("Retry-After", "1")
		back(http.StatusServiceUnavailable, "Too many sign-ins in progress: try again in a moment.")
		return
	case errors.Is(err, auth.ErrInvalidCredentials):
		back(http.StatusUnauthorized, "Invalid e-mail or password.")
		return
	}
	if err != nil {
		c.internal(w, r, err)
		return
	}
	http.SetCookie(w, c.cfg.Auth.SessionCookie(c.cfg.SessionCookie, sid, r.TLS != nil))
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	redirect(w, r, next)
}

// retrySeconds is a Retry-After in whole seconds, at least 1.
func retrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(c.cfg.SessionCookie); err == nil {
		if err := c.cfg.Auth.Logout(r.Context(), ck.Value); err != nil {
			c.internal(w, r, err)
			return
		}
	}
	http.SetCookie(w, c.cfg.Auth.SessionCookie(c.cfg.SessionCookie, "", r.TLS != nil))
	redirect(w, r, "/")
}

type tokensData struct {
	Tokens []auth.Token
	// Created is the token just created, with its value (shown once).
	Created *auth.Token
	Value   string
}

func (c *Console) tokens(w http.ResponseWriter, r *http.Request) {
	c.tokensPage(w, r, http.StatusOK, &page{}, &tokensData{})
}

func (c *Console) tokensPage(w http.ResponseWriter, r *http.Request, status int, p *page, d *tokensData) {
	list, err := c.cfg.Auth.ListTokens(r.Context(), sessionFrom(r.Context()).user.ID)
	if err != nil {
		c.internal(w, r, err)
		return
	}
	d.Tokens = list
	p.Title, p.Nav, p.Data = "API tokens", "tokens", d
	c.render(w, r, status, "tokens", p)
}

func (c *Console) createToken(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostForm.Get("name"))
	t, value, err := c.cfg.Auth.CreateToken(r.Context(), sessionFrom(r.Context()).user.ID, name)
	if errors.Is(err, auth.ErrInvalid) {
		c.tokensPage(w, r, http.StatusBadRequest, &page{FieldErrors: map[string]string{"name": err.Error()}, Form: r.PostForm}, &tokensData{})
		return
	}
	if err != nil {
		c.internal(w, r, err)
		return
	}
	c.tokensPage(w, r, http.StatusOK, &page{Notice: "Token created: copy its value now, it is not shown again."}, &tokensData{Created: &t, Value: value})
}

func (c *Console) revokeToken(w http.ResponseWriter, r *http.Request) {
	err := c.cfg.Auth.DeleteToken(r.Context(), sessionFrom(r.Context()).user.ID, r.PathValue("id"))
	if errors.Is(err, auth.ErrNotFound) {
		c.tokensPage(w, r, http.StatusNotFound, &page{Error: "No such token (already revoked?)."}, &tokensData{})
		return
	}
	if err != nil {
		c.internal(w, r, err)
		return
	}
	redirect(w, r, "/tokens")
}
