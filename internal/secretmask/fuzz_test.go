package secretmask

import (
	"encoding/json"
	"reflect"
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
			"Body":       m.Body([]byte(text), n, "…", false),
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

// maskedValue is the reference of Fields on a decoded JSON value: the
// string values of secret-named keys become "***".
func maskedValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if _, ok := e.(string); ok && SecretName(k) {
				x[k] = "***"
				continue
			}
			x[k] = maskedValue(e)
		}
	case []any:
		for i := range x {
			x[i] = maskedValue(x[i])
		}
	}
	return v
}

// Fields scans rather than decodes: on every JSON text it agrees with
// masking the decoded value (so no secret field's value survives there);
// on any bytes (cut, not JSON) it never panics and masking again changes
// nothing. Which values survive in a text that is not JSON is not checked
// here (there is no decoded value to compare with): TestFields has cut
// bodies.
func FuzzMaskFields(f *testing.F) {
	for _, s := range []string{`{"access_token":"t-1234","n":{"password":"p\"w\\x","list":["a",{"api_key":"k-99"}]}}`,
		`{"token" : "abcd", "x": [1, "token", {"token": 5}]}`, `{"auth":"basic","secret":"s3cr3t"}`, `["token","abcdef"]`,
		`{"refresh_token":"cut here`, `{"a":"b\`, `not json "token": "zzzz"`, `{"tok\u0065n":"escaped-key"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := New().Fields([]byte(s))
		if again := New().Fields(out); string(again) != string(out) {
			t.Fatalf("Fields(%q) = %q, and again %q", s, out, again)
		}
		var in any
		if json.Unmarshal([]byte(s), &in) != nil {
			return
		}
		var got any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("Fields(%q) = %q: not JSON: %v", s, out, err)
		}
		want := maskedValue(in)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Fields(%q) = %s, want %v", s, out, want)
		}
	})
}
