package upstream

import (
	"testing"

	"github.com/appkitgo/appkit/appkit"
	sp "github.com/appkitgo/appkit/internal/testkit/spellings"
)

// TestMaskedSpellings is what a session's mask (secretmask) masks of a secret in each spelling
// it takes (a text holding one spelling at a time).
func TestMaskedSpellings(t *testing.T) {
	t.Parallel()
	mask := func(text string) string {
		return (&Client{Auth: Basic("user", "password")}).For(appkit.Account{"user": sp.User, "password": sp.Secret}).mask(text)
	}
	want := map[string]bool{
		"plain":           true,
		"query-escaped":   true,
		"path-escaped":    true,
		"url-path":        true,
		"json":            true,
		"basic-base64":    true,
		"basic-base64url": true,
		"json-no-html":    true,
	}
	sp.Check(t, mask, want)
}
