package appkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/daterange"
)

// Filter is a declared synchronization filter: build one with
// [TextFilter], [NumberFilter], [BoolFilter], [DayFilter],
// [DateRangeFilter], [ListFilter], [MultiDropdownFilter] or
// [HighlightTextFilter], list it in [Sync].Filters, and read its value in
// handlers with its Get method: no filter is ever named by a string twice.
type Filter interface {
	// spec returns the declaration.
	spec() *filterSpec
}

// filterSpec is a filter's declaration.
type filterSpec struct {
	id, title  string
	typ        FieldType
	datalist   DatalistFunc
	requires   []Filter
	optional   bool
	secured    bool
	editorMode string
	def        any
}

// DatalistFunc serves the options of one list or multidropdown filter.
type DatalistFunc func(ctx context.Context, req *DatalistRequest) ([]Option, error)

// FilterOf is a typed filter handle: declared once, listed in
// [Sync].Filters, read with [FilterOf.Get]. T is the Go type of its value.
type FilterOf[T any] struct{ s filterSpec }

func (f *FilterOf[T]) spec() *filterSpec { return &f.s }

// ID returns the filter's id, the key of its value on the wire.
func (f *FilterOf[T]) ID() string { return f.s.id }

// Get returns the filter's value in v and whether it has one (a value that
// is null or "" counts as none).
func (f *FilterOf[T]) Get(v Filters) (T, bool) {
	x, ok := v.values[f.s.id].(T)
	return x, ok
}

// Optional lets the user leave the filter empty; filter/validate refuses a
// filter without a value for every filter that is not optional.
func (f *FilterOf[T]) Optional() *FilterOf[T] { f.s.optional = true; return f }

// Secured keeps a non-owner from changing the filter's value.
func (f *FilterOf[T]) Secured() *FilterOf[T] { f.s.secured = true; return f }

// Default sets the default value, in the filter's wire form (a statement
// such as "last week" for a date range filter); it is checked at start.
func (f *FilterOf[T]) Default(v any) *FilterOf[T] { f.s.def = v; return f }

// Requires names the filters that this filter's datalist depends on
// (datalist_requires): their values arrive in DatalistRequest.DependsOn.
func (f *FilterOf[T]) Requires(others ...Filter) *FilterOf[T] {
	f.s.requires = append(f.s.requires, others...)
	return f
}

func newFilter[T any](id, title string, typ FieldType) *FilterOf[T] {
	return &FilterOf[T]{s: filterSpec{id: id, title: title, typ: typ}}
}

// TextFilter declares a free-text filter.
func TextFilter(id, title string) *FilterOf[string] { return newFilter[string](id, title, FieldText) }

// NumberFilter declares a number filter.
func NumberFilter(id, title string) *FilterOf[float64] {
	return newFilter[float64](id, title, FieldNumber)
}

// BoolFilter declares a yes/no filter.
func BoolFilter(id, title string) *FilterOf[bool] { return newFilter[bool](id, title, FieldBool) }

// DayFilter declares a single-date filter (a datebox).
func DayFilter(id, title string) *FilterOf[Day] { return newFilter[Day](id, title, FieldDatebox) }

// DateRangeFilter declares a date filter: the user writes a statement of
// the date-range grammar ("last 2 weeks", "between 1 March 2024 and
// today"); the service parses it and the handler gets the range.
func DateRangeFilter(id, title string) *FilterOf[daterange.Range] {
	return newFilter[daterange.Range](id, title, FieldDateRange)
}

// ListFilter declares a filter of one value chosen from the options that
// datalist serves (nil: no datalist). Values arrive as strings (numbers in
// their shortest form).
func ListFilter(id, title string, datalist DatalistFunc) *FilterOf[string] {
	f := newFilter[string](id, title, FieldList)
	f.s.datalist = datalist
	return f
}

// MultiDropdownFilter declares a filter of several values chosen from the
// options that datalist serves (nil: no datalist).
func MultiDropdownFilter(id, title string, datalist DatalistFunc) *FilterOf[[]string] {
	f := newFilter[[]string](id, title, FieldMultiDropdown)
	f.s.datalist = datalist
	return f
}

// HighlightTextFilter declares a text filter edited with syntax
// highlighting; editorMode is [EditorJSON] or [EditorSQL].
func HighlightTextFilter(id, title, editorMode string) *FilterOf[string] {
	f := newFilter[string](id, title, FieldHighlightText)
	f.s.editorMode = editorMode
	return f
}

func (f *filterSpec) check() []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("filter %q: "+format, append([]any{f.id}, args...)...))
	}
	if f.id == "" || f.title == "" {
		add("id and title are required")
	}
	if f.typ == FieldHighlightText && f.editorMode != EditorJSON && f.editorMode != EditorSQL {
		add("highlightText needs editorMode json or sql, got %q", f.editorMode)
	}
	if len(f.requires) > 0 && f.datalist == nil {
		add("Requires applies to a filter with a datalist")
	}
	if f.def != nil {
		raw, err := json.Marshal(f.def)
		if err != nil {
			add("default value: %v", err)
		} else if _, err := decodeFilterValue(f.typ, raw); err != nil {
			add("default value %s does not fit type %s: %v", raw, f.typ, err)
		}
	}
	return errs
}

func (f *filterSpec) wire() protocol.Filter {
	out := protocol.Filter{
		ID: f.id, Title: f.title, Type: string(f.typ), Datalist: f.datalist != nil,
		Optional: f.optional, Secured: f.secured, EditorMode: f.editorMode, DefaultValue: f.def,
	}
	for _, r := range f.requires {
		out.DatalistRequires = append(out.DatalistRequires, r.spec().id)
	}
	return out
}

// Filters holds the filter values of a request, decoded and checked against
// the declared filters; read them with each filter's Get method. Values of
// undeclared filters are kept as raw JSON (see [Filters.Raw]).
type Filters struct {
	values map[string]any
	raw    map[string]json.RawMessage
}

// Has reports whether the filter has a value.
func (v Filters) Has(f Filter) bool { _, ok := v.values[f.spec().id]; return ok }

// Any reports whether any declared filter has a value (null, "" and an
// empty list count as none), without a list of the app's filters to keep
// up to date: a handler answering delta pages answers a full page instead
// when the selection is narrowed (see [DataRequest.Since]).
func (v Filters) Any() bool {
	for _, x := range v.values {
		if list, ok := x.([]string); ok && len(list) == 0 {
			continue
		}
		return true
	}
	return false
}

// Raw returns a value as it arrived on the wire, by filter id: for values
// of filters the app does not declare.
func (v Filters) Raw(id string) json.RawMessage { return v.raw[id] }

// decodeFilters checks raw filter values against the declarations.
func decodeFilters(decls map[string]*filterSpec, raw map[string]json.RawMessage) (Filters, error) {
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
		v, err := decodeFilterValue(d.typ, msg)
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
	return isNull(msg) || isEmptyString(msg)
}

// isEmptyString reports an empty JSON string.
func isEmptyString(msg json.RawMessage) bool {
	return string(bytes.TrimSpace(msg)) == `""`
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
		if isEmptyString(msg) { // an untouched form field: no value
			return nil, nil
		}
		if n, ok := jsonOrText(msg, parseFloat); ok {
			return n, nil
		}
		return nil, fmt.Errorf("want a number")
	case FieldBool:
		if b, ok := jsonOrText(msg, strconv.ParseBool); ok {
			return b, nil
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
	case FieldDateRange:
		return decodeRange(msg)
	case FieldList:
		var v any
		if err := json.Unmarshal(msg, &v); err != nil {
			return nil, err
		}
		switch x := v.(type) {
		case string:
			return x, nil
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), nil
		case bool:
			return strconv.FormatBool(x), nil
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

// jsonOrText decodes msg as a JSON value of type T, or as a JSON string
// that parse reads (forms send numbers and booleans as text).
func jsonOrText[T any](msg json.RawMessage, parse func(string) (T, error)) (T, bool) {
	var v T
	if json.Unmarshal(msg, &v) == nil {
		return v, true
	}
	var s string
	if json.Unmarshal(msg, &s) != nil {
		return v, false
	}
	v, err := parse(s)
	return v, err == nil
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

// parseDay reads a datebox value: a date, or a date-time of which the day
// counts.
func parseDay(s string) (Day, error) {
	for _, layout := range []string{time.DateOnly, "2006-01-02T15:04:05.999999999", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return DayOf(t), nil
		}
	}
	return Day{}, fmt.Errorf("want a date as YYYY-MM-DD, got %q", s)
}

// decodeRange reads a date filter's {_min, _max}. It is lenient where the
// daterange package's own decoder is strict: other keys (say, the statement
// the user typed) are ignored, so a service that sends more than the protocol
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
