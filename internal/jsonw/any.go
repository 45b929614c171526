package jsonw

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// Any appends any value as JSON: the one writer behind the GraphQL
// answers, the command API's results and the SDK's schema-free values.
// Without reflection it writes nil, bool, string, int, int64, float64,
// json.RawMessage (null when it is not valid JSON), []any (a nil slice as
// []) and map[string]any (keys sorted, a nil map as {}); Ext writes the
// caller's own types and other values go through encoding/json.
type Any struct {
	// Ext, when set, is asked first for every value, at every depth; it
	// reports ok false for a value it leaves to Any. Through it a caller
	// writes its own types, or writes one of the types above its own way.
	Ext func(dst []byte, v any, a Any) (out []byte, ok bool, err error)
	// NullOnError writes null in place of a value encoding/json cannot
	// encode, instead of failing.
	NullOnError bool
}

// Append appends v to dst. It fails only when encoding/json cannot encode
// a value and NullOnError is false, or when Ext fails.
func (a Any) Append(dst []byte, v any) ([]byte, error) {
	if a.Ext != nil {
		if out, ok, err := a.Ext(dst, v, a); ok || err != nil {
			return out, err
		}
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float64:
		return AppendFloat(dst, x, 64), nil
	case json.RawMessage:
		if !json.Valid(x) {
			return append(dst, "null"...), nil
		}
		return append(dst, x...), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = a.Append(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		return a.AppendObject(dst, x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		if a.NullOnError {
			return append(dst, "null"...), nil
		}
		return nil, err
	}
	return append(dst, b...), nil
}

// AppendOrNull appends v as Append does, or null in its place when Append
// fails (with NullOnError set, only when Ext fails): for writers that have
// no error to report and must still write JSON.
func (a Any) AppendOrNull(dst []byte, v any) []byte {
	out, err := a.Append(dst, v)
	if err != nil {
		return append(dst, "null"...)
	}
	return out
}

// AppendObject appends m as a JSON object, keys sorted, each value with
// Append.
func (a Any) AppendObject(dst []byte, m map[string]any) ([]byte, error) {
	dst = append(dst, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = a.Append(dst, m[k]); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}
