package upstream_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
	"github.com/appkitgo/appkit/internal/testkit"
)

// escaping is a secret that every encoding spells differently: a query
// string (p%40ss+word%2F%2B%26), a path (p@ss%20word/+&), JSON
// (p@ss word/+\u0026), base64.
const escaping = "p@ss word/+&"

// spellings are the forms of a secret that must never be shown.
func spellings(sec string) []string {
	quoted, _ := json.Marshal(sec)
	return []string{sec, url.QueryEscape(sec), url.PathEscape(sec), (&url.URL{Path: sec}).EscapedPath(),
		string(quoted[1 : len(quoted)-1]), base64.StdEncoding.EncodeToString([]byte(sec))}
}

// TestSecretsMaskedInEveryForm: an upstream that echoes what it was sent
// (the Authorization header, the query, the path, a JSON-escaped value)
// in its error answer: neither the error the app answers nor the debug
// log line shows the credential in any spelling, Basic's base64 of
// user:password and its password alone included.
func TestSecretsMaskedInEveryForm(t *testing.T) {
	t.Parallel()
	basic := upstream.Basic("user", "password")
	basicAcct := appkit.Account{"user": "svc-account", "password": escaping}
	userPass := base64.StdEncoding.EncodeToString([]byte("svc-account:" + escaping))
	for _, tc := range []struct {
		name   string
		auth   upstream.Auth
		acct   appkit.Account
		path   string
		echo   func(r *http.Request) string
		forbid []string
	}{
		{"basic header", basic, basicAcct, "/x", func(r *http.Request) string { return "refused: " + r.Header.Get("Authorization") },
			[]string{userPass, strings.TrimRight(userPass, "=")}},
		{"basic header url-encoded base64", basic, basicAcct, "/x", func(r *http.Request) string {
			return "refused: " + url.QueryEscape(strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "))
		}, []string{url.QueryEscape(userPass)}},
		{"basic password", basic, basicAcct, "/x", func(r *http.Request) string { _, p, _ := r.BasicAuth(); return "no user with password " + p },
			spellings(escaping)},
		{"query key echoed as sent", upstream.QueryKey("key", "token"), appkit.Account{"token": escaping}, "/x",
			func(r *http.Request) string { return "bad query " + r.URL.RawQuery }, spellings(escaping)},
		{"token in the path", upstream.Bearer("token"), appkit.Account{"token": escaping}, "/items/" + escaping,
			func(r *http.Request) string { return "no item at " + r.URL.EscapedPath() }, spellings(escaping)},
		{"json-escaped", upstream.Bearer("token"), appkit.Account{"token": escaping}, "/x", func(r *http.Request) string {
			b, _ := json.Marshal(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			return `{"detail":` + string(b) // not JSON: the text is shown
		}, spellings(escaping)},
		{"cut at the bound", upstream.Bearer("token"), appkit.Account{"token": escaping}, "/x",
			func(r *http.Request) string { return strings.Repeat("x", 505) + escaping }, []string{escaping[:6]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusUnprocessableEntity)
				_, _ = w.Write([]byte(tc.echo(r)))
			})
			var log testkit.Buffer
			logger := zerolog.New(&log).Level(zerolog.DebugLevel)
			c.Auth, c.Logger, c.Retries = tc.auth, &logger, -1
			_, err := upstream.Get[any](t.Context(), c.For(tc.acct), tc.path, nil)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, "***") {
				t.Errorf("nothing masked in %q", msg)
			}
			for _, f := range tc.forbid {
				if strings.Contains(msg, f) {
					t.Errorf("the error shows %q: %s", f, msg)
				}
				if strings.Contains(log.String(), f) {
					t.Errorf("the log shows %q: %s", f, log.String())
				}
			}
		})
	}
}

// TestBasicUserShown: the Basic user name is not a secret; it stays
// readable where the upstream names it.
func TestBasicUserShown(t *testing.T) {
	t.Parallel()
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		u, _, _ := r.BasicAuth()
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte("user " + u + " is suspended"))
	})
	c.Auth, c.Retries = upstream.Basic("user", "password"), -1
	_, err := upstream.Get[any](t.Context(), c.For(appkit.Account{"user": "svc-account", "password": escaping}), "/x", nil)
	if err == nil || !strings.Contains(err.Error(), "user svc-account is suspended") {
		t.Fatalf("err = %v", err)
	}
}
