// Package spellings is the table that the tests of every masker of
// secrets share: the forms a secret takes on the wire and in logs, and a
// check that a masker hides each form it should.
package spellings

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// Secret holds characters that every escaping changes: a slash, a plus, a
// space, an at sign, a quote, HTML's < and & and a non-ASCII letter.
const Secret = `p@ss/wö"rd+ 1<&x`

// User is the user name of the Basic credentials of Secret.
const User = "alice"

// Of returns the forms sec takes on the wire and in logs, by name; the
// Basic ones are of User's credentials.
func Of(sec string) map[string]string {
	quoted, _ := json.Marshal(sec)
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(sec)
	noHTML := strings.TrimSuffix(raw.String(), "\n")
	basic := User + ":" + sec
	return map[string]string{
		"plain":           sec,
		"query-escaped":   url.QueryEscape(sec),
		"path-escaped":    url.PathEscape(sec),
		"url-path":        (&url.URL{Path: sec}).EscapedPath(),
		"json":            string(quoted[1 : len(quoted)-1]),
		"json-no-html":    noHTML[1 : len(noHTML)-1],
		"basic-base64":    base64.StdEncoding.EncodeToString([]byte(basic)),
		"basic-base64url": base64.URLEncoding.EncodeToString([]byte(basic)),
	}
}

// Check masks a text holding each form of Secret, one at a time, and fails
// t where the form is hidden and want does not name it, or the reverse.
func Check(t *testing.T, mask func(text string) string, want map[string]bool) {
	t.Helper()
	for name, form := range Of(Secret) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := mask("before " + form + " after")
			if masked := !strings.Contains(got, form); masked != want[name] {
				t.Errorf("%s %q: masked %v, want %v (got %q)", name, form, masked, want[name], got)
			}
		})
	}
}
