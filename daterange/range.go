package daterange

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// WireLayout is the layout of _min and _max on the wire: ISO 8601 with
// milliseconds and no zone. The values are timezone-naive wall-clock times.
const WireLayout = "2006-01-02T15:04:05.000"

// maxWireValue bounds the length of one _min or _max string accepted by
// UnmarshalJSON; the longest legitimate form (RFC 3339 with nanoseconds and
// an offset) is 35 bytes.
const maxWireValue = 64

// Range is an inclusive range of wall-clock times. A nil side is open: a
// Range with a nil Max has no upper bound, and the zero Range is open on both
// sides. Both sides are inclusive; a closed side produced by Parse is the
// first millisecond (Min) or the last millisecond (Max) of a day.
//
// On the wire a Range is the object {"_min": ..., "_max": ...}; see
// MarshalJSON, WireJSON and UnmarshalJSON.
type Range struct {
	// Min is the first instant in the range, or nil when the range has no
	// lower bound.
	Min *time.Time
	// Max is the last instant in the range, or nil when the range has no
	// upper bound.
	Max *time.Time
}

// Contains reports whether t lies in the range, both sides inclusive. It
// compares instants, so t and the bounds may be in different locations.
func (r Range) Contains(t time.Time) bool {
	if r.Min != nil && t.Before(*r.Min) {
		return false
	}
	if r.Max != nil && t.After(*r.Max) {
		return false
	}
	return true
}

// String returns the range in the form MarshalJSON writes, or an error note
// if a bound cannot be written.
func (r Range) String() string {
	b, err := r.MarshalJSON()
	if err != nil {
		return "daterange.Range(" + err.Error() + ")"
	}
	return string(b)
}

// MarshalJSON writes {"_min": ..., "_max": ...} with both keys present and
// null for an open side, each bound as the wall clock of its own location
// in WireLayout (milliseconds, no zone). It fails for a year outside
// 0000-9999, which the layout cannot hold.
func (r Range) MarshalJSON() ([]byte, error) {
	return r.appendJSON(make([]byte, 0, 64), false)
}

// WireJSON writes the range the way the service sends it to an app: only the
// keys of closed sides, so for an open range (from, to) the open side is
// absent rather than null. Otherwise it is MarshalJSON.
func (r Range) WireJSON() ([]byte, error) {
	return r.appendJSON(make([]byte, 0, 64), true)
}

func (r Range) appendJSON(b []byte, omitOpen bool) ([]byte, error) {
	b = append(b, '{')
	first := true
	for _, side := range [2]struct {
		key string
		t   *time.Time
	}{{`"_min":`, r.Min}, {`"_max":`, r.Max}} {
		if side.t == nil && omitOpen {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, side.key...)
		if side.t == nil {
			b = append(b, "null"...)
			continue
		}
		if y := side.t.Year(); y < 0 || y > 9999 {
			return nil, fmt.Errorf("daterange: cannot write year %d in %s", y, WireLayout)
		}
		b = append(b, '"')
		b = side.t.AppendFormat(b, WireLayout)
		b = append(b, '"')
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the {_min, _max} object. Either key may be absent or
// null (an open side). The keys are exactly "_min" and "_max", each at most
// once: other keys, keys in another case ("_MIN", which encoding/json would
// match) and duplicate keys are errors. A value is a string in one
// of these forms:
//
//   - timezone-naive ISO 8601 with or without a fraction of a second,
//     "2017-06-13T00:00:00" or "2017-06-13T00:00:00.000", as the service
//     sends it: decoded as that wall clock in UTC. A caller that knows the
//     zone the statement was parsed in re-interprets it, for example with
//     time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(),
//     t.Second(), t.Nanosecond(), loc);
//   - RFC 3339 with a zone ("2017-06-13T00:00:00Z",
//     "2017-06-13T00:00:00.000+02:00"), which lenient apps and services
//     send: decoded at that instant with its offset.
//
// A range whose _min is after its _max is an error. The JSON literal null
// leaves r unchanged, as encoding/json expects.
func (r *Range) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		return nil
	}
	if len(data) == 0 || data[0] != '{' {
		return errors.New(`daterange: want an object {"_min": ..., "_max": ...}`)
	}
	w, err := readWireObject(data)
	if err != nil {
		return err
	}
	var out Range
	if out.Min, err = decodeBound("_min", w.Min); err != nil {
		return err
	}
	if out.Max, err = decodeBound("_max", w.Max); err != nil {
		return err
	}
	if out.Min != nil && out.Max != nil && out.Min.After(*out.Max) {
		return fmt.Errorf("daterange: _min %s is after _max %s",
			out.Min.Format(time.RFC3339Nano), out.Max.Format(time.RFC3339Nano))
	}
	*r = out
	return nil
}

// wireObject holds the raw values of the keys of a {_min, _max} object.
type wireObject struct {
	Min, Max json.RawMessage
}

// readWireObject reads the keys of a {_min, _max} object strictly: the keys
// are exactly "_min" and "_max" (encoding/json would also take "_MIN"), each
// at most once, with a JSON value each; nothing may follow the object.
func readWireObject(data []byte) (wireObject, error) {
	const want = `daterange: want an object {"_min": ..., "_max": ...}`
	var w wireObject
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return w, errors.New(want)
	}
	seen := [2]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return w, fmt.Errorf("%s: %w", want, err)
		}
		key, _ := tok.(string)
		var dst *json.RawMessage
		var i int
		switch key {
		case "_min":
			dst, i = &w.Min, 0
		case "_max":
			dst, i = &w.Max, 1
		default:
			return w, fmt.Errorf("%s: unknown field %q (the keys are exactly _min and _max)", want, key)
		}
		if seen[i] {
			return w, fmt.Errorf("%s: duplicate key %q", want, key)
		}
		seen[i] = true
		if err := dec.Decode(dst); err != nil {
			return w, fmt.Errorf("%s: %s: %w", want, key, err)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return w, errors.New(want)
	}
	if _, err := dec.Token(); err != io.EOF {
		return w, errors.New(`daterange: unexpected data after the {"_min": ..., "_max": ...} object`)
	}
	return w, nil
}

func decodeBound(key string, raw json.RawMessage) (*time.Time, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '"' {
		return nil, fmt.Errorf("daterange: %s: want an ISO 8601 string or null", key)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("daterange: %s: %w", key, err)
	}
	t, err := ParseWireTime(s)
	if err != nil {
		return nil, fmt.Errorf("daterange: %s: %w", key, err)
	}
	return &t, nil
}

// ParseWireTime reads one _min or _max value as UnmarshalJSON does: a
// timezone-naive "2006-01-02T15:04:05[.fff]" as that wall clock in UTC, or an
// RFC 3339 time with a zone at its own offset.
func ParseWireTime(s string) (time.Time, error) {
	if len(s) > maxWireValue {
		return time.Time{}, fmt.Errorf("time value of %d bytes is too long", len(s))
	}
	// time.Parse accepts a fraction of a second after the seconds even
	// when the layout has none.
	if t, err := time.ParseInLocation("2006-01-02T15:04:05", s, time.UTC); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 date-time (want %s, with or without zone)", s, WireLayout)
}
