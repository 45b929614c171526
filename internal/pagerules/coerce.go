package pagerules

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Coercion names a conversion the host makes of a value that is not in the
// form the protocol states for its field but that the workspace service
// accepts all the same (apps written for the service rely on it). The sync
// engine converts such a value and counts it; the conformance suite warns
// about it under [Coerced], naming the coercion. The empty Coercion means
// the value was in the stated form.
type Coercion string

// The coercions, each a row of the value mapping in docs/protocol.md.
const (
	// JoinedLines: an array of strings in a text, Markdown or HTML field,
	// joined with newlines.
	JoinedLines Coercion = "an array of strings, joined with newlines"
	// ScalarText: a number or a boolean in a text field, kept as its JSON
	// text (3 → "3", true → "true").
	ScalarText Coercion = "a number or boolean, kept as its JSON text"
	// JSONText: an object, or an array that is not all strings, in a plain
	// text field, kept as its JSON text.
	JSONText Coercion = "an object or array, kept as its JSON text"
	// NumericText: a string holding a number in a number field, read as
	// that number.
	NumericText Coercion = "a numeric string, read as a number"
	// EpochMillis: a number in a date field, read as milliseconds since
	// 1970-01-01 UTC (JavaScript's Date value).
	EpochMillis Coercion = "a number, read as epoch milliseconds"
	// RFC1123Date: a date-time in the form of RFC 1123 / RFC 2822 (HTTP
	// dates, JavaScript's toUTCString), e.g. "Tue, 14 Nov 2023 22:13:00 GMT".
	RFC1123Date Coercion = "an RFC 1123/2822 date-time"
	// JSDate: a date-time as JavaScript's Date.toString writes it, e.g.
	// "Tue Nov 14 2023 22:13:00 GMT+0100 (Central European Standard Time)".
	JSDate Coercion = "a JavaScript Date.toString date-time"
	// USDate: a date-time as the en-US locale writes it, month first:
	// "11/14/2023", "11/14/2023, 10:13 PM", "11/14/2023 22:13:05";
	// without a zone, read as UTC.
	USDate Coercion = "a month-first locale date-time (M/D/YYYY[, h:mm[:ss] AM/PM]), read as UTC"
	// SlashedISODate: "2023/11/14" or "2023/11/14 22:13[:05]", read as UTC.
	SlashedISODate Coercion = "a YYYY/MM/DD date-time, read as UTC"
)

// isoLayouts are the ISO 8601 forms of a date-time the protocol states
// (with or without a zone, "T" or a space between date and time; naive
// times are UTC), tried in order: the common forms first, since each failed
// try costs an error value on the sync engine's path.
var isoLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", time.DateOnly}

// looseLayouts are the other forms JavaScript's Date parses that apps send
// (see the Coercion constants), tried after the ISO forms.
var looseLayouts = []struct {
	layout string
	form   Coercion
}{
	{time.RFC1123, RFC1123Date},
	{time.RFC1123Z, RFC1123Date},
	{"Mon, 2 Jan 2006 15:04:05 MST", RFC1123Date},
	{"Mon, 2 Jan 2006 15:04:05 -0700", RFC1123Date},
	{"2 Jan 2006 15:04:05 -0700", RFC1123Date},
	{"2 Jan 2006 15:04:05 MST", RFC1123Date},
	{"Mon, 2 Jan 2006 15:04 -0700", RFC1123Date},
	{"Mon, 2 Jan 2006", RFC1123Date},
	{"Mon Jan 2 2006 15:04:05 GMT-0700", JSDate},
	{"Mon Jan 2 2006 15:04:05 GMT", JSDate},
	{"Mon Jan 2 2006", JSDate},
	{"1/2/2006, 3:04:05 PM", USDate},
	{"1/2/2006, 3:04 PM", USDate},
	{"1/2/2006 3:04:05 PM", USDate},
	{"1/2/2006 3:04 PM", USDate},
	{"1/2/2006, 15:04:05", USDate},
	{"1/2/2006, 15:04", USDate},
	{"1/2/2006 15:04:05", USDate},
	{"1/2/2006 15:04", USDate},
	{"1/2/2006", USDate},
	{"2006/1/2 15:04:05", SlashedISODate},
	{"2006/1/2 15:04", SlashedISODate},
	{"2006/1/2", SlashedISODate},
}

// ParseDateTime reads a date-time string: first the ISO 8601 forms the
// protocol states (form ""), then the other forms JavaScript's Date parses
// that apps send (form names which). A time without a zone is UTC. The year
// must be within 1 and 9999.
func ParseDateTime(s string) (t time.Time, form Coercion, ok bool) {
	s = strings.TrimSpace(s)
	if len(s) == len(time.DateOnly) && s[4] == '-' {
		// The one ISO layout a string of that length can match.
		if t, err := time.Parse(time.DateOnly, s); err == nil {
			return inRange(t, "")
		}
		return time.Time{}, "", false
	}
	for _, layout := range isoLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return inRange(t, "")
		}
	}
	if len(s) > 80 || s == "" {
		return time.Time{}, "", false
	}
	// JavaScript's toString ends with the zone's name in brackets.
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[:i])
	}
	upper := strings.ToUpper(s) // am/pm
	for _, l := range looseLayouts {
		in := s
		if l.form == USDate {
			in = upper
		}
		if t, err := time.Parse(l.layout, in); err == nil {
			return inRange(t, l.form)
		}
	}
	return time.Time{}, "", false
}

func inRange(t time.Time, form Coercion) (time.Time, Coercion, bool) {
	if t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, "", false
	}
	return t.UTC(), form, true
}

// EpochMillisTime reads a JSON number as epoch milliseconds (whole or not).
func EpochMillisTime(n json.Number) (time.Time, bool) {
	if ms, err := n.Int64(); err == nil {
		return time.UnixMilli(ms).UTC(), true
	}
	f, err := n.Float64()
	if err != nil || f < -62135596800000 || f > 253402300799999 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(f)).UTC(), true
}

// DateTimeOf reads the value of a date field: a string (ParseDateTime) or a
// number (epoch milliseconds, as json.Number or float64).
func DateTimeOf(v any) (time.Time, Coercion, bool) {
	switch x := v.(type) {
	case string:
		return ParseDateTime(x)
	case json.Number:
		t, ok := EpochMillisTime(x)
		return t, EpochMillis, ok
	case float64:
		t, ok := EpochMillisTime(json.Number(strconv.FormatFloat(x, 'f', -1, 64)))
		return t, EpochMillis, ok
	}
	return time.Time{}, "", false
}

// TextOf reads the value of a text field as the service keeps it: a string
// as it is; a number or boolean as its JSON text (ScalarText); an array of
// strings joined with newlines (JoinedLines). Anything else is not text
// (ok false): a plain text field keeps it as JSON (JSONText, see
// JSONTextOf); a Markdown or HTML field cannot.
func TextOf(v any) (s string, form Coercion, ok bool) {
	switch x := v.(type) {
	case string:
		return x, "", true
	case json.Number:
		return x.String(), ScalarText, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), ScalarText, true
	case bool:
		return strconv.FormatBool(x), ScalarText, true
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			p, isStr := e.(string)
			if !isStr {
				return "", "", false
			}
			parts[i] = p
		}
		return strings.Join(parts, "\n"), JoinedLines, true
	}
	return "", "", false
}

// JSONTextOf is the JSON text of a value that TextOf does not read, for a
// plain text field.
func JSONTextOf(v any) (string, bool) {
	b, err := json.Marshal(v)
	return string(b), err == nil
}

// NumberText is the number a number field's value holds, as text: a JSON
// number as it is, a string holding a number trimmed (NumericText). ok is
// false for anything else.
func NumberText(v any) (s string, form Coercion, ok bool) {
	switch x := v.(type) {
	case json.Number:
		return x.String(), "", true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), "", true
	case string:
		t := strings.TrimSpace(x)
		if _, err := strconv.ParseFloat(t, 64); err != nil && !isRangeErr(err) {
			return "", "", false
		}
		return t, NumericText, true
	}
	return "", "", false
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// More coercions, of the less common shapes apps send.
const (
	// WireBoolean: a JSON boolean in a boolean text field (reported under
	// WireForm, which predates Coerced).
	WireBoolean Coercion = "a JSON boolean, read as the text true or false"
	// OneIDArray: a many-to-one relation's id inside an array of at most
	// one element.
	OneIDArray Coercion = "an array of at most one id, read as that id"
	// RangeObject: a date range as an object {start, end} instead of its
	// JSON text.
	RangeObject Coercion = "a range object, read as its JSON text"
	// DayOfDateTime: a date-time in a day field, its day (UTC) kept.
	DayOfDateTime Coercion = "a date-time in a day field, its day (UTC) kept"
	// SplitText: a string in an array[text] field or a many-to-many
	// relation, split at commas.
	SplitText Coercion = "a string, split at commas"
	// EmptyText: an empty string in a number, date or array[text] field,
	// read as no value.
	EmptyText Coercion = "an empty string, read as no value"
)
