package appkit

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unsafe"
)

// Struct types: the mapping from Go types and `appkit` struct tags to
// schema fields is described in the package doc, section "Struct types".

var (
	timeType = reflect.TypeFor[time.Time]()
	dayType  = reflect.TypeFor[Day]()
)

// structField is one field of a struct item: where it lives and how it
// encodes.
type structField struct {
	Field
	key       []byte // "id":
	goName    string
	offset    uintptr
	omitEmpty bool
	enc       valueEncoder
}

// valueEncoder appends the JSON of the value at p; ok false leaves the key
// out.
type valueEncoder func(dst []byte, p unsafe.Pointer) (out []byte, ok bool)

// structSchema is a struct type's schema and its compiled encoder.
type structSchema struct {
	rtype  reflect.Type
	fields []structField
	idAt   int // index of the id field
	// idString: the id field is a plain string (checked for emptiness
	// without encoding it).
	idString bool
}

// schemaOf derives a type's schema from a struct type; typeName is the
// declaring type's display name (the default inverse relation name).
func schemaOf(t reflect.Type, typeName string) (*structSchema, []error) {
	var errs []error
	s := &structSchema{rtype: t, idAt: -1}
	for i := range t.NumField() {
		sf := t.Field(i)
		f, ok, ferrs := structFieldOf(sf, typeName, len(s.fields)+1)
		errs = append(errs, ferrs...)
		if !ok {
			continue
		}
		if f.ID == "id" {
			s.idAt = len(s.fields)
			s.idString = sf.Type.Kind() == reflect.String
		}
		s.fields = append(s.fields, f)
	}
	return s, errs
}

// structFieldOf derives the schema field of one struct field: its id and
// name, its tag's options, its kind and encoder, its relation. ok is false
// for a field that is left out (unexported, `appkit:"-"`) or in error;
// nextOrder is its order when the tag gives none.
func structFieldOf(sf reflect.StructField, typeName string, nextOrder int) (f structField, ok bool, errs []error) {
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !sf.IsExported() || sf.Anonymous {
		if sf.Anonymous {
			add("struct field %s: embedded structs are not supported; name the field", sf.Name)
		}
		return f, false, errs
	}
	tag, hasTag := sf.Tag.Lookup("appkit")
	if tag == "-" {
		return f, false, nil
	}
	id, opts, _ := strings.Cut(tag, ",")
	if id == "" {
		id = lowerLeading(sf.Name)
	}
	f = structField{goName: sf.Name, offset: sf.Offset}
	f.ID, f.Name = id, words(sf.Name)
	where := fmt.Sprintf("struct field %s (%q)", sf.Name, id)
	if id == "__syncAction" {
		add("%s: __syncAction is reserved: declare Delta on the type and appkit adds it", where)
		return f, false, errs
	}
	ft := sf.Type
	ptr := ft.Kind() == reflect.Pointer
	if ptr {
		ft = ft.Elem()
	}
	var rel relationTag
	if hasTag && opts != "" {
		rel = f.applyTag(opts, where, add)
	}
	if f.Order == 0 {
		f.Order = nextOrder
	}
	enc, kind, sub, err := encoderFor(ft, id == "id")
	if err != nil {
		add("%s: %v", where, err)
		return f, false, errs
	}
	f.Kind = kind
	if f.SubType == "" {
		f.SubType = sub
	} else if sub != "" && sub != f.SubType {
		add("%s: subType %s does not fit a Go %s (which is %s)", where, f.SubType, sf.Type, sub)
	}
	if ft == timeType && f.SubType == SubDay {
		enc = encTimeDay
	}
	if rel.target != "" {
		if f.Relation, err = rel.relation(f.Name, kind, typeName); err != nil {
			add("%s: %v, not %s", where, err, sf.Type)
			return f, false, errs
		}
	} else if rel.inverse != "" || rel.match != "" {
		add("%s: inverse= and match= need ref=", where)
	}
	f.enc = wrapEncoder(enc, ft, ptr, f.omitEmpty)
	f.key = fieldKey(id)
	return f, true, errs
}

// relationTag holds a struct tag's relation options: ref=, inverse= and
// match=.
type relationTag struct{ target, inverse, match string }

// errRelationKind is the mistake of a relation on a field that holds
// neither a string nor a []string.
var errRelationKind = errors.New("a relation needs a string or []string field")

// relation is the field's relation: many-to-one on a string, many-to-many
// on a []string; the inverse's name defaults to the declaring type's.
func (r relationTag) relation(name string, kind Kind, typeName string) (*Relation, error) {
	card := ManyToOne
	switch kind {
	case KindText:
	case KindArrayText:
		card = ManyToMany
	default:
		return nil, errRelationKind
	}
	if r.inverse == "" {
		r.inverse = typeName
	}
	return &Relation{Cardinality: card, Name: name, TargetType: r.target, TargetName: r.inverse, TargetFieldID: r.match}, nil
}

// applyTag sets what a struct tag's options (after the id) say, adding a
// mistake for each option it cannot use, and returns the relation
// options.
func (f *structField) applyTag(opts, where string, add func(format string, args ...any)) relationTag {
	var rel relationTag
	for opt := range strings.SplitSeq(opts, ",") {
		key, val, hasVal := strings.Cut(strings.TrimSpace(opt), "=")
		switch key {
		case "name":
			f.Name = val
		case "desc":
			f.Description = val
		case "options":
			f.Options = strings.Split(val, "|")
		case "ref":
			rel.target = val
		case "inverse":
			rel.inverse = val
		case "match":
			rel.match = val
		case "order":
			n, err := strconv.Atoi(val)
			if err != nil {
				add("%s: order=%q is not a number", where, val)
			}
			f.Order = n
		case "readonly":
			f.Readonly = true
		case "hidden":
			f.Ignore = true
		case "omitempty":
			f.omitEmpty = true
		case "format", "precision", "unit":
			f.applyNumberFormat(key, val, where, add)
		default:
			if _, ok := subTypeKinds[SubType(key)]; ok && !hasVal {
				f.SubType = SubType(key)
				continue
			}
			known := append(append(subTypeNames(), tagOptions...), tagKeys...)
			if hasVal {
				known = tagKeys
			}
			add("%s: unknown tag option %q%s", where, opt, didYouMean(key, known))
		}
	}
	return rel
}

// applyNumberFormat sets one of the number format's tag options: format=,
// precision= or unit=.
func (f *structField) applyNumberFormat(key, val, where string, add func(format string, args ...any)) {
	if f.Format == nil {
		f.Format = &NumberFormat{}
	}
	switch key {
	case "format":
		f.Format.Type = val
	case "unit":
		f.Format.Unit = val
	default:
		n, err := strconv.Atoi(val)
		if err != nil {
			add("%s: precision=%q is not a number", where, val)
		}
		f.Format.Precision = &n
	}
}

// wrapEncoder makes a field's encoder follow a pointer (nil leaves the
// key out) and, with omitempty, leave a zero value out.
func wrapEncoder(enc valueEncoder, ft reflect.Type, ptr, omitEmpty bool) valueEncoder {
	if ptr {
		inner := enc
		enc = func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
			q := *(*unsafe.Pointer)(p)
			if q == nil {
				return dst, false
			}
			return inner(dst, q)
		}
	}
	if omitEmpty {
		zero := zeroTest(ft, ptr)
		inner := enc
		enc = func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
			if zero(p) {
				return dst, false
			}
			return inner(dst, p)
		}
	}
	return enc
}

// schemaFields returns the declared fields of a struct schema.
func (s *structSchema) schemaFields() []Field {
	out := make([]Field, len(s.fields))
	for i := range s.fields {
		out[i] = s.fields[i].Field
	}
	return out
}

// encoderFor returns the encoder of a Go type and the kind it maps to.
func encoderFor(t reflect.Type, isID bool) (valueEncoder, Kind, SubType, error) {
	switch {
	case t == timeType:
		return encTime, KindDate, "", nil
	case t == dayType:
		return encDay, KindDate, SubDay, nil
	}
	switch t.Kind() {
	case reflect.String:
		if isID {
			return encString, KindID, "", nil
		}
		return encString, KindText, "", nil
	case reflect.Bool:
		if isID {
			break
		}
		return encBool, KindText, SubBoolean, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		enc := integerEncoders[t.Kind()]
		if isID {
			return quoted(enc), KindID, "", nil
		}
		return enc, KindNumber, SubInteger, nil
	case reflect.Float32:
		if !isID {
			return encFloat32, KindNumber, "", nil
		}
	case reflect.Float64:
		if !isID {
			return encFloat64, KindNumber, "", nil
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String && !isID {
			return encStrings, KindArrayText, "", nil
		}
	}
	if isID {
		return nil, "", "", fmt.Errorf("the id field must be a string or an integer, not %s", t)
	}
	return nil, "", "", fmt.Errorf("type %s has no schema kind (use string, bool, an integer, a float, time.Time, appkit.Day, []string or a pointer to one)", t)
}

// zeroTest reports whether the value at p is its type's zero value (a nil
// pointer for pointer fields).
func zeroTest(t reflect.Type, ptr bool) func(unsafe.Pointer) bool {
	if ptr {
		return func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
	}
	switch {
	case t == timeType:
		return func(p unsafe.Pointer) bool { return (*time.Time)(p).IsZero() }
	case t == dayType:
		return func(p unsafe.Pointer) bool { return *(*Day)(p) == Day{} }
	}
	switch t.Kind() {
	case reflect.String:
		return func(p unsafe.Pointer) bool { return *(*string)(p) == "" }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return len(*(*[]string)(p)) == 0 }
	}
	size := t.Size()
	return func(p unsafe.Pointer) bool {
		for _, b := range unsafe.Slice((*byte)(p), size) {
			if b != 0 {
				return false
			}
		}
		return true
	}
}

// lowerLeading lowers a name's leading capitals: "DueDate" → "dueDate",
// "URL" → "url", "HTMLBody" → "htmlBody".
func lowerLeading(name string) string {
	r := []rune(name)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	if n > 1 && n < len(r) {
		n-- // the last capital starts the next word
	}
	for i := range n {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

// words spells a Go name as a display name: "DueDate" → "Due date",
// "ID" → "ID", "ProjectURL" → "Project URL", "HTMLBody" → "HTML body".
func words(name string) string {
	r := []rune(name)
	var parts []string
	start := 0
	for i := 1; i < len(r); i++ {
		if !unicode.IsUpper(r[i]) {
			continue
		}
		prev := r[i-1]
		acronymEnd := unicode.IsUpper(prev) && i+1 < len(r) && unicode.IsLower(r[i+1])
		if unicode.IsLower(prev) || unicode.IsDigit(prev) || acronymEnd {
			parts = append(parts, string(r[start:i]))
			start = i
		}
	}
	parts = append(parts, string(r[start:]))
	for i := 1; i < len(parts); i++ {
		if p := parts[i]; strings.ToUpper(p) != p {
			parts[i] = strings.ToLower(p)
		}
	}
	return strings.Join(parts, " ")
}
