package host_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// Rotating the admin through the host's configuration (what appkit host
// does with APPKIT_ADMIN_PASSWORD and APPKIT_ADMIN_EMAIL at each start): a
// new password ends the admin's sessions; a new e-mail replaces the admin,
// whose e-mail and sessions stop working, the start-up token following
// the new admin; the notice says plainly what happened.
func TestAdminRotation(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := teststore.Open(t, dsn)
		const devToken = "rotation-token-0123456789"
		start := func(email, password string) (*env, string) {
			t.Helper()
			var notice bytes.Buffer
			h, err := host.New(ctx, host.Config{Store: st, PasswordCost: 4, AdminEmail: email, AdminPassword: password, Token: devToken, Notice: &notice})
			if err != nil {
				t.Fatal(err)
			}
			e := &env{t: t}
			e.srvFrom(h)
			return e, notice.String()
		}
		signIn := func(e *env, email, password string) int {
			return e.do("POST", "/api/login", "", `{"email":"`+email+`","password":"`+password+`"}`).code
		}
		first, _ := start("old@example.com", "old-password-1")
		if code := signIn(first, "old@example.com", "old-password-1"); code != http.StatusOK {
			t.Fatalf("sign in: %d", code)
		}
		if r := first.do("GET", "/api/tokens", "", ""); r.code != http.StatusOK {
			t.Fatalf("the session: %d", r.code)
		}

		// Restart with a new password: the session ends.
		second, notice := start("old@example.com", "old-password-2")
		if !strings.Contains(notice, "the admin password of old@example.com changed: 1 of its sessions were ended") {
			t.Errorf("the notice of a new password: %q", notice)
		}
		if r := first.do("GET", "/api/tokens", "", ""); r.code != http.StatusUnauthorized {
			t.Errorf("a session of the old password: %d", r.code)
		}
		if code := signIn(second, "old@example.com", "old-password-2"); code != http.StatusOK {
			t.Fatalf("sign in with the new password: %d", code)
		}
		// The same password at the next start changes nothing.
		if _, notice := start("old@example.com", "old-password-2"); notice != "" {
			t.Errorf("a restart with the same settings said %q", notice)
		}
		if r := second.do("GET", "/api/tokens", "", ""); r.code != http.StatusOK {
			t.Errorf("the session after a restart with the same password: %d", r.code)
		}

		// Restart with a new e-mail: the previous admin is gone.
		third, notice := start("new@example.com", "new-password-1")
		if !strings.Contains(notice, "the admin e-mail is now new@example.com: the previous admin old@example.com was removed") {
			t.Errorf("the notice of a new admin: %q", notice)
		}
		if code := signIn(third, "old@example.com", "old-password-2"); code != http.StatusUnauthorized {
			t.Errorf("the previous admin signs in: %d", code)
		}
		if r := second.do("GET", "/api/tokens", "", ""); r.code != http.StatusUnauthorized {
			t.Errorf("the previous admin's session: %d", r.code)
		}
		if code := signIn(third, "new@example.com", "new-password-1"); code != http.StatusOK {
			t.Errorf("the new admin signs in: %d", code)
		}
		r := third.do("GET", "/api/tokens", "", "")
		if r.code != http.StatusOK || !strings.Contains(string(r.raw), `"--token"`) {
			t.Errorf("the start-up token is not the new admin's: %d %s", r.code, r.raw)
		}
		if r := third.do("POST", "/api/commands", devToken, `[{"command":"platform.schema/query"}]`); r.code != http.StatusOK {
			t.Errorf("the start-up token: %d %s", r.code, r.raw)
		}
	})
}
