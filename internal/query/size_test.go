package query

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

func stdLen(t testing.TB, v any) int {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Len() - 1 // the newline
}

func TestEncodedSize(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		nil, "", "plain", "é \"q\" \\ \n\t\r\b\f\x01\x1f <>& \u2028\u2029", "\xff\xfe invalid", "日本語 🍎",
		true, false, int64(0), int64(-1234567890123), int(7), 0.0, 1.5, -2.25e-7, 1e21, 1e-7, 123456789.125, -1e300,
		json.RawMessage(`{"k":[1,2]}`), map[string]any{}, map[string]any{"b": int64(-3), "a": 1.5, "c": nil},
		[]any{}, []any{true, "x", map[string]any{"z": []any{int64(1)}}},
		[]map[string]any{}, []map[string]any{{"platform/id": "x", "n": map[string]any{"start": "2024-01-01", "end": nil}}},
		struct{ X int }{3},
	} {
		if got, want := EncodedSize(v), stdLen(t, v); got != want {
			t.Errorf("EncodedSize(%#v) = %d, want %d", v, got, want)
		}
	}
	if got := EncodedSize(math.Inf(1)); got != 4 {
		t.Errorf("EncodedSize(+Inf) = %d, want 4 (null)", got)
	}
}

func FuzzEncodedSize(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\\n\x00\b\f", "\u2028\u2029", "\xff", "日本語 🍎"} {
		f.Add(s, 1.5)
	}
	f.Fuzz(func(t *testing.T, s string, x float64) {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return
		}
		v := map[string]any{s: []any{s, x}}
		if got, want := EncodedSize(v), stdLen(t, v); got != want {
			t.Fatalf("EncodedSize(%#v) = %d, want %d", v, got, want)
		}
	})
}
