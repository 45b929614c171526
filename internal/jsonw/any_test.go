package jsonw

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestAny(t *testing.T) {
	quoteBools := Any{Ext: func(dst []byte, v any, _ Any) ([]byte, bool, error) {
		if b, ok := v.(bool); ok {
			return append(dst, map[bool]string{true: `"true"`, false: `"false"`}[b]...), true, nil
		}
		return dst, false, nil
	}}
	for _, tc := range []struct {
		a    Any
		v    any
		want string
		err  bool
	}{
		{Any{}, nil, "null", false},
		{Any{}, map[string]any{"b": []any{true, 1, int64(2), 1.5, "<"}, "a": nil}, `{"a":null,"b":[true,1,2,1.5,"<"]}`, false},
		{Any{}, []any(nil), "[]", false},
		{Any{}, map[string]any(nil), "{}", false},
		{Any{}, json.RawMessage(`{"x":1}`), `{"x":1}`, false},
		{Any{}, json.RawMessage(`{bad`), "null", false},
		{Any{}, math.Inf(1), "null", false},
		{Any{}, []int{1}, "[1]", false},
		{Any{}, []any{make(chan int)}, "", true},
		{Any{NullOnError: true}, []any{make(chan int)}, "[null]", false},
		{quoteBools, map[string]any{"k": []any{false}}, `{"k":["false"]}`, false},
	} {
		got, err := tc.a.Append(nil, tc.v)
		if string(got) != tc.want || (err != nil) != tc.err {
			t.Errorf("%#v: got %s %v, want %s (error %v)", tc.v, got, err, tc.want, tc.err)
		}
	}
}

// TestAppendOrNull: what Append writes, or null in place of the value when
// Append fails, after the bytes already there.
func TestAppendOrNull(t *testing.T) {
	t.Parallel()
	failing := Any{NullOnError: true, Ext: func(dst []byte, v any, _ Any) ([]byte, bool, error) {
		if v == "fail" {
			return nil, false, errors.New("cannot write")
		}
		return dst, false, nil
	}}
	for _, tc := range []struct {
		name string
		a    Any
		v    any
		want string
	}{
		{"written", Any{}, map[string]any{"a": []any{1, "<"}}, `x{"a":[1,"<"]}`},
		{"unencodable inside, NullOnError", Any{NullOnError: true}, []any{1, make(chan int)}, `x[1,null]`},
		{"unencodable inside, no NullOnError", Any{}, []any{1, make(chan int)}, `xnull`},
		{"Ext fails inside", failing, []any{"ok", "fail"}, `xnull`},
		{"Ext fails", failing, "fail", `xnull`},
		{"Ext passes", failing, "ok", `x"ok"`},
	} {
		if got := string(tc.a.AppendOrNull([]byte("x"), tc.v)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}
