package query

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// EncodedSize is the length in bytes of v encoded as JSON by encoding/json
// with HTML escaping off (control characters other than \n, \r, \t, \b and
// \f as \u00XX, U+2028 and U+2029 escaped, each invalid UTF-8 byte as
// \ufffd). It is exact for the values a query result holds (nil, strings,
// booleans, integers, floats, json.RawMessage, maps with string keys and
// slices of them) and walks them without encoding; other values are
// measured by encoding them. A float that is not finite counts as null.
func EncodedSize(v any) int {
	switch x := v.(type) {
	case nil:
		return 4
	case string:
		return stringSize(x)
	case bool:
		if x {
			return 4
		}
		return 5
	case int64:
		return intSize(x)
	case int:
		return intSize(int64(x))
	case float64:
		return floatSize(x)
	case json.RawMessage:
		if x == nil {
			return 4
		}
		return len(x)
	case map[string]any:
		n := 2
		if len(x) > 0 {
			n += len(x) - 1 // commas
		}
		for k, e := range x {
			n += stringSize(k) + 1 + EncodedSize(e)
		}
		return n
	case []any:
		return arraySize(x)
	case []map[string]any:
		return arraySize(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 4
	}
	return len(b)
}

// arraySize is the encoded size of the array xs ("null" when nil).
func arraySize[T any](xs []T) int {
	if xs == nil {
		return 4
	}
	n := 2
	if len(xs) > 0 {
		n += len(xs) - 1 // commas
	}
	for _, e := range xs {
		n += EncodedSize(e)
	}
	return n
}

func intSize(i int64) int {
	var buf [24]byte
	return len(strconv.AppendInt(buf[:0], i, 10))
}

// floatSize follows encoding/json's float formatting: %f, or %e with a
// one-digit negative exponent unpadded for very small and very large values.
func floatSize(f float64) int {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 4
	}
	var buf [32]byte
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(buf[:0], f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		return n - 1
	}
	return len(b)
}

// stringSize is the length of s as a JSON string, quotes included.
func stringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
