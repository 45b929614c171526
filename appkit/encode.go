package appkit

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"time"
	"unsafe"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/jsonw"
	"github.com/appkitgo/appkit/internal/pagerules"
)

// Pages are encoded from the schema: appkit knows every field's kind, so
// each value is appended to a pooled buffer in the form the service reads
// (a day as YYYY-MM-DD, a date-time in ISO 8601, a boolean as "true" or
// "false", ids as strings), with no reflection per item and no HTML
// escaping. Struct items go through encoders compiled once per struct type;
// map items are encoded field by field in schema order.

// timeLayout writes date-times in ISO 8601 with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

func appendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

func appendTime(dst []byte, t time.Time, day bool) []byte {
	if t.IsZero() {
		return append(dst, "null"...)
	}
	dst = append(dst, '"')
	if day {
		dst = DayOf(t).appendTo(dst)
	} else {
		dst = appendISOTime(dst, t)
	}
	return append(dst, '"')
}

// appendISOTime appends t as timeLayout does (2006-01-02T15:04:05.000Z07:00),
// without the layout interpretation of time.Format.
func appendISOTime(dst []byte, t time.Time) []byte {
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(dst, timeLayout)
	}
	h, mi, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	two := func(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }
	dst = append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	dst = two(dst, int(mo))
	dst = append(dst, '-')
	dst = two(dst, d)
	dst = append(dst, 'T')
	dst = two(dst, h)
	dst = append(dst, ':')
	dst = two(dst, mi)
	dst = append(dst, ':')
	dst = two(dst, sec)
	dst = append(dst, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	_, off := t.Zone()
	if off == 0 {
		return append(dst, 'Z')
	}
	// Whole minutes, truncated toward zero as the time package does: an
	// offset of -30 s is written +00:00, not -00:00.
	off /= 60
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	dst = append(dst, sign)
	dst = two(dst, off/60)
	dst = append(dst, ':')
	return two(dst, off%60)
}

func appendDay(dst []byte, d Day) []byte {
	if d.IsZero() {
		return append(dst, "null"...)
	}
	dst = append(dst, '"')
	dst = d.appendTo(dst)
	return append(dst, '"')
}

// The encoders of struct fields, by Go type.

func encString(dst []byte, p unsafe.Pointer) ([]byte, bool) {
	return jsonw.AppendString(dst, *(*string)(p)), true
}

func encBool(dst []byte, p unsafe.Pointer) ([]byte, bool) {
	if *(*bool)(p) {
		return append(dst, `"true"`...), true
	}
	return append(dst, `"false"`...), true
}

func encFloat64(dst []byte, p unsafe.Pointer) ([]byte, bool) {
	return jsonw.AppendFloat(dst, *(*float64)(p), 64), true
}

func encFloat32(dst []byte, p unsafe.Pointer) ([]byte, bool) {
	return jsonw.AppendFloat(dst, float64(*(*float32)(p)), 32), true
}

func encTime(dst []byte, p unsafe.Pointer) ([]byte, bool) {
	return appendTime(dst, *(*time.Time)(p), false), true
}

// encTimeDay encodes a time.Time of a day field: midnight (in its own
// location) as its day, any other time as it is, a date-time that the
// page's checks then name.
func encTimeDay(dst []byte, p unsafe.Pointer) ([]byte, bool) {
	t := *(*time.Time)(p)
	return appendTime(dst, t, isMidnight(t)), true
}

// isMidnight reports whether t is the start of its day in its location.
func isMidnight(t time.Time) bool {
	h, m, s := t.Clock()
	return h == 0 && m == 0 && s == 0 && t.Nanosecond() == 0
}

func encDay(dst []byte, p unsafe.Pointer) ([]byte, bool) {
	return appendDay(dst, *(*Day)(p)), true
}

func encStrings(dst []byte, p unsafe.Pointer) ([]byte, bool) {
	ss := *(*[]string)(p)
	if ss == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.AppendString(dst, s)
	}
	return append(dst, ']'), true
}

// encInt and encUint encode an integer field of Go type T.
func encInt[T int | int8 | int16 | int32 | int64](dst []byte, p unsafe.Pointer) ([]byte, bool) {
	return strconv.AppendInt(dst, int64(*(*T)(p)), 10), true
}

func encUint[T uint | uint8 | uint16 | uint32 | uint64 | uintptr](dst []byte, p unsafe.Pointer) ([]byte, bool) {
	return strconv.AppendUint(dst, uint64(*(*T)(p)), 10), true
}

// integerEncoders are the encoders of the integer kinds.
var integerEncoders = map[reflect.Kind]valueEncoder{
	reflect.Int: encInt[int], reflect.Int8: encInt[int8], reflect.Int16: encInt[int16], reflect.Int32: encInt[int32], reflect.Int64: encInt[int64],
	reflect.Uint: encUint[uint], reflect.Uint8: encUint[uint8], reflect.Uint16: encUint[uint16], reflect.Uint32: encUint[uint32], reflect.Uint64: encUint[uint64],
	reflect.Uintptr: encUint[uintptr],
}

// quoted writes a number as a JSON string (numeric ids).
func quoted(enc valueEncoder) valueEncoder {
	return func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
		dst = append(dst, '"')
		dst, _ = enc(dst, p)
		return append(dst, '"'), true
	}
}

// encodeStruct appends the struct at p as an item.
func (s *structSchema) encode(dst []byte, p unsafe.Pointer, delta bool) []byte {
	dst = append(dst, '{')
	first := true
	for i := range s.fields {
		f := &s.fields[i]
		mark := len(dst)
		if !first {
			dst = append(dst, ',')
		}
		dst = append(dst, f.key...)
		var ok bool
		dst, ok = f.enc(dst, unsafe.Add(p, f.offset))
		if !ok {
			dst = dst[:mark]
			continue
		}
		first = false
	}
	if delta {
		if !first {
			dst = append(dst, ',')
		}
		dst = append(dst, `"__syncAction":"SET"`...)
	}
	return append(dst, '}')
}

// mapSchema encodes map items of a declared schema.
type mapSchema struct {
	fields []mapField
	index  map[string]int
}

type mapField struct {
	id    string
	key   []byte // "id":
	kind  Kind
	sub   SubType
	card  Cardinality
	check pagerules.Field
}

func newMapSchema(fields []Field) *mapSchema {
	m := &mapSchema{fields: make([]mapField, len(fields)), index: make(map[string]int, len(fields))}
	for i, f := range fields {
		mf := mapField{id: f.ID, key: fieldKey(f.ID), kind: f.Kind, sub: f.SubType}
		mf.check = pagerules.Field{Type: string(f.Kind), SubType: string(f.SubType), Options: f.Options}
		if f.Relation != nil {
			mf.card = f.Relation.Cardinality
			mf.check.Cardinality = string(f.Relation.Cardinality)
		}
		m.fields[i] = mf
		m.index[f.ID] = i
	}
	return m
}

// fieldKey is a field's `"id":` prefix.
func fieldKey(id string) []byte { return append(jsonw.AppendString(nil, id), ':') }

// pageProblems collects what a page's encoding found: handler mistakes
// that stop the page, and violations to log.
type pageProblems struct {
	typ        string
	items      int // the page's items, once encoded
	mistake    string
	violations []pagerules.Violation
}

func (pp *pageProblems) violate(item, field string, rule pagerules.Rule, detail string) {
	if len(pp.violations) >= 64 {
		return
	}
	pp.violations = append(pp.violations, pagerules.Violation{Type: pp.typ, Index: -1, Item: item, Field: field, Rule: rule, Detail: detail})
}

// encode appends a map item. Keys outside the schema are kept (sorted,
// after the schema's) and reported.
func (m *mapSchema) encode(dst []byte, it map[string]any, delta bool, pp *pageProblems) []byte {
	id, _ := it["id"].(string)
	if _, has := it["id"]; !has {
		pp.violate("", "", pagerules.IDMissing, "the item has no id")
	}
	dst = append(dst, '{')
	first := true
	found := 0
	for i := range m.fields {
		f := &m.fields[i]
		v, ok := it[f.id]
		if !ok {
			continue
		}
		found++
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, f.key...)
		dst = f.encode(dst, v, id, pp)
	}
	if found < len(it) {
		var extra []string
		for k := range it {
			if _, known := m.index[k]; !known {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		for _, k := range extra {
			if k == protocol.SyncAction {
				pp.mistake = "an item carries __syncAction: appkit adds it to delta pages; send removals in Page.Removed"
				continue
			}
			pp.violate(id, k, pagerules.UnknownKey, "the type's schema has no such field")
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, fieldKey(k)...)
			dst = appendAny(dst, it[k])
		}
	}
	if delta {
		if !first {
			dst = append(dst, ',')
		}
		dst = append(dst, `"__syncAction":"SET"`...)
	}
	return append(dst, '}')
}

// encode appends v by the field's kind, converting Go values to the wire
// form; a value that does not fit is reported and sent as it is.
func (f *mapField) encode(dst []byte, v any, item string, pp *pageProblems) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	var out []byte
	ok := false
	switch f.kind {
	case KindID:
		var s string
		if s, ok = idString(v); ok {
			out = jsonw.AppendString(dst, s)
		}
	case KindText:
		out, ok = f.encodeText(dst, v, item, pp)
	case KindNumber:
		out, ok = f.encodeNumber(dst, v, item, pp)
	case KindDate:
		out, ok = f.encodeDate(dst, v, item, pp)
	case KindArrayText:
		out, ok = encodeArrayText(dst, v)
	}
	if ok {
		return out
	}
	return f.encodeMisfit(dst, v, item, pp)
}

// encodeText appends a text value (a relation's id, a string, a boolean
// or a list of a select or file field); ok false when v does not fit.
func (f *mapField) encodeText(dst []byte, v any, item string, pp *pageProblems) ([]byte, bool) {
	if f.card == ManyToOne {
		if s, ok := idString(v); ok {
			return jsonw.AppendString(dst, s), true
		}
		return dst, false
	}
	switch x := v.(type) {
	case string:
		if f.sub == SubSingleSelect && len(f.check.Options) > 0 {
			if rule, detail := pagerules.ValueProblem(f.check, x); rule != "" {
				pp.violate(item, f.id, rule, detail)
			}
		}
		return jsonw.AppendString(dst, x), true
	case bool:
		if f.sub == SubBoolean {
			return strconv.AppendQuote(dst, strconv.FormatBool(x)), true
		}
	case []string:
		if f.sub == SubMultiSelect || f.sub == SubFile || f.sub == SubFiles {
			return encStringsValue(dst, x), true
		}
	}
	return dst, false
}

// encodeNumber appends a Go number (or a json.Number), reporting a
// fraction in an integer field; ok false when v does not fit.
func (f *mapField) encodeNumber(dst []byte, v any, item string, pp *pageProblems) ([]byte, bool) {
	var out []byte
	var whole bool
	switch x := v.(type) {
	case int:
		out, whole = appendInt(dst, int64(x)), true
	case int64:
		out, whole = appendInt(dst, x), true
	case int32:
		out, whole = appendInt(dst, int64(x)), true
	case uint:
		out, whole = strconv.AppendUint(dst, uint64(x), 10), true
	case uint64:
		out, whole = strconv.AppendUint(dst, x, 10), true
	case float64:
		out, whole = jsonw.AppendFloat(dst, x, 64), math.Trunc(x) == x
	case float32:
		out, whole = jsonw.AppendFloat(dst, float64(x), 32), math.Trunc(float64(x)) == float64(x)
	case json.Number:
		if _, err := strconv.ParseFloat(string(x), 64); err == nil {
			out, whole = append(dst, x...), true
		}
	}
	if out == nil {
		return dst, false
	}
	if f.sub == SubInteger && !whole {
		pp.violate(item, f.id, pagerules.ValueShape, "want an integer, got "+pagerules.Describe(v))
	}
	return out, true
}

// encodeDate appends a time.Time, a Day or an ISO date string, reporting a
// time of day in a day field; ok false when v does not fit.
func (f *mapField) encodeDate(dst []byte, v any, item string, pp *pageProblems) ([]byte, bool) {
	switch x := v.(type) {
	case time.Time:
		if f.sub == SubDay && !isMidnight(x) {
			// Sent as it is, a date-time: cutting the time off would
			// hide the handler's mistake.
			pp.violate(item, f.id, pagerules.ValueShape, "want a day, got the time.Time "+x.Format(time.RFC3339Nano)+": a time of day in a day field (send an appkit.Day, or midnight)")
			return appendTime(dst, x, false), true
		}
		return appendTime(dst, x, f.sub == SubDay), true
	case Day:
		return appendDay(dst, x), true
	case string:
		if f.sub == SubDay {
			if _, err := ParseDay(x); err == nil {
				return jsonw.AppendString(dst, x), true
			}
		} else if isISODate(x) {
			return jsonw.AppendString(dst, x), true
		}
	}
	return dst, false
}

// encodeArrayText appends a []string, or a []any of ids; ok false when v
// does not fit.
func encodeArrayText(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case []string:
		return encStringsValue(dst, x), true
	case []any:
		for _, e := range x {
			if _, isStr := idString(e); !isStr {
				return dst, false
			}
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			s, _ := idString(e)
			dst = jsonw.AppendString(dst, s)
		}
		return append(dst, ']'), true
	}
	return dst, false
}

// encodeMisfit reports a value that does not fit the field, in the wire
// words, and appends it as encoding/json would.
func (f *mapField) encodeMisfit(dst []byte, v any, item string, pp *pageProblems) []byte {
	mark := len(dst)
	dst = appendAny(dst, v)
	var decoded any
	_ = json.Unmarshal(dst[mark:], &decoded)
	if rule, detail := pagerules.ValueProblem(f.check, decoded); rule != "" {
		pp.violate(item, f.id, rule, detail)
	} else {
		pp.violate(item, f.id, pagerules.ValueShape, "want a "+string(f.kind)+" value, got a Go "+reflect.TypeOf(v).String())
	}
	return dst
}

// isoLayouts are the ISO 8601 forms a date-time value may take.
var isoLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", time.DateOnly}

// isISODate reports whether s is an ISO 8601 date or date-time.
func isISODate(s string) bool {
	for _, l := range isoLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

func encStringsValue(dst []byte, ss []string) []byte {
	dst, _ = encStrings(dst, unsafe.Pointer(&ss))
	return dst
}

// idString returns an id value as a string: strings as they are, integers
// in decimal.
func idString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return string(x), true
		}
	case float64:
		if math.Trunc(x) == x && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10), true
		}
	}
	return "", false
}

// anyJSON writes a value with no schema: the Go value's own form, with the
// wire conversions that hold for every field (a bool as "true"/"false",
// time.Time in ISO 8601, a Day as YYYY-MM-DD), a json.RawMessage as
// encoding/json writes it, and null for a value encoding/json cannot
// encode.
var anyJSON = jsonw.Any{Ext: appendWireValue, NullOnError: true}

// appendAny appends v with no schema (anyJSON).
func appendAny(dst []byte, v any) []byte { return anyJSON.AppendOrNull(dst, v) }

func appendWireValue(dst []byte, v any, _ jsonw.Any) ([]byte, bool, error) {
	switch x := v.(type) {
	case bool:
		return strconv.AppendQuote(dst, strconv.FormatBool(x)), true, nil
	case time.Time:
		return appendTime(dst, x, false), true, nil
	case Day:
		return appendDay(dst, x), true, nil
	case []string:
		return encStringsValue(dst, x), true, nil
	case json.RawMessage:
		b, err := json.Marshal(x)
		if err != nil {
			return append(dst, "null"...), true, nil
		}
		return append(dst, b...), true, nil
	}
	return dst, false, nil
}

// appendMap appends a map with sorted keys and schema-free values.
func appendMap(dst []byte, m map[string]any) []byte {
	dst, _ = anyJSON.AppendObject(dst, m)
	return dst
}
