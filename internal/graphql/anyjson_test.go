package graphql

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/jsonw"
)

// legacyAppendJSON appends v encoded as JSON. It knows the values an answer holds:
// nil, bool, strings, integers, floats, rawNumber, json.RawMessage, *omap,
// []any, map[string]any (keys sorted); other values go through
// encoding/json.
func legacyAppendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case string:
		return jsonw.AppendString(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case float64:
		return jsonw.AppendFloat(b, x, 64)
	case rawNumber:
		return append(b, x...)
	case json.Number:
		return append(b, x...)
	case json.RawMessage:
		if x == nil {
			return append(b, "null"...)
		}
		return append(b, x...)
	case *omap:
		if x == nil {
			return append(b, "null"...)
		}
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, k)
			b = append(b, ':')
			b = legacyAppendJSON(b, x.vals[i])
		}
		return append(b, '}')
	case []any:
		if x == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = legacyAppendJSON(b, e)
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, k)
			b = append(b, ':')
			b = legacyAppendJSON(b, x[k])
		}
		return append(b, '}')
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, enc...)
}

// appendJSON writes what it wrote before it moved onto jsonw.Any.
func TestAppendJSONAsBefore(t *testing.T) {
	m := newOmap(2)
	m.set("z", 1)
	m.set("a", []any{rawNumber("1.50")})
	for i, v := range []any{
		nil, "", "a<b>&\"\\\n\u2028\xff", true, false, 0, -7, int64(1) << 60, 1.5, 1e21, 1e-7, math.NaN(), math.Inf(-1),
		int32(3), uint64(9), float32(0.1), json.Number("12.50"), json.Number(""), json.Number("x"),
		json.RawMessage(nil), json.RawMessage(`{"a": 1}`), json.RawMessage(`{bad`), json.RawMessage(`[1,2]`),
		[]any(nil), []any{}, []any{1, "x", nil, []any{true}}, map[string]any(nil), map[string]any{},
		map[string]any{"b": 1, "a": []any{map[string]any{"z": "<"}}, "c": nil},
		[]string(nil), []string{"a", "<&>"}, []int{1, 2}, map[string]int{"b": 2, "a": 1},
		struct{ A string }{"<x>"}, time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC), time.Time{},
		make(chan int), func() {}, []any{make(chan int), 1}, map[string]any{"f": func() {}},
		rawNumber("3.10"), m, (*omap)(nil), []any{m, map[string]any{"o": m}},
	} {
		if got, want := string(appendJSON([]byte("x"), v)), string(legacyAppendJSON([]byte("x"), v)); got != want {
			t.Errorf("%d %#v: got %s, want %s", i, v, got, want)
		}
	}
}
