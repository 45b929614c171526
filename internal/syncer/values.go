package syncer

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/jsonw"
	"github.com/appkitgo/appkit/internal/pagerules"
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

// convert turns one JSON value into the column value of kind k (a [2]any
// for ranges). Empty strings are empty values for every kind but text.
// A value not in its field's stated form that the service accepts all the
// same is converted and the conversion named (pagerules' Coercion: the
// conformance suite warns about the same values); one that cannot be read
// is an *ItemError, and its item is kept without it.
func convert(k kind, field string, v any) (any, pagerules.Coercion, error) {
	if v == nil {
		return nil, "", nil
	}
	if s, ok := v.(string); ok && s == "" && k != kText && k != kMarkdown && k != kHTML {
		return nil, "", nil
	}
	switch k {
	case kText, kEmail:
		s, c, ok := pagerules.TextOf(v)
		if !ok {
			if s, ok = pagerules.JSONTextOf(v); !ok {
				return nil, "", itemErr(field, "not JSON")
			}
			c = pagerules.JSONText
		}
		if k == kEmail && s != "" && !pagerules.IsEmail(s) {
			return nil, "", itemErr(field, "not an e-mail address: %q", s)
		}
		return sameString(v, s), c, nil
	case kBool:
		switch x := v.(type) {
		case bool:
			return x, pagerules.WireBoolean, nil
		case json.Number:
			return x.String() != "0", pagerules.ScalarText, nil
		case string:
			b, ok := parseBool(x)
			if !ok {
				return nil, "", itemErr(field, "want a boolean, got %q", x)
			}
			return b, "", nil
		}
		return nil, "", itemErr(field, "want a boolean, got %s", jsonw.Kind(v))
	case kDecimal:
		s, c, ok := pagerules.NumberText(v)
		if !ok {
			return nil, "", itemErr(field, "want a number, got %s", jsonw.Kind(v))
		}
		a, err := store.ScalarArg(field, store.TDecimal, s)
		if err != nil {
			if f, perr := strconv.ParseFloat(s, 64); perr == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return strconv.FormatFloat(f, 'f', -1, 64), c, nil // 1e3 and the like
			}
			return nil, "", itemErr(field, "want a number, got %q", s)
		}
		return a, c, nil
	case kInt:
		var c pagerules.Coercion
		n := v
		if s, ok := v.(string); ok {
			n, c = json.Number(strings.TrimSpace(s)), pagerules.NumericText
		}
		i, ok := store.ToInt(n)
		if !ok {
			return nil, "", itemErr(field, "want an integer, got %s", jsonw.Kind(v))
		}
		return i, c, nil
	case kDateTime:
		t, c, err := parseTime(v)
		if err != nil {
			return nil, "", itemErr(field, "%v", err)
		}
		return t.UnixMilli(), c, nil
	case kDate:
		t, c, err := parseTime(v)
		if err != nil {
			return nil, "", itemErr(field, "%v", err)
		}
		if s, _ := v.(string); c == "" && len(strings.TrimSpace(s)) != len(time.DateOnly) {
			c = pagerules.DayOfDateTime
		}
		return t.Format(time.DateOnly), c, nil
	case kDateRange, kDateTimeRange:
		return convertRange(k, field, v)
	case kSelect:
		s, c, ok := pagerules.TextOf(v)
		if !ok || c == pagerules.JoinedLines {
			return nil, "", itemErr(field, "want an option (a string), got %s", jsonw.Kind(v))
		}
		return sameString(v, s), c, nil
	case kList:
		list, c, err := stringList(field, v)
		if err != nil {
			return nil, "", err
		}
		b, _ := json.Marshal(list)
		return string(b), c, nil
	case kJSON:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, "", itemErr(field, "not JSON")
		}
		return string(b), "", nil
	case kMarkdown:
		s, c, ok := pagerules.TextOf(v)
		if !ok {
			return nil, "", itemErr(field, "want markdown text, got %s", jsonw.Kind(v))
		}
		return sameString(v, s), c, nil
	case kHTML:
		s, c, ok := pagerules.TextOf(v)
		if !ok {
			return nil, "", itemErr(field, "want HTML text, got %s", jsonw.Kind(v))
		}
		md, err := documents.HTMLToMarkdown(s)
		if err != nil {
			return nil, "", itemErr(field, "%v", err)
		}
		return md, c, nil
	case kRefOne:
		var c pagerules.Coercion
		if list, ok := v.([]any); ok { // one id in an array
			if len(list) == 0 {
				return nil, pagerules.OneIDArray, nil
			}
			if len(list) > 1 {
				return nil, "", itemErr(field, "a many-to-one relation holds one id, got %d", len(list))
			}
			v, c = list[0], pagerules.OneIDArray
		}
		id, ok := appID(v)
		if !ok {
			return nil, "", itemErr(field, "want a related id, got %s", jsonw.Kind(v))
		}
		if _, isStr := v.(string); !isStr && c == "" {
			c = pagerules.ScalarText
		}
		return sameString(v, id), c, nil
	case kRefMany:
		return stringList(field, v)
	}
	return nil, "", itemErr(field, "unknown kind %s", k)
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

// stringList reads an array of strings (numbers in it as their text), a
// comma-separated string, or a lone number.
func stringList(field string, v any) ([]string, pagerules.Coercion, error) {
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
		return out, "", nil
	case []any:
		var c pagerules.Coercion
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := appID(e)
			if !ok {
				if s, isStr := e.(string); isStr && s == "" {
					continue
				}
				return nil, "", itemErr(field, "want an array of strings, got an element %s", jsonw.Kind(e))
			}
			if _, isStr := e.(string); !isStr {
				c = pagerules.ScalarText
			}
			out = append(out, s)
		}
		return out, c, nil
	}
	id, ok := appID(v)
	if !ok {
		return nil, "", itemErr(field, "want an array of strings, got %s", jsonw.Kind(v))
	}
	return []string{id}, pagerules.ScalarText, nil
}

// parseTime reads a date-time as pagerules.DateTimeOf does: an ISO 8601
// string (with or without zone; naive times are UTC), another form
// JavaScript's Date parses (named by the Coercion), or epoch milliseconds.
func parseTime(v any) (time.Time, pagerules.Coercion, error) {
	t, c, ok := pagerules.DateTimeOf(v)
	if ok {
		return t, c, nil
	}
	if s, isStr := v.(string); isStr {
		return time.Time{}, "", fmt.Errorf("want an ISO 8601 date-time, got %q", strings.TrimSpace(s))
	}
	return time.Time{}, "", fmt.Errorf("want an ISO 8601 date-time, got %s", jsonw.Kind(v))
}

// convertRange reads a range: a JSON string of an object (the stated
// form) or the object itself, with start and end (exclusive, as apps send
// it); a date range's end becomes the last day in the range.
func convertRange(k kind, field string, v any) (any, pagerules.Coercion, error) {
	var c pagerules.Coercion
	if s, ok := v.(string); ok {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, "", itemErr(field, "want a range {\"start\", \"end\"}, got %q", s)
		}
		v = m
	} else {
		c = pagerules.RangeObject
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "", itemErr(field, "want a range {\"start\", \"end\"}, got %s", jsonw.Kind(v))
	}
	var out [2]any
	for i, key := range []string{"start", "end"} {
		raw, ok := m[key]
		if !ok || raw == nil || raw == "" {
			continue
		}
		t, tc, err := parseTime(raw)
		if err != nil {
			return nil, "", itemErr(field, "%s: %v", key, err)
		}
		if c == "" {
			c = tc
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
			return nil, "", itemErr(field, "the range ends before it starts")
		}
	}
	return out, c, nil
}
