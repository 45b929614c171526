package commands

import (
	"encoding/json"
	"strconv"

	"github.com/appkitgo/appkit/internal/jsonw"
)

// EncodeResults renders a response array as JSON without reflection for the
// shapes the API produces (other values go through encoding/json). The
// output decodes to the same values as encoding/json's encoding of them:
// object keys sorted, no HTML escaping, strings escaped as appendString
// says. It is not promised to be byte for byte encoding/json's output, only
// equal once decoded.
func EncodeResults(res []Result) ([]byte, error) {
	return appendArray(make([]byte, 0, 256), res, appendResult)
}

// appendArray writes xs as a JSON array, each item with appendItem.
func appendArray[T any](buf []byte, xs []T, appendItem func([]byte, T) ([]byte, error)) ([]byte, error) {
	buf = append(buf, '[')
	for i, x := range xs {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = appendItem(buf, x); err != nil {
			return nil, err
		}
	}
	return append(buf, ']'), nil
}

// appendObject writes m as a JSON object, keys sorted.
func appendObject(buf []byte, m map[string]any) ([]byte, error) {
	buf = append(buf, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, k)
		buf = append(buf, ':')
		var err error
		if buf, err = appendValue(buf, m[k]); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
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
		return jsonw.AppendFloat(buf, x, 64), nil
	case encoded:
		return append(buf, x...), nil
	case json.RawMessage:
		if !json.Valid(x) {
			return append(buf, "null"...), nil
		}
		return append(buf, x...), nil
	case map[string]any:
		return appendObject(buf, x)
	case []any:
		return appendArray(buf, x, appendValue)
	case []map[string]any:
		return appendArray(buf, x, appendObject)
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

// appendString writes s as a JSON string: valid JSON that decodes to s
// (invalid UTF-8 replaced by U+FFFD, as encoding/json does), with control
// characters, U+2028 and U+2029 escaped and no HTML escaping (package
// jsonw).
func appendString(buf []byte, s string) []byte { return jsonw.AppendString(buf, s) }
