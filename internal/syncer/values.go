package syncer

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/store"
)

// ItemError is why one item was skipped.
type ItemError struct {
	// Field is the app field at fault ("" for the item as a whole).
	Field string
	// Reason says what is wrong.
	Reason string
}

func (e *ItemError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return "field " + e.Field + ": " + e.Reason
}

func itemErr(field, format string, a ...any) *ItemError {
	return &ItemError{Field: field, Reason: fmt.Sprintf(format, a...)}
}

// appID reads an item's id: a non-empty string or a number.
func appID(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, x != ""
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}

// textOf reads a value the app sent for a text-like field: strings as they
// are, numbers and booleans as their JSON text.
func textOf(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// convert turns one JSON value into the column value of kind k (a [2]any
// for ranges). Empty strings are empty values for every kind but text.
func convert(k kind, field string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if s, ok := v.(string); ok && s == "" && k != kText && k != kMarkdown && k != kHTML {
		return nil, nil
	}
	switch k {
	case kText, kEmail:
		s, ok := textOf(v)
		if !ok {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, itemErr(field, "not JSON")
			}
			s = string(b)
		}
		if k == kEmail && s != "" && (!strings.Contains(s, "@") || strings.ContainsAny(s, " \t\r\n")) {
			return nil, itemErr(field, "not an e-mail address: %q", s)
		}
		return sameString(v, s), nil
	case kBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case json.Number:
			return x.String() != "0", nil
		case string:
			b, ok := parseBool(x)
			if !ok {
				return nil, itemErr(field, "want a boolean, got %q", x)
			}
			return b, nil
		}
		return nil, itemErr(field, "want a boolean, got %s", describe(v))
	case kDecimal:
		s, ok := textOf(v)
		if _, isBool := v.(bool); !ok || isBool {
			return nil, itemErr(field, "want a number, got %s", describe(v))
		}
		a, err := store.ScalarArg(field, store.TDecimal, strings.TrimSpace(s))
		if err != nil {
			if f, perr := strconv.ParseFloat(strings.TrimSpace(s), 64); perr == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return strconv.FormatFloat(f, 'f', -1, 64), nil // 1e3 and the like
			}
			return nil, itemErr(field, "want a number, got %q", s)
		}
		return a, nil
	case kInt:
		if s, ok := v.(string); ok {
			v = json.Number(strings.TrimSpace(s))
		}
		i, ok := store.ToInt(v)
		if !ok {
			return nil, itemErr(field, "want an integer, got %s", describe(v))
		}
		return i, nil
	case kDateTime:
		t, err := parseTime(v)
		if err != nil {
			return nil, itemErr(field, "%v", err)
		}
		return t.UnixMilli(), nil
	case kDate:
		t, err := parseTime(v)
		if err != nil {
			return nil, itemErr(field, "%v", err)
		}
		return t.Format(time.DateOnly), nil
	case kDateRange, kDateTimeRange:
		return convertRange(k, field, v)
	case kSelect:
		s, ok := textOf(v)
		if !ok {
			return nil, itemErr(field, "want an option (a string), got %s", describe(v))
		}
		return sameString(v, s), nil
	case kList:
		list, err := stringList(field, v)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(list)
		return string(b), nil
	case kJSON:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, itemErr(field, "not JSON")
		}
		return string(b), nil
	case kMarkdown:
		if _, ok := v.(string); !ok {
			return nil, itemErr(field, "want markdown text, got %s", describe(v))
		}
		return v, nil
	case kHTML:
		s, ok := v.(string)
		if !ok {
			return nil, itemErr(field, "want HTML text, got %s", describe(v))
		}
		md, err := documents.HTMLToMarkdown(s)
		if err != nil {
			return nil, itemErr(field, "%v", err)
		}
		return md, nil
	case kRefOne:
		if list, ok := v.([]any); ok { // one id in an array
			if len(list) == 0 {
				return nil, nil
			}
			if len(list) > 1 {
				return nil, itemErr(field, "a many-to-one relation holds one id, got %d", len(list))
			}
			v = list[0]
		}
		id, ok := appID(v)
		if !ok {
			return nil, itemErr(field, "want a related id, got %s", describe(v))
		}
		return sameString(v, id), nil
	case kRefMany:
		return stringList(field, v)
	}
	return nil, itemErr(field, "unknown kind %s", k)
}

// sameString is s as a value: v itself when v holds exactly s (returning
// the string s would box it again, an allocation for each value of a
// page).
func sameString(v any, s string) any {
	if x, ok := v.(string); ok && x == s {
		return v
	}
	return s
}

// stringList reads an array of strings (or numbers), or a comma-separated
// string.
func stringList(field string, v any) ([]string, error) {
	switch x := v.(type) {
	case string:
		var out []string
		for _, p := range strings.Split(x, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		if out == nil {
			out = []string{}
		}
		return out, nil
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := appID(e)
			if !ok {
				return nil, itemErr(field, "want an array of strings, got an element %s", describe(e))
			}
			out = append(out, s)
		}
		return out, nil
	}
	id, ok := appID(v)
	if !ok {
		return nil, itemErr(field, "want an array of strings, got %s", describe(v))
	}
	return []string{id}, nil
}

// timeLayouts are the forms of a date-time string, tried in order (each
// failed try costs an error value: the common forms come first).
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", time.DateOnly}

// dayLayout is the one layout of timeLayouts a 10-byte string can match.
var dayLayout = []string{time.DateOnly}

// parseTime reads an ISO 8601 date-time (with or without zone; naive times
// are UTC), a date, or Unix milliseconds.
func parseTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case json.Number:
		ms, err := x.Int64()
		if err != nil {
			return time.Time{}, fmt.Errorf("want an ISO 8601 date-time, got %s", x)
		}
		return time.UnixMilli(ms).UTC(), nil
	case string:
		s := strings.TrimSpace(x)
		layouts := timeLayouts
		if len(s) == len(time.DateOnly) {
			layouts = dayLayout // the one layout a string of that length can match
		}
		for _, layout := range layouts {
			if t, err := time.Parse(layout, s); err == nil {
				if t.Year() < 1 || t.Year() > 9999 {
					break
				}
				return t.UTC(), nil
			}
		}
		return time.Time{}, fmt.Errorf("want an ISO 8601 date-time, got %q", s)
	}
	return time.Time{}, fmt.Errorf("want an ISO 8601 date-time, got %s", describe(v))
}

// convertRange reads a range: an object or a JSON string of one, with start
// and end (exclusive, as apps send it); a date range's end becomes the last
// day in the range.
func convertRange(k kind, field string, v any) (any, error) {
	if s, ok := v.(string); ok {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, itemErr(field, "want a range {\"start\", \"end\"}, got %q", s)
		}
		v = m
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, itemErr(field, "want a range {\"start\", \"end\"}, got %s", describe(v))
	}
	var out [2]any
	for i, key := range []string{"start", "end"} {
		raw, ok := m[key]
		if !ok || raw == nil || raw == "" {
			continue
		}
		t, err := parseTime(raw)
		if err != nil {
			return nil, itemErr(field, "%s: %v", key, err)
		}
		if k == kDateRange {
			if i == 1 {
				t = t.AddDate(0, 0, -1)
			}
			out[i] = t.Format(time.DateOnly)
		} else {
			out[i] = t.UnixMilli()
		}
	}
	if out[0] != nil && out[1] != nil {
		if fmt.Sprint(out[0]) > fmt.Sprint(out[1]) && k == kDateRange {
			return nil, itemErr(field, "the range ends before it starts")
		}
	}
	return out, nil
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
