package appkittest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// TestMaskedSpellings is what the recordings' scrubber (secretmask) masks of a secret in each spelling
// it takes (a text holding one spelling at a time).
func TestMaskedSpellings(t *testing.T) {
	t.Parallel()
	mask := func(text string) string { return (&scrubber{secrets: []string{spellingSecret}}).scrub(text) }
	want := map[string]bool{
		"plain": true, "query-escaped": true, "path-escaped": true, "url-path": true,
		"json": true, "json-no-html": true,
	}
	for name, form := range spellings(spellingSecret) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := mask("before " + form + " after")
			if masked := !strings.Contains(got, form); masked != want[name] {
				t.Errorf("%s %q: masked %v, want %v (got %q)", name, form, masked, want[name], got)
			}
		})
	}
}

// spellingSecret holds characters that every escaping changes: a slash, a
// plus, a space, an at sign, a quote, HTML's < and & and a non-ASCII
// letter.
const spellingSecret = `p@ss/wö"rd+ 1<&x`

// spellingUser is the user name of the Basic credentials.
const spellingUser = "alice"

// spellings are the forms a secret takes on the wire and in logs.
func spellings(sec string) map[string]string {
	quoted, _ := json.Marshal(sec)
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(sec)
	noHTML := strings.TrimSuffix(raw.String(), "\n")
	basic := spellingUser + ":" + sec
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
