package commands

import (
	"bytes"
	"encoding/json"
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

func FuzzEncodeString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\\n\x00", "\u2028\u2029", "\xff", "日本語 🍎"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		if want := stdEncode(t, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}
