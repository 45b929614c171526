package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// "appkit host" started again on one store with a new
// APPKIT_ADMIN_EMAIL replaces the admin and says so on stderr: the
// previous admin no longer signs in, the new one does.
func TestHostAdminEmailRotation(t *testing.T) {
	store := "sqlite:" + filepath.Join(t.TempDir(), "host.db")
	t.Setenv("APPKIT_SECRET_KEY", "")
	t.Setenv("APPKIT_ADMIN_EMAIL", "old@example.com")
	t.Setenv("APPKIT_ADMIN_PASSWORD", "old-password-1")
	_, stop, _ := startHost(t, "--addr", "127.0.0.1:0", "--store", store)
	if code := stop(); code != 0 {
		t.Fatalf("the first host exited with %d", code)
	}
	t.Setenv("APPKIT_ADMIN_EMAIL", "new@example.com")
	t.Setenv("APPKIT_ADMIN_PASSWORD", "new-password-1")
	base, _, stderr := startHost(t, "--addr", "127.0.0.1:0", "--store", store)
	if !strings.Contains(stderr.String(), "the admin e-mail is now new@example.com: the previous admin old@example.com was removed") {
		t.Errorf("stderr does not say what became of the previous admin:\n%s", stderr.String())
	}
	if code, _ := post(t, base+"/api/login", "", `{"email":"old@example.com","password":"old-password-1"}`); code != 401 {
		t.Errorf("the previous admin signs in: %d", code)
	}
	if code, _ := post(t, base+"/api/login", "", `{"email":"new@example.com","password":"new-password-1"}`); code != 200 {
		t.Errorf("the new admin: %d", code)
	}
}
