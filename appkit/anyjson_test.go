package appkit

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

// legacyAppendAny appends v with no schema: the Go value's own form, with the
// wire conversions that hold for every field (a bool as "true"/"false",
// time.Time in ISO 8601, a Day as YYYY-MM-DD).
func legacyAppendAny(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return jsonw.AppendString(dst, x)
	case bool:
		return strconv.AppendQuote(dst, strconv.FormatBool(x))
	case float64:
		return jsonw.AppendFloat(dst, x, 64)
	case int:
		return appendInt(dst, int64(x))
	case int64:
		return appendInt(dst, x)
	case time.Time:
		return appendTime(dst, x, false)
	case Day:
		return appendDay(dst, x)
	case []string:
		return encStringsValue(dst, x)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = legacyAppendAny(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		return legacyAppendMap(dst, x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return append(dst, "null"...)
	}
	return append(dst, b...)
}

// legacyAppendMap appends a map with sorted keys and schema-free values.
func legacyAppendMap(dst []byte, m map[string]any) []byte {
	dst = append(dst, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.AppendString(dst, k)
		dst = append(dst, ':')
		dst = legacyAppendAny(dst, m[k])
	}
	return append(dst, '}')
}

// appendAny writes what it wrote before it moved onto jsonw.Any.
func TestAppendAnyAsBefore(t *testing.T) {
	for i, v := range []any{
		nil, "", "a<b>&\"\\\n\u2028\xff", true, false, 0, -7, int64(1) << 60, 1.5, 1e21, 1e-7, math.NaN(), math.Inf(-1),
		int32(3), uint64(9), float32(0.1), json.Number("12.50"), json.Number(""), json.Number("x"),
		json.RawMessage(nil), json.RawMessage(`{"a": 1}`), json.RawMessage(`{bad`), json.RawMessage(`[1,2]`),
		[]any(nil), []any{}, []any{1, "x", nil, []any{true}}, map[string]any(nil), map[string]any{},
		map[string]any{"b": 1, "a": []any{map[string]any{"z": "<"}}, "c": nil},
		[]string(nil), []string{"a", "<&>"}, []int{1, 2}, map[string]int{"b": 2, "a": 1},
		struct{ A string }{"<x>"}, time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC), time.Time{},
		make(chan int), func() {}, []any{make(chan int), 1}, map[string]any{"f": func() {}},
		DayOf(time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)), []any{Day{}, true, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
		map[string]any{"d": DayOf(time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)), "b": false, "s": []string{"x"}},
	} {
		if got, want := string(appendAny([]byte("x"), v)), string(legacyAppendAny([]byte("x"), v)); got != want {
			t.Errorf("%d %#v: got %s, want %s", i, v, got, want)
		}
		if v, ok := v.(map[string]any); ok {
			if got, want := string(appendMap(nil, v)), string(legacyAppendMap(nil, v)); got != want {
				t.Errorf("map %d: got %s, want %s", i, got, want)
			}
		}
	}
}
