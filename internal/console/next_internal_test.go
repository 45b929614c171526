package console

import (
	"strings"
	"testing"
)

// A return address after sign-in stays on this host however it is
// spelled: every form a browser would resolve to another host (a tab or
// newline removed, "\" read as "/", a scheme, an authority) becomes "/",
// and paths of this host are kept as they are.
func TestSafeNext(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ next, want string }{
		{"/tokens", "/tokens"},
		{"/data?x=1&y=%2F%2F#frag", "/data?x=1&y=%2F%2F#frag"},
		{"/data/tracker/task?field=a%09b", "/data/tracker/task?field=a%09b"},
		{"/%09/evil.example/x", "/%09/evil.example/x"}, // a literal %09 is not a tab: the browser keeps it in the path
		{"/a\\b", "/a\\b"},
		{"", "/"},
		{"tokens", "/"},
		{" /tokens", "/"},
		{"//evil.example/x", "/"},
		{"/\\evil.example/x", "/"},
		{"\\/evil.example/x", "/"},
		{"\\\\evil.example/x", "/"},
		{"/\t/evil.example/x", "/"},
		{"\t//evil.example/x", "/"},
		{"/\n/evil.example/x", "/"},
		{"/\r\n/evil.example/x", "/"},
		{"/\t\\evil.example/x", "/"},
		{"/tokens\t", "/"},
		{"/x\x00", "/"},
		{"/x\x7f", "/"},
		{"/x\x1b", "/"},
		{"http://evil.example/", "/"},
		{"https:evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"/" + strings.Repeat("a", maxNext), "/"},
	} {
		if got := safeNext(tc.next); got != tc.want {
			t.Errorf("safeNext(%.80q) = %.80q, want %q", tc.next, got, tc.want)
		}
	}
}
