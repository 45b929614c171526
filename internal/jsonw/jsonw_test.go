package jsonw

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"plain": `"plain"`, "<a>&</a>": `"<a>&</a>"`, "\b\f\n\r\t": `"\b\f\n\r\t"`, "\x00\x1f": `"\u0000\u001f"`,
		"\"\\": `"\"\\"`, "\u2028\u2029": `"\u2028\u2029"`, "\xff": `"\ufffd"`, "é€𝄞": `"é€𝄞"`,
	} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("%q → %s, want %s", in, got, want)
		}
	}
}

// FuzzAppendString: every string encodes to valid JSON that decodes to the
// string (invalid UTF-8 replaced, as encoding/json does), HTML unescaped,
// byte for byte what encoding/json writes without HTML escapes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&amp;</a>", "\b\f\n\r\t\x00\x1f\x7f", "\u2028\u2029", "\xff\xfe", "é€𝄞", "\\\"/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON for %q: %s", s, out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatal(err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); back != want && utf8.ValidString(s) {
			t.Fatalf("%q round-trips to %q", s, back)
		}
		var std string
		ref, _ := json.Marshal(s)
		_ = json.Unmarshal(ref, &std)
		if back != std {
			t.Fatalf("%q decodes to %q, encoding/json's to %q", s, back, std)
		}
		if strings.ContainsAny(s, "<>&") && utf8.ValidString(s) && bytes.Contains(out, []byte(`\u003c`)) {
			t.Fatalf("HTML escaped: %s", out)
		}
		var noHTML bytes.Buffer
		enc := json.NewEncoder(&noHTML)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if want := bytes.TrimSuffix(noHTML.Bytes(), []byte("\n")); !bytes.Equal(out, want) {
			t.Fatalf("%q → %s, encoding/json without HTML escapes writes %s", s, out, want)
		}
	})
}

// FuzzAppendFloat: numbers are written exactly as encoding/json writes them.
func FuzzAppendFloat(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if got := string(AppendFloat(nil, v, 64)); got != "null" {
				t.Fatalf("%v → %s, want null", v, got)
			}
			return
		}
		want, _ := json.Marshal(v)
		if got := AppendFloat(nil, v, 64); string(got) != string(want) {
			t.Fatalf("%v → %s, encoding/json %s", v, got, want)
		}
		want32, _ := json.Marshal(float32(v))
		if got := AppendFloat(nil, float64(float32(v)), 32); !math.IsInf(float64(float32(v)), 0) && string(got) != string(want32) {
			t.Fatalf("float32 %v → %s, encoding/json %s", float32(v), got, want32)
		}
	})
}
