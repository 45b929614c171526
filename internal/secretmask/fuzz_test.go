package secretmask

import (
	"strings"
	"testing"
)

// FuzzMask: whatever the text and the secrets, no secret of MinLen bytes
// or more is left in any of its spellings by Mask, MaskValues, JSON or
// Body, and Body stays within its bound.
func FuzzMask(f *testing.F) {
	f.Add("token abcd1234 end", "abcd1234", "user", 20)
	f.Add(`{"a":"p%40ss%2Fw"}`, "p@ss/w", "", 10)
	f.Add("aa***", "a***", "u", 3)
	f.Add("YWxpY2U6c2VjcmV0", "secret", "alice", 8)
	f.Fuzz(func(t *testing.T, text, sec, user string, n int) {
		if len(text) > 4096 || len(sec) > 64 || len(user) > 64 {
			return
		}
		n = 8 + (n%512+512)%512 // room for the "…" at least
		m := New(sec)
		m.AddBasic(user, sec)
		forms, _ := m.secrets()
		out := map[string]string{
			"Mask":       m.Mask(text),
			"MaskValues": m.MaskValues(text),
			"JSON":       m.JSON([]byte(text)),
			"Body":       m.Body([]byte(text), n, "…"),
		}
		for name, got := range out {
			for _, f := range forms {
				if len(f) >= MinLen && strings.Contains(got, f) {
					t.Fatalf("%s(%q) = %q holds %q (secret %q)", name, text, got, f, sec)
				}
			}
		}
		if got := out["Body"]; len(got) > n {
			t.Fatalf("Body(%q, %d) is %d bytes", text, n, len(got))
		}
	})
}
