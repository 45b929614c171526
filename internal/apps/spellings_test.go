package apps

import (
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/testkit/spellings"
)

// TestMaskedSpellings is what the host's masker (secretmask) masks of a secret in each spelling
// it takes (a text holding one spelling at a time).
func TestMaskedSpellings(t *testing.T) {
	t.Parallel()
	mask := func(text string) string {
		return newMasker(map[string]any{"user": spellings.User, "password": spellings.Secret}, basicDescriptor).mask(text)
	}
	want := map[string]bool{
		"plain": true, "query-escaped": true, "path-escaped": true, "url-path": true,
		"json": true, "json-no-html": true, "basic-base64": true, "basic-base64url": true,
	}
	spellings.Check(t, mask, want)
}

// basicDescriptor has Basic credentials: a user and a password field.
var basicDescriptor = &protocol.Descriptor{Authentication: []protocol.Authentication{{ID: "basic",
	Fields: []protocol.Field{{ID: "user", Type: "text"}, {ID: "password", Type: "password"}}}}}
