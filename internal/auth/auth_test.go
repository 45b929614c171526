package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// eachDB runs test on each database of testDBs, as subtests named by engine.
func eachDB(t *testing.T, test func(t *testing.T, tdb testDB)) {
	for _, tdb := range testDBs(t) {
		t.Run(tdb.name, func(t *testing.T) { test(t, tdb) })
	}
}

// eachClocked runs test on each database with a service whose time is a
// fresh test clock.
func eachClocked(t *testing.T, test func(t *testing.T, tdb testDB, s *Service, c *clock)) {
	eachDB(t, func(t *testing.T, tdb testDB) {
		c := newClock()
		test(t, tdb, newTestService(t, tdb, c.Now), c)
	})
}

// createUser creates a user, failing the test on an error.
func createUser(t *testing.T, s *Service, email, password string) User {
	t.Helper()
	u, err := s.CreateUser(context.Background(), email, password)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// login signs in, failing the test on an error.
func login(t *testing.T, s *Service, email, password string) (sessionID string, u User) {
	t.Helper()
	sid, u, err := s.Login(context.Background(), email, password)
	if err != nil {
		t.Fatal(err)
	}
	return sid, u
}

func TestEnsureAdmin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachDB(t, func(t *testing.T, tdb testDB) {
		s := newTestService(t, tdb, nil)
		// First start without configuration: default e-mail, generated password.
		first, err := s.EnsureAdmin(ctx, "", "")
		if err != nil {
			t.Fatal(err)
		}
		u, gen := first.User, first.Generated
		if u.Email != DefaultAdminEmail || len(gen) < 16 {
			t.Fatalf("admin = %+v, generated %q", u, gen)
		}
		if _, _, err := s.Login(ctx, DefaultAdminEmail, gen); err != nil {
			t.Fatalf("login with the generated password: %v", err)
		}
		// Second start: same user, nothing generated (the password is shown once).
		again, err := s.EnsureAdmin(ctx, "", "")
		if err != nil || again.User.ID != u.ID || again.Generated != "" || again.PasswordChanged || len(again.Replaced) != 0 {
			t.Fatalf("restart: %+v %v", again, err)
		}
		// A configured e-mail and password: created, then the password follows the flag.
		boss, err := s.EnsureAdmin(ctx, " Boss@Example.com ", "first-pass")
		if err != nil || boss.Generated != "" || boss.User.Email != "boss@example.com" {
			t.Fatalf("configured admin: %+v %v", boss, err)
		}
		if _, err := s.EnsureAdmin(ctx, "boss@example.com", "second-pass"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Login(ctx, "boss@example.com", "first-pass"); !errors.Is(err, ErrInvalidCredentials) {
			t.Fatalf("old password still works: %v", err)
		}
		if _, _, err := s.Login(ctx, "BOSS@example.com", "second-pass"); err != nil {
			t.Fatalf("new password: %v", err)
		}
		// Bad configuration is an error, not a silent default.
		for _, bad := range []struct{ email, pass string }{
			{"no-at-sign", "x"},
			{"a@b", strings.Repeat("p", 73)},
		} {
			if _, err := s.EnsureAdmin(ctx, bad.email, bad.pass); !errors.Is(err, ErrInvalid) {
				t.Errorf("EnsureAdmin(%q, %d bytes) = %v, want ErrInvalid", bad.email, len(bad.pass), err)
			}
		}
		// Opening the service again (a restart) keeps the data.
		s2 := newTestService(t, tdb, nil)
		if _, _, err := s2.Login(ctx, "boss@example.com", "second-pass"); err != nil {
			t.Fatalf("after re-open: %v", err)
		}
	})
}

// Rotating the admin leaves the old credentials nothing: a new password
// ends the admin's sessions (its API tokens stay); a new e-mail replaces
// the admin, whose e-mail, sessions and tokens stop working, and says who
// was replaced.
func TestEnsureAdminRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachDB(t, func(t *testing.T, tdb testDB) {
		s := newTestService(t, tdb, nil)
		if _, err := s.EnsureAdmin(ctx, "old@example.com", "old-password-1"); err != nil {
			t.Fatal(err)
		}
		oldSession, old := login(t, s, "old@example.com", "old-password-1")
		_, oldToken, err := s.CreateToken(ctx, old.ID, "scripts")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Authenticate(ctx, oldToken); err != nil {
			t.Fatal(err)
		}
		// The same password again changes nothing.
		same, err := s.EnsureAdmin(ctx, "old@example.com", "old-password-1")
		if err != nil || same.PasswordChanged || same.EndedSessions != 0 {
			t.Fatalf("the same password: %+v %v", same, err)
		}
		if _, err := s.SessionUser(ctx, oldSession); err != nil {
			t.Fatalf("the session after the same password: %v", err)
		}
		// A new password: the sessions end, the token stays.
		other, _ := login(t, s, "old@example.com", "old-password-1")
		changed, err := s.EnsureAdmin(ctx, "old@example.com", "old-password-2")
		if err != nil || !changed.PasswordChanged || changed.EndedSessions != 2 {
			t.Fatalf("a new password: %+v %v", changed, err)
		}
		for _, sid := range []string{oldSession, other} {
			if _, err := s.SessionUser(ctx, sid); !errors.Is(err, ErrUnauthenticated) {
				t.Errorf("a session of the old password: %v", err)
			}
		}
		if _, _, err := s.Authenticate(ctx, oldToken); err != nil {
			t.Errorf("the admin's token after a new password: %v", err)
		}
		// A new e-mail: the previous admin is replaced.
		oldSession, _ = login(t, s, "old@example.com", "old-password-2")
		rotated, err := s.EnsureAdmin(ctx, "new@example.com", "")
		if err != nil || rotated.User.Email != "new@example.com" || rotated.Generated == "" {
			t.Fatalf("a new e-mail: %+v %v", rotated, err)
		}
		if len(rotated.Replaced) != 1 || rotated.Replaced[0].ID != old.ID || rotated.Replaced[0].Email != "old@example.com" {
			t.Fatalf("replaced %+v", rotated.Replaced)
		}
		if _, _, err := s.Login(ctx, "old@example.com", "old-password-2"); !errors.Is(err, ErrInvalidCredentials) {
			t.Errorf("the previous admin signs in: %v", err)
		}
		if _, err := s.SessionUser(ctx, oldSession); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("the previous admin's session: %v", err)
		}
		if _, _, err := s.Authenticate(ctx, oldToken); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("the previous admin's token: %v", err)
		}
		login(t, s, "new@example.com", rotated.Generated)
		// Without an e-mail the oldest user, now the new admin, stays.
		kept, err := s.EnsureAdmin(ctx, "", "")
		if err != nil || kept.User.Email != "new@example.com" || len(kept.Replaced) != 0 {
			t.Fatalf("no e-mail after the rotation: %+v %v", kept, err)
		}
	})
}

// A password change ends the user's other sessions and keeps the one it
// was made from.
func TestSetPasswordEndsOtherSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachDB(t, func(t *testing.T, tdb testDB) {
		s := newTestService(t, tdb, nil)
		u := createUser(t, s, "ann@example.com", "first password")
		mine, _ := login(t, s, "ann@example.com", "first password")
		theirs, _ := login(t, s, "ann@example.com", "first password")
		changed, ended, err := s.SetPassword(ctx, u.ID, "second password", mine)
		if err != nil || !changed || ended != 1 {
			t.Fatalf("SetPassword: %v %d %v", changed, ended, err)
		}
		if _, err := s.SessionUser(ctx, mine); err != nil {
			t.Errorf("the session that changed the password: %v", err)
		}
		if _, err := s.SessionUser(ctx, theirs); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("another session after the change: %v", err)
		}
		if changed, ended, err := s.SetPassword(ctx, u.ID, "second password", ""); err != nil || changed || ended != 0 {
			t.Errorf("the same password again: %v %d %v", changed, ended, err)
		}
		if _, _, err := s.SetPassword(ctx, "nobody", "x password", ""); !errors.Is(err, ErrNotFound) {
			t.Errorf("no such user: %v", err)
		}
	})
}

func TestLoginSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachClocked(t, func(t *testing.T, tdb testDB, s *Service, c *clock) {
		createUser(t, s, "ann@example.com", "correct horse")
		for _, tc := range []struct{ email, pass string }{
			{"ann@example.com", "wrong"},
			{"bob@example.com", "correct horse"},
			{"", ""},
			{"ann@example.com", strings.Repeat("x", 100)},
		} {
			if _, _, err := s.Login(ctx, tc.email, tc.pass); !errors.Is(err, ErrInvalidCredentials) {
				t.Errorf("Login(%q, %q) = %v, want ErrInvalidCredentials", tc.email, tc.pass, err)
			}
		}
		sid, u := login(t, s, "ann@example.com", "correct horse")
		if len(sid) < 40 {
			t.Fatalf("session id %q is short", sid)
		}
		var stored int
		if err := tdb.db.QueryRow(tdb.d.Rebind(`SELECT COUNT(*) FROM host_sessions WHERE id_hash = ?`), sid).Scan(&stored); err != nil || stored != 0 {
			t.Fatalf("session id stored in clear (%d, %v)", stored, err)
		}
		got, err := s.SessionUser(ctx, sid)
		if err != nil || got.ID != u.ID {
			t.Fatalf("SessionUser = %+v, %v", got, err)
		}
		if _, err := s.SessionUser(ctx, sid+"x"); !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("forged session: %v", err)
		}
		c.Advance(s.SessionTTL() + time.Second)
		if _, err := s.SessionUser(ctx, sid); !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("expired session: %v", err)
		}
		sid2, _ := login(t, s, "ann@example.com", "correct horse")
		if err := s.Logout(ctx, sid2); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionUser(ctx, sid2); !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("after logout: %v", err)
		}
	})
}

func TestTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachClocked(t, func(t *testing.T, tdb testDB, s *Service, c *clock) {
		ann := createUser(t, s, "ann@example.com", "pw-ann")
		bob := createUser(t, s, "bob@example.com", "pw-bob")
		tok, value, err := s.CreateToken(ctx, ann.ID, " scripts ")
		if err != nil {
			t.Fatal(err)
		}
		if len(value) != 43 || tok.Name != "scripts" || tok.LastUsed != nil {
			t.Fatalf("token %+v value %q", tok, value)
		}
		var n int
		if err := tdb.db.QueryRow(tdb.d.Rebind(`SELECT COUNT(*) FROM host_tokens WHERE token_hash = ?`), Hash(value)).Scan(&n); err != nil || n != 1 {
			t.Fatalf("token not stored by hash: %d %v", n, err)
		}
		u, got, err := s.Authenticate(ctx, value)
		if err != nil || u.ID != ann.ID || got.ID != tok.ID || got.LastUsed == nil || !got.LastUsed.Equal(c.Now()) {
			t.Fatalf("Authenticate = %+v %+v %v", u, got, err)
		}
		for _, bad := range []string{"", value + "x", strings.Repeat("a", 600)} {
			if _, _, err := s.Authenticate(ctx, bad); !errors.Is(err, ErrUnauthenticated) {
				t.Errorf("Authenticate(%.10q) = %v", bad, err)
			}
		}
		// The list never holds the value; last-used is kept to the minute.
		c.Advance(30 * time.Second)
		if _, _, err := s.Authenticate(ctx, value); err != nil {
			t.Fatal(err)
		}
		list, err := s.ListTokens(ctx, ann.ID)
		if err != nil || len(list) != 1 {
			t.Fatalf("ListTokens = %+v %v", list, err)
		}
		b, _ := json.Marshal(list)
		if strings.Contains(string(b), value) || !strings.Contains(string(b), `"last-used-at":"2026-01-02T03:04:05Z"`) {
			t.Fatalf("list JSON %s", b)
		}
		if other, _ := s.ListTokens(ctx, bob.ID); len(other) != 0 {
			t.Fatalf("bob sees %+v", other)
		}
		// Bob cannot delete Ann's token; Ann can, and then it is refused.
		if err := s.DeleteToken(ctx, bob.ID, tok.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("cross-user delete: %v", err)
		}
		if err := s.DeleteToken(ctx, ann.ID, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Authenticate(ctx, value); !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("deleted token: %v", err)
		}
		if err := s.DeleteToken(ctx, ann.ID, tok.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
	})
}

func TestRegisterToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachDB(t, func(t *testing.T, tdb testDB) {
		s := newTestService(t, tdb, nil)
		setup, err := s.EnsureAdmin(ctx, "", "pw")
		if err != nil {
			t.Fatal(err)
		}
		admin := setup.User
		first, err := s.RegisterToken(ctx, admin.ID, "dev-token-0123456789", "--token")
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.RegisterToken(ctx, admin.ID, "dev-token-0123456789", "--token")
		if err != nil || again.ID != first.ID {
			t.Fatalf("second registration = %+v %v, want the same token %s", again, err, first.ID)
		}
		if list, _ := s.ListTokens(ctx, admin.ID); len(list) != 1 {
			t.Fatalf("%d tokens after two registrations", len(list))
		}
		if u, _, err := s.Authenticate(ctx, "dev-token-0123456789"); err != nil || u.ID != admin.ID {
			t.Fatalf("Authenticate = %+v %v", u, err)
		}
		for _, bad := range []string{"", "short-token-15c", "has space but long enough", "tab\there-and-long-enough", strings.Repeat("t", 513)} {
			if _, err := s.RegisterToken(ctx, admin.ID, bad, ""); !errors.Is(err, ErrInvalid) {
				t.Errorf("RegisterToken(%.12q) = %v, want ErrInvalid", bad, err)
			}
		}
	})
}

// TestAuthenticateCache: a check is remembered for AuthCacheTTL; a deletion
// through the same service is seen at once, one through another process
// (another Service on the database) within the TTL.
func TestAuthenticateCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachClocked(t, func(t *testing.T, tdb testDB, s *Service, c *clock) {
		other := newTestService(t, tdb, c.Now)
		u := createUser(t, s, "ann@example.com", "pw")
		tok, value, err := s.CreateToken(ctx, u.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Authenticate(ctx, value); err != nil {
			t.Fatal(err)
		}
		if err := other.DeleteToken(ctx, u.ID, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Authenticate(ctx, value); err != nil {
			t.Fatalf("within the TTL the cached check holds: %v", err)
		}
		c.Advance(AuthCacheTTL)
		if _, _, err := s.Authenticate(ctx, value); !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("after the TTL: %v", err)
		}
	})
}

// TestLoginSweepsExpiredSessions: every sign-in deletes the sessions that
// have expired, so the table holds only live ones however many sign-ins
// there were.
func TestLoginSweepsExpiredSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachClocked(t, func(t *testing.T, tdb testDB, s *Service, c *clock) {
		createUser(t, s, "ann@example.com", "correct horse")
		count := func() int {
			t.Helper()
			var n int
			if err := tdb.db.QueryRow(`SELECT COUNT(*) FROM host_sessions`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		for i := 0; i < 5; i++ {
			login(t, s, "ann@example.com", "correct horse")
		}
		if n := count(); n != 5 {
			t.Fatalf("%d sessions after 5 sign-ins, want 5", n)
		}
		c.Advance(s.SessionTTL() / 2)
		login(t, s, "ann@example.com", "correct horse")
		if n := count(); n != 6 {
			t.Fatalf("%d sessions with none expired, want 6", n)
		}
		// The first five expire; the sixth is still live.
		c.Advance(s.SessionTTL()/2 + time.Second)
		live, _ := login(t, s, "ann@example.com", "correct horse")
		if n := count(); n != 2 {
			t.Fatalf("%d sessions after a sign-in past five expiries, want 2 (the live one and the new one)", n)
		}
		if _, err := s.SessionUser(ctx, live); err != nil {
			t.Fatalf("the new session: %v", err)
		}
	})
}

func TestOperatorSecretStrength(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{"a", false},
		{strings.Repeat("t", MinTokenLength-1), false},
		{strings.Repeat("t", MinTokenLength), true},
		{strings.Repeat("é", MinTokenLength), true}, // characters, not bytes
	} {
		if err := ValidateTokenValue(tc.value); (err == nil) != tc.ok {
			t.Errorf("ValidateTokenValue(%q) = %v, want ok %v", tc.value, err, tc.ok)
		} else if err != nil && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "at least 16")) {
			t.Errorf("ValidateTokenValue(%q) = %v, want ErrInvalid naming the minimum", tc.value, err)
		}
	}
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{"a", false},
		{strings.Repeat("p", MinPasswordLength-1), false},
		{strings.Repeat("p", MinPasswordLength), true},
		{strings.Repeat("p", 73), false}, // bcrypt's limit
	} {
		if err := ValidatePassword(tc.value); (err == nil) != tc.ok {
			t.Errorf("ValidatePassword(%q) = %v, want ok %v", tc.value, err, tc.ok)
		}
	}
	if err := ValidatePassword("a"); err == nil || !strings.Contains(err.Error(), "at least 12") {
		t.Errorf("ValidatePassword(short) = %v, want the minimum named", err)
	}
}

// The session cookie is the same wherever it is set (the host's API and the
// console): HttpOnly, SameSite=Lax, on every path, Secure over TLS, for the
// session's TTL; with no session id it clears the cookie.
func TestSessionCookie(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	s := &Service{ttl: 12 * time.Hour, now: func() time.Time { return now }}
	for _, tc := range []struct {
		sid    string
		secure bool
		want   string
	}{
		{"abc", false, "appkit_session=abc; Path=/; Expires=*; Max-Age=43200; HttpOnly; SameSite=Lax"},
		{"abc", true, "appkit_session=abc; Path=/; Expires=*; Max-Age=43200; HttpOnly; Secure; SameSite=Lax"},
		{"", false, "appkit_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"},
		{"", true, "appkit_session=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax"},
	} {
		c := s.SessionCookie("appkit_session", tc.sid, tc.secure)
		got := c.String()
		if !c.Expires.IsZero() {
			if want := now.Add(s.ttl); !c.Expires.Equal(want) {
				t.Errorf("%q expires at %v, want %v (the service's clock and the TTL)", tc.sid, c.Expires, want)
			}
			got = strings.Replace(got, c.Expires.UTC().Format(http.TimeFormat), "*", 1)
		}
		if got != tc.want {
			t.Errorf("SessionCookie(%q, %v) = %s, want %s", tc.sid, tc.secure, got, tc.want)
		}
	}
}
