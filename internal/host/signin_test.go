package host_test

import (
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/testkit"
)

// movingClock is a clock the test moves by hand.
type movingClock struct {
	mu gosync.Mutex
	t  time.Time
}

func newMovingClock() *movingClock { return &movingClock{t: time.Unix(1_700_000_000, 0)} }

func (c *movingClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *movingClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// loopbackProxy trusts the test's own connections as a reverse proxy, so
// that X-Forwarded-For says which client a request is from.
var loopbackProxy = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// signInFrom posts a sign-in as the client at addr (X-Forwarded-For; ""
// sends none) and returns the status and Retry-After.
func (e *env) signInFrom(addr, email, password string) (int, string) {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/login", strings.NewReader(`{"email":"`+email+`","password":"`+password+`"}`))
	req.Header.Set("Content-Type", "application/json")
	if addr != "" {
		req.Header.Set("X-Forwarded-For", addr)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// Guessing one account's password from 40 addresses is bounded per
// account: 5 wrong passwords are checked, then each attempt waits (429
// with Retry-After, the password not checked, whatever the address),
// longer after each failure; it is a delay, not a lock-out: once it has
// passed, the right password signs in.
func TestSignInThrottledPerAccount(t *testing.T) {
	t.Parallel()
	// Each engine's host has a clock of its own: the engines' subtests run
	// side by side, and one moving a shared clock would end the other's
	// delays early.
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		clock := newMovingClock()
		e := newEnv(t, dsn, host.Config{Now: clock.now, TrustedProxies: loopbackProxy})
		checked, refused := 0, 0
		for i := range 40 {
			code, retry := e.signInFrom(fmt.Sprintf("198.51.100.%d", i+1), adminEmail, fmt.Sprintf("guess-%d", i))
			switch code {
			case http.StatusUnauthorized:
				checked++
			case http.StatusTooManyRequests:
				refused++
				if retry != "1" {
					t.Errorf("attempt %d: Retry-After %q, want 1", i+1, retry)
				}
			default:
				t.Fatalf("attempt %d: %d", i+1, code)
			}
		}
		if checked != auth.DefaultFreeFailures || refused != 40-auth.DefaultFreeFailures {
			t.Fatalf("40 wrong passwords from 40 addresses: %d checked, %d refused", checked, refused)
		}
		// The right password, from yet another address, waits too.
		if code, _ := e.signInFrom("198.51.100.200", adminEmail, adminPass); code != http.StatusTooManyRequests {
			t.Fatalf("the right password during the delay: %d", code)
		}
		clock.advance(time.Second)
		if code, _ := e.signInFrom("198.51.100.201", adminEmail, "still wrong"); code != http.StatusUnauthorized {
			t.Fatalf("a wrong password after the delay: %d", code)
		}
		if code, retry := e.signInFrom("198.51.100.202", adminEmail, adminPass); code != http.StatusTooManyRequests || retry != "2" {
			t.Fatalf("the next attempt waits twice as long: %d, Retry-After %q", code, retry)
		}
		clock.advance(2 * time.Second)
		if code, _ := e.signInFrom("198.51.100.203", adminEmail, adminPass); code != http.StatusOK {
			t.Fatalf("the right password after the delay: %d", code)
		}
	})
}

// The host counts a client by the connection's address and believes no
// X-Forwarded-For unless the connection comes from a trusted proxy; then
// the client is the first address right of the trusted ones, and an IPv6
// client counts with its /64.
func TestClientAddressBehindProxies(t *testing.T) {
	t.Parallel()
	// tenThenRefused signs in 10 times as the clients of addrs (each a
	// different e-mail, so that no account is delayed), then once as
	// next, and returns that last status.
	tenThenRefused := func(e *env, addrs func(i int) string, next string) int {
		e.t.Helper()
		for i := range 10 {
			if code, _ := e.signInFrom(addrs(i), fmt.Sprintf("x%d@example.com", i), "guess"); code != http.StatusUnauthorized {
				e.t.Fatalf("attempt %d from %q: %d", i+1, addrs(i), code)
			}
		}
		code, _ := e.signInFrom(next, "y@example.com", "guess")
		return code
	}
	t.Run("no proxy trusted", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, "sqlite::memory:", host.Config{Now: stoppedClock()})
		// A client cannot pick its bucket with a forged header.
		if code := tenThenRefused(e, func(i int) string { return fmt.Sprintf("203.0.113.%d", i) }, "203.0.113.99"); code != http.StatusTooManyRequests {
			t.Errorf("the 11th attempt from one connection, each naming another address: %d", code)
		}
		if !strings.Contains(e.logs.String(), `"remote":"127.0.0.1"`) || strings.Contains(e.logs.String(), "203.0.113.") {
			t.Errorf("the log names a forwarded address:\n%s", e.logs.String())
		}
	})
	t.Run("loopback trusted", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, "sqlite::memory:", host.Config{Now: stoppedClock(), TrustedProxies: loopbackProxy})
		if code := tenThenRefused(e, func(int) string { return "203.0.113.7" }, "203.0.113.7"); code != http.StatusTooManyRequests {
			t.Errorf("the 11th attempt of one client: %d", code)
		}
		// What the client itself wrote left of the proxy's entry does not
		// count: this is still 203.0.113.7.
		if code, _ := e.signInFrom("198.51.100.1, 203.0.113.7", "z@example.com", "guess"); code != http.StatusTooManyRequests {
			t.Errorf("a client's own X-Forwarded-For entry was believed: %d", code)
		}
		if code, _ := e.signInFrom("203.0.113.8", "z@example.com", "guess"); code != http.StatusUnauthorized {
			t.Errorf("another client behind the proxy: %d", code)
		}
		if !strings.Contains(e.logs.String(), `"remote":"203.0.113.8"`) {
			t.Errorf("the log does not name the forwarded client:\n%s", e.logs.String())
		}
	})
	t.Run("IPv6 by /64", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, "sqlite::memory:", host.Config{Now: stoppedClock(), TrustedProxies: loopbackProxy})
		if code := tenThenRefused(e, func(i int) string { return fmt.Sprintf("2001:db8:1:2::%x", i+1) }, "2001:db8:1:2:ffff:ffff:ffff:ffff"); code != http.StatusTooManyRequests {
			t.Errorf("the 11th attempt from one /64: %d", code)
		}
		if code, _ := e.signInFrom("2001:db8:1:3::1", "z@example.com", "guess"); code != http.StatusUnauthorized {
			t.Errorf("another /64: %d", code)
		}
	})
}
