package appkit

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v5"
)

// A request's masker is made once, when first needed, and again only when
// more secrets were noted since; without secrets there is none.
func TestRequestMaskerMadeOnce(t *testing.T) {
	t.Parallel()
	d := &logDetails{}
	if d.secretMasker() != nil {
		t.Fatal("a masker without secrets")
	}
	d.secrets = append(d.secrets, "first-secret")
	m := d.secretMasker()
	if m == nil || d.secretMasker() != m {
		t.Fatal("the masker was not kept for the request")
	}
	d.secrets = append(d.secrets, "second-secret")
	m2 := d.secretMasker()
	if m2 == m || d.secretMasker() != m2 {
		t.Fatal("the masker was not made again for the secret noted since")
	}
	if got := m2.MaskValues("first-secret second-secret"); got != "*** ***" {
		t.Errorf("MaskValues = %q", got)
	}
}

// The Basic spellings of an account are masked when it has a password;
// without one (BasicAuthPassword.Get reports "" as none), base64 of
// "user:" is no secret and is not masked.
func TestNoteSecretsBasic(t *testing.T) {
	t.Parallel()
	userOnly := base64.StdEncoding.EncodeToString([]byte("alice:"))
	withPassword := base64.StdEncoding.EncodeToString([]byte("alice:pw-1234"))
	for _, tc := range []struct {
		name    string
		account map[string]any
		text    string
		want    string
	}{
		{"password", map[string]any{"username": "alice", "password": "pw-1234"}, "Basic " + withPassword, "Basic ***"},
		{"empty password", map[string]any{"username": "alice", "password": ""}, "Basic " + userOnly, "Basic " + userOnly},
		{"no password", map[string]any{"username": "alice"}, "Basic " + userOnly, "Basic " + userOnly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &server{b: &built{}}
			c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/", nil), httptest.NewRecorder())
			d := &logDetails{}
			c.Set(logKey, d)
			s.noteSecrets(c, tc.account)
			if got := d.secretMasker().MaskValues(tc.text); got != tc.want {
				t.Errorf("MaskValues(%q) = %q, want %q (secrets %d)", tc.text, got, tc.want, len(d.secrets))
			}
		})
	}
}
