package appkittest

import (
	"testing"

	"github.com/appkitgo/appkit/internal/testkit/spellings"
)

// TestMaskedSpellings is what the recordings' scrubber (secretmask) masks of a secret in each spelling
// it takes (a text holding one spelling at a time).
func TestMaskedSpellings(t *testing.T) {
	t.Parallel()
	mask := func(text string) string { return newScrubber([]string{spellings.Secret}).scrub(text) }
	want := map[string]bool{
		"plain": true, "query-escaped": true, "path-escaped": true, "url-path": true,
		"json": true, "json-no-html": true,
	}
	spellings.Check(t, mask, want)
}
