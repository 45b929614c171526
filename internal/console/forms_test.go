package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/host"
)

// Each session has its own CSRF token: two users signed in at once get
// different ones, neither is accepted in the other's session, and signing
// in again gives a new one.
func TestCSRFTokenPerSession(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	one, two := e.browser(), e.browser()
	tokOne, tokTwo := one.signIn(), two.signIn()
	if tokOne == tokTwo {
		t.Fatalf("two sessions share the CSRF token %q", tokOne)
	}
	if r := one.post("/tokens", url.Values{"name": {"theirs"}, "csrf": {tokTwo}}); r.code != http.StatusForbidden {
		t.Errorf("another session's token: %d", r.code)
	}
	if r := one.post("/tokens", url.Values{"name": {"mine"}, "csrf": {tokOne}}); r.code != http.StatusOK {
		t.Errorf("the session's own token: %d\n%s", r.code, r.body)
	}
	if r := one.post("/logout", url.Values{"csrf": {tokOne}}); r.code != http.StatusSeeOther {
		t.Fatalf("sign out: %d", r.code)
	}
	again := one.signIn()
	if again == tokOne || again == tokTwo {
		t.Errorf("signing in again kept a CSRF token: %q", again)
	}
	if r := one.post("/tokens", url.Values{"name": {"stale"}, "csrf": {tokOne}}); r.code != http.StatusForbidden {
		t.Errorf("the ended session's token: %d", r.code)
	}
}

// Form bodies are bounded at 256 KiB (the documented bound, written here
// as a number): one byte more is refused with 413 before anything reads
// its fields, on the sign-in form and on a signed-in form alike; a body
// under the bound is read (and its over-long name refused at the field).
func TestFormBodyBound(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	const bound = 256 << 10
	b := e.browser()
	tok := b.signIn()
	form := func(size int) url.Values {
		v := url.Values{"csrf": {tok}, "name": {""}}
		v.Set("name", strings.Repeat("n", size-len(v.Encode())))
		if n := len(v.Encode()); n != size {
			t.Fatalf("the form has %d bytes, want %d", n, size)
		}
		return v
	}
	if r := b.post("/tokens", form(bound+1)); r.code != http.StatusRequestEntityTooLarge {
		t.Errorf("a form of %d bytes: %d", bound+1, r.code)
	}
	if r := b.post("/tokens", form(bound)); r.code != http.StatusBadRequest || !strings.Contains(r.body, `id="name-error"`) {
		t.Errorf("a form of %d bytes: %d (want its name refused at the field)", bound, r.code)
	}
	signin := e.browser()
	login := url.Values{"email": {adminEmail}, "password": {adminPass}, "csrf": {csrf(t, signin.get("/").body)}}
	login.Set("next", "/"+strings.Repeat("n", bound+1-len(login.Encode())-len("&next=%2F")))
	if r := signin.post("/login", login); r.code != http.StatusRequestEntityTooLarge || len(login.Encode()) != bound+1 {
		t.Errorf("a sign-in form of %d bytes: %d", len(login.Encode()), r.code)
	}
}

// The sign-in form is bounded per account like /api/login: after 5 wrong
// passwords, even the right one waits (429, Retry-After, saying so);
// once the delay has passed it signs in.
func TestSignInFormThrottledPerAccount(t *testing.T) {
	var mu sync.Mutex
	at := time.Unix(1_700_000_000, 0)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return at
	}
	e := newEnvTuned(t, "sqlite::memory:", false, func(c *host.Config) { c.Now = now })
	b := e.browser()
	try := func(password string) answer {
		t.Helper()
		return b.post("/login", url.Values{"email": {adminEmail}, "password": {password}, "csrf": {csrf(t, b.get("/").body)}})
	}
	for i := range 5 {
		if r := try("wrong password"); r.code != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: %d", i+1, r.code)
		}
	}
	r := try(adminPass)
	if r.code != http.StatusTooManyRequests || r.header.Get("Retry-After") != "1" || !strings.Contains(r.body, "Too many failed sign-ins for this account: try again in 1 s.") {
		t.Fatalf("the right password during the delay: %d %q\n%.2000s", r.code, r.header.Get("Retry-After"), r.body)
	}
	mu.Lock()
	at = at.Add(time.Second)
	mu.Unlock()
	if r := try(adminPass); r.code != http.StatusSeeOther {
		t.Fatalf("the right password after the delay: %d", r.code)
	}
}
