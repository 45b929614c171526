package appkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrItemDecode is matched (errors.Is) by every error of [DecodeItem].
var ErrItemDecode = errors.New("appkit: decode item")

// decodeSchemas caches the schema of each struct type DecodeItem reads.
var decodeSchemas sync.Map // reflect.Type → *structSchema

// DecodeItem reads an item in its wire form (a decoded JSON object, as the
// service receives it) into T, a struct declared for a type (see "Struct
// types" in the package doc): the inverse of how appkit sends it. Keys
// outside the struct's schema are ignored, and so are null values and
// __syncAction; a value that does not fit its field is an error naming the
// field. Test harnesses use it to give typed items back (appkittest.Items).
func DecodeItem[T any](item map[string]any) (T, error) {
	var out T
	rt := reflect.TypeFor[T]()
	if rt.Kind() != reflect.Struct {
		return out, fmt.Errorf("%w: %s is not a struct", ErrItemDecode, rt)
	}
	var s *structSchema
	if v, ok := decodeSchemas.Load(rt); ok {
		s = v.(*structSchema)
	} else {
		var errs []error
		s, errs = schemaOf(rt, "")
		if len(errs) > 0 {
			return out, fmt.Errorf("%w: %s: %w", ErrItemDecode, rt, errors.Join(errs...))
		}
		decodeSchemas.Store(rt, s)
	}
	dst := reflect.ValueOf(&out).Elem()
	for _, f := range s.fields {
		w, ok := item[f.ID]
		if !ok || w == nil {
			continue
		}
		fv := dst.FieldByName(f.goName)
		if fv.Kind() == reflect.Pointer {
			p := reflect.New(fv.Type().Elem())
			fv.Set(p)
			fv = p.Elem()
		}
		if err := decodeValue(fv, w); err != nil {
			return out, fmt.Errorf("%w: field %q: %w", ErrItemDecode, f.ID, err)
		}
	}
	return out, nil
}

// decodeValue sets v from the wire value w.
func decodeValue(v reflect.Value, w any) error {
	bad := func() error { return fmt.Errorf("want a value for a Go %s, got %s", v.Type(), describeWire(w)) }
	switch v.Type() {
	case timeType:
		s, ok := w.(string)
		if !ok {
			return bad()
		}
		for _, l := range isoLayouts {
			if t, err := time.Parse(l, s); err == nil {
				v.Set(reflect.ValueOf(t))
				return nil
			}
		}
		return bad()
	case dayType:
		s, ok := w.(string)
		if !ok {
			return bad()
		}
		d, err := ParseDay(s)
		if err != nil {
			return err
		}
		v.Set(reflect.ValueOf(d))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		s, ok := w.(string)
		if !ok {
			return bad()
		}
		v.SetString(s)
	case reflect.Bool:
		s, ok := w.(string)
		if !ok {
			return bad()
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "yes", "on", "1", "checked":
			v.SetBool(true)
		case "false", "no", "off", "0", "":
			v.SetBool(false)
		default:
			return bad()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, ok := wireInteger(w, strconv.ParseInt, v.OverflowInt)
		if !ok {
			return bad()
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u, ok := wireInteger(w, strconv.ParseUint, v.OverflowUint)
		if !ok {
			return bad()
		}
		v.SetUint(u)
	case reflect.Float32, reflect.Float64:
		n, err := wireNumber(w)
		if err != nil {
			return bad()
		}
		v.SetFloat(n)
	case reflect.Slice:
		arr, ok := w.([]any)
		if !ok {
			return bad()
		}
		out := make([]string, len(arr))
		for i, e := range arr {
			if out[i], ok = e.(string); !ok {
				return bad()
			}
		}
		v.Set(reflect.ValueOf(out))
	default:
		return bad()
	}
	return nil
}

// wireInteger reads the wire value of an integer field: a number without
// a fraction, or a string holding a base-10 integer (an integer id), that
// fits the field (overflows, the field's Overflow method, says when not).
// parse is strconv.ParseInt or strconv.ParseUint. A json.Number written
// as an integer is parsed as one, exactly (beyond 2^53 a float64 is not);
// in another form (1e3, 12.0) it is read as a float64.
func wireInteger[T int64 | uint64](w any, parse func(string, int, int) (T, error), overflows func(T) bool) (T, bool) {
	switch s := w.(type) {
	case string:
		i, err := parse(s, 10, 64)
		return i, err == nil && !overflows(i)
	case json.Number:
		if i, err := parse(string(s), 10, 64); err == nil {
			return i, !overflows(i)
		}
	}
	n, err := wireNumber(w)
	// T(n) is defined only for n within T's range: [-2^63, 2^63) or
	// [0, 2^64) (beyond, a conversion gives what the CPU makes of it).
	lo, hi := -0x1p63, 0x1p63
	if ^T(0) > 0 { // unsigned
		lo, hi = 0, 0x1p64
	}
	if err != nil || n != math.Trunc(n) || n < lo || n >= hi || overflows(T(n)) {
		return 0, false
	}
	return T(n), true
}

// wireNumber reads a JSON number decoded as float64 or json.Number.
func wireNumber(w any) (float64, error) {
	switch n := w.(type) {
	case float64:
		return n, nil
	case json.Number:
		return n.Float64()
	}
	return 0, errors.New("not a number")
}

// describeWire writes a wire value for an error: its JSON, shortened.
func describeWire(w any) string {
	b, err := json.Marshal(w)
	if err != nil {
		return fmt.Sprintf("%v", w)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}
