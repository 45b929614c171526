package protocol_test

import (
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
)

func TestProbeID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"accounts.validate", "accounts.validate"},
		{"Sync_2-b", "Sync_2-b"},
		{"a b\"c\x01é", "a_b_c___"},
		{"x\r\nX-Other: 1", "x__X-Other__1"},
		{strings.Repeat("x", 100), strings.Repeat("x", protocol.MaxProbeID)},
		{strings.Repeat("é", 40), strings.Repeat("_", protocol.MaxProbeID)},
	} {
		if got := protocol.ProbeID(tc.in); got != tc.want {
			t.Errorf("ProbeID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzProbeID(f *testing.F) {
	f.Add("errors.bad-json")
	f.Add("a b\x00é")
	f.Fuzz(func(t *testing.T, v string) {
		got := protocol.ProbeID(v)
		if len(got) > protocol.MaxProbeID || len(got) != min(len(v), protocol.MaxProbeID) {
			t.Fatalf("ProbeID(%q) = %q: %d bytes", v, got, len(got))
		}
		if strings.ContainsFunc(got, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r))
		}) {
			t.Fatalf("ProbeID(%q) = %q", v, got)
		}
	})
}
