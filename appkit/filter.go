package appkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/daterange"
)

// Filter declares a synchronization filter offered to the user.
type Filter struct {
	// ID is the key of the filter's value in requests.
	ID string
	// Title is the filter's label.
	Title string
	// Type is one of text, number, bool, datebox, date, list, multidropdown
	// or highlightText.
	Type FieldType
	// Datalist says the values come from the app's Datalist handler.
	Datalist bool
	// DatalistRequires names the filters whose values the datalist depends
	// on; they arrive in DatalistRequest.DependsOn.
	DatalistRequires []string
	// Optional filters may be left empty; filter/validate refuses a
	// request without a value for a filter that is not optional.
	Optional bool
	// Secured values cannot be changed by a non-owner.
	Secured bool
	// EditorMode is "json" or "sql", required for highlightText.
	EditorMode string
	// Default is the default value, in the filter's wire shape.
	Default any
}

func (f *Filter) check() error {
	if f.ID == "" || f.Title == "" {
		return fmt.Errorf("filter %q: id and title are required", f.ID)
	}
	switch f.Type {
	case FieldText, FieldNumber, FieldBool, FieldDatebox, FieldDate, FieldList, FieldMultiDropdown:
	case FieldHighlightText:
		if f.EditorMode != EditorJSON && f.EditorMode != EditorSQL {
			return fmt.Errorf("filter %q: highlightText needs editorMode json or sql, got %q", f.ID, f.EditorMode)
		}
	default:
		return fmt.Errorf("filter %q: type %q is not a filter type", f.ID, f.Type)
	}
	if (f.Datalist || len(f.DatalistRequires) > 0) && f.Type != FieldList && f.Type != FieldMultiDropdown {
		return fmt.Errorf("filter %q: datalist and datalist_requires apply to list and multidropdown filters only", f.ID)
	}
	if f.Default != nil {
		raw, err := json.Marshal(f.Default)
		if err != nil {
			return fmt.Errorf("filter %q: default value: %v", f.ID, err)
		}
		if _, err := decodeFilterValue(f.Type, raw); err != nil {
			return fmt.Errorf("filter %q: default value %s does not fit type %s: %v", f.ID, raw, f.Type, err)
		}
	}
	return nil
}

func (f *Filter) wire() protocol.Filter {
	return protocol.Filter{
		ID: f.ID, Title: f.Title, Type: string(f.Type), Datalist: f.Datalist, DatalistRequires: f.DatalistRequires,
		Optional: f.Optional, Secured: f.Secured, EditorMode: f.EditorMode, DefaultValue: f.Default,
	}
}

// Filters holds the filter values of a request, decoded and checked against
// the declared filters: handlers read them with typed accessors and never see
// the raw wire values. Values of undeclared filters are kept as raw JSON
// (see [Filters.Raw]).
type Filters struct {
	values map[string]any
	raw    map[string]json.RawMessage
}

// Has reports whether the filter has a (non-null) value.
func (f Filters) Has(id string) bool { _, ok := f.values[id]; return ok }

// String returns a text, list, highlightText or datebox value as a string
// ("" when unset). Numbers are formatted in their shortest form.
func (f Filters) String(id string) string {
	switch v := f.values[id].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case time.Time:
		return v.Format(time.DateOnly)
	}
	return ""
}

// Strings returns a multidropdown value (or a single value as one element).
func (f Filters) Strings(id string) []string {
	switch v := f.values[id].(type) {
	case []string:
		return v
	case nil:
		return nil
	}
	if s := f.String(id); s != "" {
		return []string{s}
	}
	return nil
}

// Number returns a number value.
func (f Filters) Number(id string) (float64, bool) {
	v, ok := f.values[id].(float64)
	return v, ok
}

// Bool returns a bool value (false when unset).
func (f Filters) Bool(id string) bool {
	v, _ := f.values[id].(bool)
	return v
}

// Day returns a datebox value as midnight UTC of that day.
func (f Filters) Day(id string) (time.Time, bool) {
	v, ok := f.values[id].(time.Time)
	return v, ok
}

// Range returns a date filter's value, parsed by the service from the
// date-range grammar into {_min, _max}.
func (f Filters) Range(id string) (daterange.Range, bool) {
	v, ok := f.values[id].(daterange.Range)
	return v, ok
}

// Raw returns the value as it arrived on the wire.
func (f Filters) Raw(id string) json.RawMessage { return f.raw[id] }

// decodeFilters checks raw filter values against the declarations.
func decodeFilters(decls map[string]*Filter, raw map[string]json.RawMessage) (Filters, error) {
	out := Filters{raw: raw}
	if len(raw) == 0 {
		return out, nil
	}
	out.values = make(map[string]any, len(raw))
	for id, msg := range raw {
		d, declared := decls[id]
		if !declared || isUnset(msg) {
			continue
		}
		v, err := decodeFilterValue(d.Type, msg)
		if err != nil {
			return out, BadRequest("filter %q: %v", id, err)
		}
		if v != nil {
			out.values[id] = v
		}
	}
	return out, nil
}

// isUnset reports a value that says "no value": null, or an empty string
// (how forms submit an untouched field), for every filter type.
func isUnset(msg json.RawMessage) bool {
	return isNull(msg) || string(bytes.TrimSpace(msg)) == `""`
}

func isNull(msg json.RawMessage) bool {
	return len(bytes.TrimSpace(msg)) == 0 || string(bytes.TrimSpace(msg)) == "null"
}

func decodeFilterValue(t FieldType, msg json.RawMessage) (any, error) {
	switch t {
	case FieldText, FieldHighlightText:
		var s string
		if err := json.Unmarshal(msg, &s); err != nil {
			return nil, fmt.Errorf("want a string")
		}
		return s, nil
	case FieldNumber:
		var n float64
		if err := json.Unmarshal(msg, &n); err == nil {
			return n, nil
		}
		var s string
		if err := json.Unmarshal(msg, &s); err == nil {
			if s == "" {
				return nil, nil
			}
			if n, err := strconv.ParseFloat(s, 64); err == nil {
				return n, nil
			}
		}
		return nil, fmt.Errorf("want a number")
	case FieldBool:
		var b bool
		if err := json.Unmarshal(msg, &b); err == nil {
			return b, nil
		}
		var s string
		if err := json.Unmarshal(msg, &s); err == nil {
			if b, err := strconv.ParseBool(s); err == nil {
				return b, nil
			}
		}
		return nil, fmt.Errorf("want true or false")
	case FieldDatebox:
		var s string
		if err := json.Unmarshal(msg, &s); err != nil {
			return nil, fmt.Errorf("want a date string")
		}
		if s == "" {
			return nil, nil
		}
		return parseDay(s)
	case FieldDate:
		return decodeRange(msg)
	case FieldList:
		var v any
		if err := json.Unmarshal(msg, &v); err != nil {
			return nil, err
		}
		switch v.(type) {
		case string, float64, bool:
			return v, nil
		}
		return nil, fmt.Errorf("want one value")
	case FieldMultiDropdown:
		var vs []any
		if err := json.Unmarshal(msg, &vs); err != nil {
			var one any
			if json.Unmarshal(msg, &one) == nil {
				if s, ok := one.(string); ok {
					return []string{s}, nil
				}
			}
			return nil, fmt.Errorf("want an array of values")
		}
		out := make([]string, 0, len(vs))
		for _, v := range vs {
			switch v := v.(type) {
			case string:
				out = append(out, v)
			case float64:
				out = append(out, strconv.FormatFloat(v, 'f', -1, 64))
			default:
				return nil, fmt.Errorf("want an array of strings or numbers")
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported filter type %q", t)
}

// parseDay reads a datebox value: a date, or a date-time of which the day
// counts.
func parseDay(s string) (time.Time, error) {
	for _, layout := range []string{time.DateOnly, "2006-01-02T15:04:05.999999999", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			y, m, d := t.Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
		}
	}
	return time.Time{}, fmt.Errorf("want a date as YYYY-MM-DD, got %q", s)
}

// decodeRange reads a date filter's {_min, _max}. It is lenient where the
// daterange package's own decoder is strict: other keys (say, the statement
// the user typed) are ignored, so a service that sends more than the spec
// shows is not refused.
func decodeRange(msg json.RawMessage) (daterange.Range, error) {
	var wire struct {
		Min *string `json:"_min"`
		Max *string `json:"_max"`
	}
	var r daterange.Range
	if err := json.Unmarshal(msg, &wire); err != nil {
		return r, fmt.Errorf("want a date range {_min, _max}")
	}
	for _, side := range []struct {
		s   *string
		dst **time.Time
		key string
	}{{wire.Min, &r.Min, "_min"}, {wire.Max, &r.Max, "_max"}} {
		if side.s == nil || *side.s == "" {
			continue
		}
		t, err := daterange.ParseWireTime(*side.s)
		if err != nil {
			return r, fmt.Errorf("want a date range {_min, _max}: %s: %v", side.key, err)
		}
		*side.dst = &t
	}
	if r.Min != nil && r.Max != nil && r.Max.Before(*r.Min) {
		return r, fmt.Errorf("want a date range {_min, _max}: _min is after _max")
	}
	return r, nil
}
