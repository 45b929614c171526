package store

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/internal/jsonw"
	"github.com/google/uuid"
)

// DateTimeLayout is the wire form of date-time values.
const DateTimeLayout = "2006-01-02T15:04:05.000Z"

// isDecimal reports whether s is a decimal the store takes: an optional
// sign, 1 to 30 digits, and optionally a point and 1 to 30 more digits
// (^[-+]?[0-9]{1,30}(\.[0-9]{1,30})?$, checked by hand: it is on the sync's
// path for every decimal value).
func isDecimal(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	whole, frac, point := strings.Cut(s, ".")
	return digits(whole) && (!point || digits(frac))
}

// digits reports whether s is 1 to 30 ASCII digits.
func digits(s string) bool {
	if len(s) < 1 || len(s) > 30 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("store: encode: %w", err)
	}
	return string(b), nil
}

func invalid(f string, format string, args ...any) *Error {
	return Errorf(NameInvalidValue, map[string]any{"field": f}, "field %s: "+format, append([]any{f}, args...)...)
}

// FormatDateTime renders epoch milliseconds as the wire form.
func FormatDateTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(DateTimeLayout) }

// ParseDateTime parses an ISO 8601 / RFC 3339 date-time into epoch milliseconds.
func ParseDateTime(s string) (int64, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("not an ISO 8601 date-time: %q", s)
}

// ParseDate validates a YYYY-MM-DD date.
func ParseDate(s string) (string, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return "", fmt.Errorf("not a YYYY-MM-DD date: %q", s)
	}
	return t.Format("2006-01-02"), nil
}

// ToInt converts a JSON number to int64.
func ToInt(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i, true
		}
		f, err := n.Float64()
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), true
		}
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// ScalarArg converts one JSON value of primitive type prim into the SQL value
// of one column (for ranges, use RangeArgs). Nil stays nil. name is used in
// error messages.
func ScalarArg(name, prim string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch prim {
	case TInt, TRank:
		i, ok := ToInt(v)
		if !ok {
			return nil, invalid(name, "want an integer, got %s", jsonw.Kind(v))
		}
		return i, nil
	case TDecimal:
		var s string
		switch x := v.(type) {
		case string:
			s = strings.TrimSpace(x)
		case json.Number:
			s = x.String()
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			return nil, invalid(name, "want a decimal string, got %s", jsonw.Kind(v))
		}
		if !isDecimal(s) {
			return nil, invalid(name, "want a decimal string, got %q", s)
		}
		return strings.TrimPrefix(s, "+"), nil
	case TBool:
		b, ok := v.(bool)
		if !ok {
			return nil, invalid(name, "want a boolean, got %s", jsonw.Kind(v))
		}
		return b, nil
	case TText, TEmoji:
		return stringArg(name, v, "a string", textArg)
	case TEmail:
		return stringArg(name, v, "an e-mail string", emailArg)
	case TDate:
		return stringArg(name, v, "a YYYY-MM-DD string", dateArg)
	case TDateTime:
		return stringArg(name, v, "an ISO 8601 date-time string", dateTimeArg)
	case TUUID:
		return stringArg(name, v, "a uuid string", uuidArg)
	case TJSON:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, invalid(name, "not JSON: %v", err)
		}
		return string(b), nil
	}
	return nil, invalid(name, "values of type %s are not scalar", prim)
}

// stringArg converts v, the value of a type written as a JSON string, with
// conv; want says what the string should be, for the error when v is not
// a string at all.
func stringArg(name string, v any, want string, conv func(name, s string) (any, error)) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, invalid(name, "want %s, got %s", want, jsonw.Kind(v))
	}
	return conv(name, s)
}

// textArg: text the engines store alike (checkText), as it is.
func textArg(name, s string) (any, error) {
	if err := checkText(name, s); err != nil {
		return nil, err
	}
	return s, nil
}

// emailArg: text with an @ and no white space, or empty.
func emailArg(name, s string) (any, error) {
	if err := checkText(name, s); err != nil {
		return nil, err
	}
	if s != "" && (!strings.Contains(s, "@") || strings.ContainsAny(s, " \t\r\n")) {
		return nil, invalid(name, "not an e-mail address: %q", s)
	}
	return s, nil
}

// dateArg and dateTimeArg: a date as YYYY-MM-DD, a date-time as epoch
// milliseconds.
var (
	dateArg     = parsedArg(ParseDate)
	dateTimeArg = parsedArg(ParseDateTime)
)

// parsedArg converts with parse, whose error says what is wrong with the
// string.
func parsedArg[T any](parse func(string) (T, error)) func(name, s string) (any, error) {
	return func(name, s string) (any, error) {
		x, err := parse(s)
		if err != nil {
			return nil, invalid(name, "%v", err)
		}
		return x, nil
	}
}

// uuidArg: a uuid in its 36-character form, in lower case.
func uuidArg(name, s string) (any, error) {
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return nil, invalid(name, "not a uuid: %q", s)
	}
	return u.String(), nil
}

// RangeArgs converts a range object {start, end} into its two column values.
func RangeArgs(name, prim string, v any) (any, any, error) {
	if v == nil {
		return nil, nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, invalid(name, "want an object with start and end, got %s", jsonw.Kind(v))
	}
	for k := range m {
		if k != "start" && k != "end" {
			return nil, nil, invalid(name, "unknown range key %q", k)
		}
	}
	elem := TDate
	if prim == TDateTimeRange {
		elem = TDateTime
	}
	s, err := ScalarArg(name, elem, m["start"])
	if err != nil {
		return nil, nil, err
	}
	e, err := ScalarArg(name, elem, m["end"])
	if err != nil {
		return nil, nil, err
	}
	return s, e, nil
}

// OutScalar converts a database value of primitive type prim into its JSON
// form. Values may come from a column scan or from decoded JSON (json.Number).
func OutScalar(prim string, v any) any {
	if v == nil {
		return nil
	}
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	switch prim {
	case TInt, TRank:
		switch x := v.(type) {
		case int64:
			return x
		case json.Number:
			if i, err := x.Int64(); err == nil {
				return i
			}
			f, _ := x.Float64()
			return int64(f)
		case float64:
			return int64(x)
		case string:
			i, _ := strconv.ParseInt(x, 10, 64)
			return i
		}
	case TDecimal:
		switch x := v.(type) {
		case string:
			return x
		case json.Number:
			return x.String()
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64)
		case int64:
			return strconv.FormatInt(x, 10)
		}
	case TBool:
		switch x := v.(type) {
		case bool:
			return x
		case int64:
			return x != 0
		case json.Number:
			return x.String() != "0"
		case float64:
			return x != 0
		case string:
			return x == "1" || x == "true" || x == "t"
		}
	case TDateTime:
		switch x := v.(type) {
		case int64:
			return FormatDateTime(x)
		case json.Number:
			i, _ := x.Int64()
			return FormatDateTime(i)
		case float64:
			return FormatDateTime(int64(x))
		case string:
			i, err := strconv.ParseInt(x, 10, 64)
			if err == nil {
				return FormatDateTime(i)
			}
			return x
		}
	case TJSON:
		if s, ok := v.(string); ok {
			return json.RawMessage(s)
		}
		return v
	default:
		if s, ok := v.(string); ok {
			return s
		}
		return fmt.Sprint(v)
	}
	return v
}

// OutRange converts the two column values of a range into {start, end} (nil
// when both are empty).
func OutRange(prim string, s, e any) any {
	if s == nil && e == nil {
		return nil
	}
	elem := TDate
	if prim == TDateTimeRange {
		elem = TDateTime
	}
	return map[string]any{"start": OutScalar(elem, s), "end": OutScalar(elem, e)}
}

// SQLType is the column type of a primitive on the dialect.
func SQLType(d Dialect, prim string) string {
	pg := IsPostgres(d)
	switch prim {
	case TInt, TRank, TDateTime, TDateTimeRange:
		return "BIGINT"
	case TDecimal:
		if pg {
			return "NUMERIC"
		}
		return "TEXT"
	case TBool:
		if pg {
			return "BOOLEAN"
		}
		return "INTEGER"
	}
	if pg {
		return `TEXT COLLATE "C"`
	}
	return "TEXT"
}

// ColumnExpr is the SELECT expression reading column col (of table alias a)
// holding a value of primitive type prim, so that scanning gives the types
// OutScalar expects on both engines.
func ColumnExpr(d Dialect, prim, a, col string) string {
	if prim == TDecimal && IsPostgres(d) {
		return a + "." + col + "::text"
	}
	return a + "." + col
}
