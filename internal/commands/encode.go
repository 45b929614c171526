package commands

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// EncodeResults renders a response array as JSON without reflection for the
// shapes the API produces (other values go through encoding/json). The
// output decodes to the same values as encoding/json's encoding of them:
// object keys sorted, no HTML escaping, strings escaped as appendString
// says. It is not promised to be byte for byte encoding/json's output, only
// equal once decoded.
func EncodeResults(res []Result) ([]byte, error) {
	buf := make([]byte, 0, 256)
	buf = append(buf, '[')
	for i, r := range res {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = appendResult(buf, r); err != nil {
			return nil, err
		}
	}
	return append(buf, ']'), nil
}

func appendResult(buf []byte, r Result) ([]byte, error) {
	if r.Success {
		buf = append(buf, `{"success":true,"result":`...)
	} else {
		buf = append(buf, `{"success":false,"result":`...)
	}
	buf, err := appendValue(buf, r.Result)
	if err != nil {
		return nil, err
	}
	return append(buf, '}'), nil
}

func appendValue(buf []byte, v any) ([]byte, error) {
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
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return append(buf, "null"...), nil
		}
		b, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		return append(buf, b...), nil
	case json.RawMessage:
		if !json.Valid(x) {
			return append(buf, "null"...), nil
		}
		return append(buf, x...), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendString(buf, k)
			buf = append(buf, ':')
			if buf, err = appendValue(buf, x[k]); err != nil {
				return nil, err
			}
		}
		return append(buf, '}'), nil
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = appendValue(buf, e); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	case []map[string]any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = appendValue(buf, e); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	case []Result:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = appendResult(buf, e); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	case ErrorBody:
		buf = append(buf, `{"name":`...)
		buf = appendString(buf, x.Name)
		buf = append(buf, `,"message":`...)
		buf = appendString(buf, x.Message)
		buf = append(buf, `,"data":`...)
		if x.Data == nil {
			return append(buf, "{}}"...), nil
		}
		if buf, err = appendValue(buf, x.Data); err != nil {
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

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. The contract is semantic: the
// output is valid JSON that decodes to s with each invalid UTF-8 byte
// replaced by U+FFFD, as encoding/json's encoding of s decodes. Quote,
// backslash and every control character are escaped (\n, \r, \t, \b, \f
// in short form, the others as \u00XX), U+2028 and U+2029 are escaped as
// \u2028 and \u2029, and nothing else is (no HTML escaping of <, > and &).
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
