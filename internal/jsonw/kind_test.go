package jsonw

import (
	"encoding/json"
	"testing"
)

// TestTypeOfAndKind pins the one classification of values behind every
// message that names a value's kind (the store's, the syncer's, the SDK's,
// the conformance suite's): a number is a number whether it was decoded
// (float64, json.Number) or built in Go (int, int64).
func TestTypeOfAndKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		v        any
		jsonType string
		kind     string
	}{
		{"int", 3, "number", "a number"},
		{"int64", int64(-7), "number", "a number"},
		{"float64", 2.5, "number", "a number"},
		{"json.Number", json.Number("12"), "number", "a number"},
		{"nil", nil, "null", "null"},
		{"bool", true, "boolean", "a boolean"},
		{"string", "x", "string", "a string"},
		{"empty string", "", "string", "a string"},
		{"object", map[string]any{"a": 1}, "object", "an object"},
		{"empty object", map[string]any{}, "object", "an object"},
		{"array", []any{1, "a"}, "array", "an array"},
		{"empty array", []any{}, "array", "an array"},
		{"other Go type", []string{"a"}, "[]string", "[]string"},
		{"other map", map[string]string{}, "map[string]string", "map[string]string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := TypeOf(tc.v); got != tc.jsonType {
				t.Errorf("TypeOf(%#v) = %q, want %q", tc.v, got, tc.jsonType)
			}
			if got := Kind(tc.v); got != tc.kind {
				t.Errorf("Kind(%#v) = %q, want %q", tc.v, got, tc.kind)
			}
		})
	}
}
