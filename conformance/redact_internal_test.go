package conformance

import (
	"net/url"
	"strings"
	"testing"
)

// A result's expected and received texts mask the account's secrets in
// every spelling an app may echo them in, not only as sent.
func TestRedactSpellings(t *testing.T) {
	t.Parallel()
	const secret = `s3cr3t/t0k+en "x"`
	r := &runner{cfg: Config{Account: map[string]any{"token": secret, "auth": "token"}},
		account: map[string]any{"access_token": "refreshed-0123", "n": "abc"}}
	for _, text := range []string{
		"plain " + secret,
		"query ?t=" + url.QueryEscape(secret),
		"path /" + url.PathEscape(secret),
		`json {"token":"s3cr3t/t0k+en \"x\""}`,
		"refreshed refreshed-0123",
	} {
		got := r.redact(text)
		if strings.Contains(got, "s3cr3t") || strings.Contains(got, "refreshed-0123") {
			t.Errorf("redact(%q) = %q: a secret is left", text, got)
		}
	}
	// The authentication's id and values shorter than four bytes stay.
	if got := r.redact("auth token, tabc"); got != "auth token, tabc" {
		t.Errorf("redact kept too little: %q", got)
	}
}
