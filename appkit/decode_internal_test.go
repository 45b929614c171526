package appkit

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// TestWireInteger: an integer field takes a number without a fraction or
// a string holding a base-10 integer (an id), and only a value that fits.
func TestWireInteger(t *testing.T) {
	t.Parallel()
	int8Field, int64Field := reflect.ValueOf(new(int8)).Elem(), reflect.ValueOf(new(int64)).Elem()
	for _, c := range []struct {
		name  string
		w     any
		field reflect.Value
		want  int64
		ok    bool
	}{
		{"number", 42.0, int64Field, 42, true},
		{"negative number", -7.0, int8Field, -7, true},
		{"json.Number", json.Number("12"), int64Field, 12, true},
		{"id string", "123", int64Field, 123, true},
		{"id beyond float precision", "9223372036854775807", int64Field, 9223372036854775807, true},
		{"fraction", 1.5, int64Field, 0, false},
		{"fraction as text", "1.5", int64Field, 0, false},
		{"too big for the field", 128.0, int8Field, 0, false},
		{"lowest of the field", -128.0, int8Field, -128, true},
		{"id too big for the field", "128", int8Field, 0, false},
		{"id too big for int64", "9223372036854775808", int64Field, 0, false},
		{"not a number", "abc", int64Field, 0, false},
		{"bool", true, int64Field, 0, false},
		{"NaN", json.Number("NaN"), int64Field, 0, false},
		{"lowest int64", -0x1p63, int64Field, -1 << 63, true},
		{"2^63", 0x1p63, int64Field, 0, false},
		{"beyond int64", 1e30, int64Field, 0, false},
		{"below int64", -1e30, int64Field, 0, false},
		{"infinity", json.Number("Inf"), int64Field, 0, false},
		{"json.Number beyond float precision", json.Number("9007199254740993"), int64Field, 9007199254740993, true},
		{"json.Number, highest int64", json.Number("9223372036854775807"), int64Field, 9223372036854775807, true},
		{"json.Number, lowest int64", json.Number("-9223372036854775808"), int64Field, -1 << 63, true},
		{"json.Number beyond int64", json.Number("9223372036854775808"), int64Field, 0, false},
		{"json.Number too big for the field", json.Number("128"), int8Field, 0, false},
		{"json.Number with an exponent", json.Number("1e3"), int64Field, 1000, true},
		{"json.Number with a zero fraction", json.Number("-12.0"), int8Field, -12, true},
		{"json.Number with a fraction", json.Number("1.5"), int64Field, 0, false},
	} {
		got, ok := wireInteger(c.w, strconv.ParseInt, c.field.OverflowInt)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s: %v into %s = %d, %v; want %d, %v", c.name, c.w, c.field.Type(), got, ok, c.want, c.ok)
		}
	}

	uint8Field, uint64Field := reflect.ValueOf(new(uint8)).Elem(), reflect.ValueOf(new(uint64)).Elem()
	for _, c := range []struct {
		name  string
		w     any
		field reflect.Value
		want  uint64
		ok    bool
	}{
		{"number", 255.0, uint8Field, 255, true},
		{"zero", 0.0, uint8Field, 0, true},
		{"negative number", -1.0, uint64Field, 0, false},
		{"negative id", "-1", uint64Field, 0, false},
		{"id beyond float precision", "18446744073709551615", uint64Field, 18446744073709551615, true},
		{"too big for the field", 256.0, uint8Field, 0, false},
		{"id too big for the field", "256", uint8Field, 0, false},
		{"fraction", 0.5, uint64Field, 0, false},
		{"2^63", 0x1p63, uint64Field, 1 << 63, true},
		{"2^64", 0x1p64, uint64Field, 0, false},
		{"beyond uint64", 1e30, uint64Field, 0, false},
		{"infinity", json.Number("Inf"), uint64Field, 0, false},
		{"json.Number beyond float precision", json.Number("18446744073709551615"), uint64Field, 18446744073709551615, true},
		{"json.Number beyond uint64", json.Number("18446744073709551616"), uint64Field, 0, false},
		{"negative json.Number", json.Number("-1"), uint64Field, 0, false},
		{"json.Number with an exponent", json.Number("2e2"), uint8Field, 200, true},
	} {
		got, ok := wireInteger(c.w, strconv.ParseUint, c.field.OverflowUint)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s: %v into %s = %d, %v; want %d, %v", c.name, c.w, c.field.Type(), got, ok, c.want, c.ok)
		}
	}
}
