package commands

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func stdEncode(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestEncodeResultsMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	res := []Result{
		{Success: true, Result: "ok"},
		{Success: true, Result: map[string]any{"b": int64(-3), "a": 1.5, "c": nil, "d": []any{true, false, "x"}, "e": json.RawMessage(`{"k":[1,2]}`),
			"é \"q\" \\ \n\t\x01 <>& \u2028": "\xff\xfe invalid", "f": map[string]any{}, "g": []map[string]any{{"z": "1"}}, "h": 1e21, "i": int(7)}},
		{Success: false, Result: ErrorBody{Name: "n", Message: "m", Data: map[string]any{"index": 1}}},
		{Success: false, Result: ErrorBody{Name: "n", Message: "m"}},
		{Success: true, Result: []Result{{Success: true, Result: []any{}}}},
		{Success: true, Result: struct{ X int }{3}},
	}
	got, err := EncodeResults(res)
	if err != nil {
		t.Fatal(err)
	}
	// encoding/json renders a nil Data map as null; the API promises {}.
	res[3].Result = ErrorBody{Name: "n", Message: "m", Data: map[string]any{}}
	want := stdEncode(t, res)
	if !bytes.Equal(got, want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// appendString's contract is semantic equality with encoding/json: its
// output is valid JSON decoding to the same string as encoding/json's
// encoding of the input (invalid UTF-8 bytes as U+FFFD), with no raw control
// character, U+2028 or U+2029 and no HTML escaping. The bytes may differ
// from encoding/json's ("\u0008" and "\b" are both valid); the table in
// TestAppendString pins the forms this encoder writes. The seeds under
// testdata/fuzz/FuzzEncodeString keep inputs that once failed.
func FuzzEncodeString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\\n\x00", "\u2028\u2029", "\xff", "日本語 🍎", "\b\f", "<a href='x'>&amp;</a>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		checkJSONString(t, s, got)
	})
}

// checkJSONString checks enc, the encoding of s, against the contract of
// appendString.
func checkJSONString(t *testing.T, s string, enc []byte) {
	t.Helper()
	if !json.Valid(enc) {
		t.Fatalf("appendString(%q) = %s: not valid JSON", s, enc)
	}
	var got, want string
	if err := json.Unmarshal(enc, &got); err != nil {
		t.Fatalf("appendString(%q) = %s: %v", s, enc, err)
	}
	if err := json.Unmarshal(stdEncode(t, s), &want); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("appendString(%q) decodes to %q, encoding/json's encoding to %q", s, got, want)
	}
	for _, c := range enc {
		if c < 0x20 {
			t.Fatalf("appendString(%q) = %q: raw control character %#x", s, enc, c)
		}
	}
	if bytes.ContainsAny(enc, "\u2028\u2029") {
		t.Fatalf("appendString(%q) = %q: U+2028/U+2029 must be escaped", s, enc)
	}
	for _, c := range "<>&" {
		if strings.Count(string(enc), string(c)) != strings.Count(s, string(c)) {
			t.Fatalf("appendString(%q) = %q: %q must not be escaped", s, enc, c)
		}
	}
}

// The forms appendString writes, byte for byte.
func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"", `""`},
		{"plain <b>&</b>", `"plain <b>&</b>"`},
		{"\"\\", `"\"\\"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f" + `"`},
		{"\u2028\u2029", `"\u2028\u2029"`},
		{"a\xffb\xc3", `"a\ufffdb\ufffd"`},
		{"日本語 🍎", `"日本語 🍎"`},
	} {
		got := appendString(nil, c.in)
		if string(got) != c.want {
			t.Errorf("appendString(%q) = %s, want %s", c.in, got, c.want)
		}
		checkJSONString(t, c.in, got)
	}
}
