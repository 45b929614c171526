package testkit

import (
	"encoding/json"
	"strings"
	"testing"
)

// DecodeJSON decodes s as the host reads a value an app or a client sent
// (encoding/json with numbers as json.Number); it fails the test when s is
// not JSON.
func DecodeJSON(t testing.TB, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}
