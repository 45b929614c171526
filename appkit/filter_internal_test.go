package appkit

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// TestDecodeNumberAndBoolFilters: a number or a boolean filter takes its
// JSON value, or a string holding it (as a form sends it); a number
// filter's empty string is no value (decodeFilters skips null and "" before).
func TestDecodeNumberAndBoolFilters(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		typ  FieldType
		msg  string
		want any
		ok   bool
	}{
		{FieldNumber, `3.5`, 3.5, true},
		{FieldNumber, ` -2 `, -2.0, true},
		{FieldNumber, `"42"`, 42.0, true},
		{FieldNumber, `"1e3"`, 1000.0, true},
		{FieldNumber, `""`, nil, true},
		{FieldNumber, `"many"`, nil, false},
		{FieldNumber, `" 42"`, nil, false},
		{FieldNumber, `true`, nil, false},
		{FieldNumber, `[1]`, nil, false},
		{FieldBool, `true`, true, true},
		{FieldBool, `false`, false, true},
		{FieldBool, `"true"`, true, true},
		{FieldBool, `"0"`, false, true},
		{FieldBool, `"T"`, true, true},
		{FieldBool, `""`, nil, false},
		{FieldBool, `"yes"`, nil, false},
		{FieldBool, `1`, nil, false},
	} {
		got, err := decodeFilterValue(c.typ, json.RawMessage(c.msg))
		if (err == nil) != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s = %#v, %v; want %#v (ok %v)", c.typ, c.msg, got, err, c.want, c.ok)
		}
	}
}

// TestJSONOrText: a JSON value of the type, or a JSON string that parse
// reads; nothing else.
func TestJSONOrText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		msg  string
		want int
		ok   bool
	}{
		{`7`, 7, true},
		{`"7"`, 7, true},
		{`"x"`, 0, false},
		{`7.5`, 0, false},
		{`{}`, 0, false},
		{`"7`, 0, false},
	} {
		got, ok := jsonOrText(json.RawMessage(c.msg), strconv.Atoi)
		if ok != c.ok || got != c.want {
			t.Errorf("%s = %d, %v; want %d, %v", c.msg, got, ok, c.want, c.ok)
		}
	}
}
