package graphql

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/appkitgo/appkit/internal/jsonw"
	"github.com/appkitgo/appkit/internal/query"
)

// omap is a JSON object whose keys keep their order (GraphQL answers list
// fields in the order they were selected).
type omap struct {
	keys []string
	vals []any
}

func newOmap(n int) *omap { return &omap{keys: make([]string, 0, n), vals: make([]any, 0, n)} }

func (m *omap) set(k string, v any) {
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
}

// objectOf answers an object of type typeName with the selected fields:
// __typename is typeName, every other field the value value gives it.
func objectOf(fields []*cfield, typeName string, value func(f *cfield) any) *omap {
	m := newOmap(len(fields))
	for _, f := range fields {
		if f.name == "__typename" {
			m.set(f.key, typeName)
			continue
		}
		m.set(f.key, value(f))
	}
	return m
}

// MarshalJSON encodes the object with its keys in order.
func (m *omap) MarshalJSON() ([]byte, error) { return appendJSON(nil, m), nil }

// rawNumber is a number already in its JSON form (a decimal's exact text).
type rawNumber string

// answerJSON writes the values an answer holds: those jsonw.Any writes,
// plus rawNumber, json.Number and json.RawMessage as they are, *omap with
// its keys in order, and a nil []any as null; a value encoding/json cannot
// encode is written as null.
var answerJSON = jsonw.Any{Ext: appendAnswerValue, NullOnError: true}

// appendJSON appends v encoded as JSON (answerJSON).
func appendJSON(b []byte, v any) []byte { return answerJSON.AppendOrNull(b, v) }

func appendAnswerValue(b []byte, v any, a jsonw.Any) ([]byte, bool, error) {
	switch x := v.(type) {
	case rawNumber:
		return append(b, x...), true, nil
	case json.Number:
		return append(b, x...), true, nil
	case json.RawMessage:
		if x == nil {
			return append(b, "null"...), true, nil
		}
		return append(b, x...), true, nil
	case []any:
		if x == nil {
			return append(b, "null"...), true, nil
		}
	case *omap:
		if x == nil {
			return append(b, "null"...), true, nil
		}
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, k)
			b = append(b, ':')
			b = a.AppendOrNull(b, x.vals[i])
		}
		return append(b, '}'), true, nil
	}
	return b, false, nil
}

// answerSize is the length of v encoded by appendJSON, measured without
// encoding it (strings as query.EncodedSize measures them).
func answerSize(v any) int {
	switch x := v.(type) {
	case rawNumber:
		return len(x)
	case json.Number:
		return len(x)
	case *omap:
		if x == nil {
			return 4
		}
		n := 2 + max(len(x.keys)-1, 0)
		for i, k := range x.keys {
			n += query.EncodedSize(k) + 1 + answerSize(x.vals[i])
		}
		return n
	case []any:
		if x == nil {
			return 4
		}
		n := 2 + max(len(x)-1, 0)
		for _, e := range x {
			n += answerSize(e)
		}
		return n
	case map[string]any:
		n := 2 + max(len(x)-1, 0)
		for k, e := range x {
			n += query.EncodedSize(k) + 1 + answerSize(e)
		}
		return n
	}
	return query.EncodedSize(v)
}

// absent marks an argument or input field given as a variable that the
// request did not send (and that has no default): it counts as not given.
type absent struct{}

// inputObj is an input object with its keys in the order written; fromVar
// is true when it came from a variable (JSON objects have no order, so its
// keys are sorted by name).
type inputObj struct {
	keys    []string
	vals    []any
	fromVar bool
}

// value turns an argument's AST value into Go values: nil, bool, int64,
// float64, string, []any, *inputObj, json.Number (from variables) or absent.
func value(v *ast.Value, vars map[string]any) any {
	if v == nil {
		return absent{}
	}
	switch v.Kind {
	case ast.Variable:
		x, ok := vars[v.Raw]
		if !ok {
			if v.VariableDefinition != nil && v.VariableDefinition.DefaultValue != nil {
				return value(v.VariableDefinition.DefaultValue, vars)
			}
			return absent{}
		}
		return fromVariable(x)
	case ast.IntValue:
		i, err := strconv.ParseInt(v.Raw, 10, 64)
		if err != nil {
			f, _ := strconv.ParseFloat(v.Raw, 64)
			return f
		}
		return i
	case ast.FloatValue:
		f, _ := strconv.ParseFloat(v.Raw, 64)
		return f
	case ast.StringValue, ast.BlockValue, ast.EnumValue:
		return v.Raw
	case ast.BooleanValue:
		return v.Raw == "true"
	case ast.NullValue:
		return nil
	case ast.ListValue:
		out := make([]any, 0, len(v.Children))
		for _, c := range v.Children {
			out = append(out, value(c.Value, vars))
		}
		return out
	case ast.ObjectValue:
		o := &inputObj{}
		for _, c := range v.Children {
			x := value(c.Value, vars)
			if _, skip := x.(absent); skip {
				continue
			}
			o.keys = append(o.keys, c.Name)
			o.vals = append(o.vals, x)
		}
		return o
	}
	return absent{}
}

func fromVariable(x any) any {
	switch v := x.(type) {
	case map[string]any:
		o := &inputObj{fromVar: true, keys: slices.Sorted(maps.Keys(v))}
		for _, k := range o.keys {
			o.vals = append(o.vals, fromVariable(v[k]))
		}
		return o
	case []any:
		return mapItems(v, fromVariable)
	case int:
		return int64(v)
	case int32:
		return int64(v)
	case float32:
		return float64(v)
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return x
}

// listOf coerces an input value to a list (GraphQL accepts a single value
// where a list is expected).
func listOf(v any) []any {
	switch x := v.(type) {
	case nil, absent:
		return nil
	case []any:
		return x
	}
	return []any{v}
}

// plain turns an input value into plain JSON-like Go values (objects as
// maps) for writing.
func plain(v any) any {
	switch x := v.(type) {
	case *inputObj:
		m := make(map[string]any, len(x.keys))
		for i, k := range x.keys {
			m[k] = plain(x.vals[i])
		}
		return m
	case []any:
		return mapItems(x, plain)
	}
	return v
}

// mapItems returns the list of f of each item of xs.
func mapItems(xs []any, f func(any) any) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
