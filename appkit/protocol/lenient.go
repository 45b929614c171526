package protocol

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// The service is the protocol's reference, not this package: keys it adds
// to a request are ignored, and a few values whose JSON type varies between
// senders are read leniently, so that no request is refused for a shape that
// carries the same meaning.

// LooseString is a string that also accepts a JSON number or boolean (kept
// as its JSON text) and null (empty). It holds [DataRequest.OperationID] and
// [DataRequest.Version], which the service may send as strings or as
// numbers; an absent key is empty too.
type LooseString string

// UnmarshalJSON implements json.Unmarshaler: a string keeps its value, a
// number or boolean its JSON text, null reads as empty, and an object or
// array is an error.
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

// Values maps filter ids to the user's raw JSON values, as sent by the service
// in the filter of schema, data, filter/validate, webhook and resource
// requests and in a datalist request's dependsOn. Each value has its filter's
// wire shape ([Filter.Type]); an absent key or null means "no value", and
// appkit also reads "" as unset. The whole map may be null or an empty array
// (how some serializers write an empty map): both read as empty.
type Values map[string]json.RawMessage

// UnmarshalJSON implements json.Unmarshaler: an object is kept value by
// value, unparsed; null and [] read as an empty map.
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

// Object is an open JSON object sent by the service: an account (the form's
// values by field id plus keys the service adds, which apps ignore when they
// do not know them), the fields of /validate, the params of a webhook event
// or of a resource URL, or an action's args. Every key is kept. Null and an
// empty array read as empty.
type Object map[string]any

// UnmarshalJSON implements json.Unmarshaler: an object is kept key by key;
// null and [] read as an empty map.
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
