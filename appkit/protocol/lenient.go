package protocol

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// The service is the protocol's reference, not this package: keys it adds
// are ignored, and a few values whose JSON type the spec does not pin down
// are read leniently, so that no request is refused for a shape that carries
// the same meaning.

// LooseString is a string that also accepts a JSON number or boolean (kept
// as its JSON text) and null (empty). The spec does not give the types of
// operationId and version.
type LooseString string

// UnmarshalJSON implements json.Unmarshaler.
func (s *LooseString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*s = ""
	case b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = LooseString(v)
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9') || string(b) == "true" || string(b) == "false":
		*s = LooseString(b)
	default:
		return &json.UnmarshalTypeError{Value: "object or array", Type: reflect.TypeFor[string]()}
	}
	return nil
}

// Values maps ids to raw JSON values (filter values, dependsOn). Null and
// an empty array (how some serializers write an empty map) read as empty.
type Values map[string]json.RawMessage

// UnmarshalJSON implements json.Unmarshaler.
func (v *Values) UnmarshalJSON(b []byte) error {
	if emptyContainer(b) {
		*v = nil
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*v = m
	return nil
}

// Object is a JSON object (account, fields, params). Null and an empty
// array read as empty.
type Object map[string]any

// UnmarshalJSON implements json.Unmarshaler.
func (o *Object) UnmarshalJSON(b []byte) error {
	if emptyContainer(b) {
		*o = nil
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*o = m
	return nil
}

func emptyContainer(b []byte) bool {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return true
	}
	if len(b) >= 2 && b[0] == '[' {
		inner := bytes.TrimSpace(b[1 : len(b)-1])
		return b[len(b)-1] == ']' && len(inner) == 0
	}
	return false
}
