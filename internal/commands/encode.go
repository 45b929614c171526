package commands

import (
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

// appendValue writes a result's value: what jsonw.Any writes, plus encoded
// as it is, []map[string]any, []Result and ErrorBody.
func appendValue(buf []byte, v any) ([]byte, error) {
	return jsonw.Any{Ext: appendResultValue}.Append(buf, v)
}

func appendResultValue(buf []byte, v any, a jsonw.Any) ([]byte, bool, error) {
	var err error
	switch x := v.(type) {
	case encoded:
		return append(buf, x...), true, nil
	case []map[string]any:
		buf, err = appendArray(buf, x, a.AppendObject)
		return buf, true, err
	case []Result:
		buf, err = appendArray(buf, x, appendResult)
		return buf, true, err
	case ErrorBody:
		buf = append(buf, `{"name":`...)
		buf = appendString(buf, x.Name)
		buf = append(buf, `,"message":`...)
		buf = appendString(buf, x.Message)
		buf = append(buf, `,"data":`...)
		if x.Data == nil {
			return append(buf, "{}}"...), true, nil
		}
		if buf, err = a.Append(buf, x.Data); err != nil {
			return nil, true, err
		}
		return append(buf, '}'), true, nil
	}
	return buf, false, nil
}

// appendString writes s as a JSON string: valid JSON that decodes to s
// (invalid UTF-8 replaced by U+FFFD, as encoding/json does), with control
// characters, U+2028 and U+2029 escaped and no HTML escaping (package
// jsonw).
func appendString(buf []byte, s string) []byte { return jsonw.AppendString(buf, s) }
