package commands

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/jsonw"
)

// legacyAppendObject writes m as a JSON object, keys sorted.
func legacyAppendObject(buf []byte, m map[string]any) ([]byte, error) {
	buf = append(buf, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, k)
		buf = append(buf, ':')
		var err error
		if buf, err = legacyAppendValue(buf, m[k]); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

func legacyAppendValue(buf []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case string:
		return appendString(buf, x), nil
	case bool:
		return strconv.AppendBool(buf, x), nil
	case int64:
		return strconv.AppendInt(buf, x, 10), nil
	case int:
		return strconv.AppendInt(buf, int64(x), 10), nil
	case float64:
		return jsonw.AppendFloat(buf, x, 64), nil
	case encoded:
		return append(buf, x...), nil
	case json.RawMessage:
		if !json.Valid(x) {
			return append(buf, "null"...), nil
		}
		return append(buf, x...), nil
	case map[string]any:
		return legacyAppendObject(buf, x)
	case []any:
		return appendArray(buf, x, legacyAppendValue)
	case []map[string]any:
		return appendArray(buf, x, legacyAppendObject)
	case []Result:
		return appendArray(buf, x, appendResult)
	case ErrorBody:
		buf = append(buf, `{"name":`...)
		buf = appendString(buf, x.Name)
		buf = append(buf, `,"message":`...)
		buf = appendString(buf, x.Message)
		buf = append(buf, `,"data":`...)
		if x.Data == nil {
			return append(buf, "{}}"...), nil
		}
		if buf, err = legacyAppendValue(buf, x.Data); err != nil {
			return nil, err
		}
		return append(buf, '}'), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(buf, b...), nil
}

// appendValue writes what it wrote before it moved onto jsonw.Any.
func TestAppendValueAsBefore(t *testing.T) {
	for i, v := range []any{
		nil, "", "a<b>&\"\\\n\u2028\xff", true, false, 0, -7, int64(1) << 60, 1.5, 1e21, 1e-7, math.NaN(), math.Inf(-1),
		int32(3), uint64(9), float32(0.1), json.Number("12.50"), json.Number(""), json.Number("x"),
		json.RawMessage(nil), json.RawMessage(`{"a": 1}`), json.RawMessage(`{bad`), json.RawMessage(`[1,2]`),
		[]any(nil), []any{}, []any{1, "x", nil, []any{true}}, map[string]any(nil), map[string]any{},
		map[string]any{"b": 1, "a": []any{map[string]any{"z": "<"}}, "c": nil},
		[]string(nil), []string{"a", "<&>"}, []int{1, 2}, map[string]int{"b": 2, "a": 1},
		struct{ A string }{"<x>"}, time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC), time.Time{},
		make(chan int), func() {}, []any{make(chan int), 1}, map[string]any{"f": func() {}},
		encoded(`{"raw":true}`), []map[string]any(nil), []map[string]any{{"b": 1, "a": "<"}},
		[]Result{{Success: true, Result: []any{1}}, {Result: ErrorBody{Name: "N", Message: "m"}}},
		ErrorBody{Name: "N", Message: "m", Data: map[string]any{"k": []any{nil}}}, map[string]any{"e": ErrorBody{}},
	} {
		got, gerr := appendValue([]byte("x"), v)
		want, werr := legacyAppendValue([]byte("x"), v)
		if string(got) != string(want) || (gerr == nil) != (werr == nil) {
			t.Errorf("%d %#v: got %s %v, want %s %v", i, v, got, gerr, want, werr)
		}
	}
}
