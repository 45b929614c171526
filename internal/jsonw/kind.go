package jsonw

import (
	"encoding/json"
	"fmt"
)

// TypeOf names the JSON type of a decoded value: "null", "boolean",
// "number", "string", "array" or "object"; a value of any other Go type by
// its type's name (%T). Numbers may be float64, json.Number, int or int64
// (decoded with UseNumber, or built in Go). It is the one classification
// of values behind every message that names a value's kind: the store's,
// the syncer's, the page rules' and the conformance suite's.
func TypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64, int, int64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// Kind names the kind of a decoded JSON value for a message: its
// [TypeOf] with an article ("a number", "an array"); null as "null", any
// other Go type by its name.
func Kind(v any) string {
	switch t := TypeOf(v); t {
	case "boolean", "number", "string":
		return "a " + t
	case "array", "object":
		return "an " + t
	default:
		return t
	}
}
