package appkit

import (
	"errors"
	"fmt"
	"slices"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// Kind is the type of a schema field.
type Kind string

// The schema field types.
const (
	KindID        Kind = "id"
	KindText      Kind = "text"
	KindNumber    Kind = "number"
	KindDate      Kind = "date" // a date-time, or a day with SubDay: see DateTimeField and DayField
	KindArrayText Kind = "array[text]"
)

// SubType refines a field's type; the comment of each says what the
// workspace makes of it.
type SubType string

// The subtypes the service understands.
const (
	SubURL           SubType = "url"             // text: a link
	SubEmail         SubType = "email"           // text: an e-mail address
	SubInteger       SubType = "integer"         // number: an integer
	SubBoolean       SubType = "boolean"         // text: a yes/no value ("true", "false", ...)
	SubHTML          SubType = "html"            // text: rich text written in HTML
	SubMarkdown      SubType = "md"              // text: rich text written in Markdown
	SubFile          SubType = "file"            // text or array[text]: file URL(s)
	SubFiles         SubType = "files"           // text or array[text]: file URL(s)
	SubDayRange      SubType = "date-range"      // text: JSON {"start","end"}, days
	SubDateTimeRange SubType = "date-time-range" // text: JSON {"start","end"}, date-times
	SubDay           SubType = "day"             // date: a day, YYYY-MM-DD
	SubSingleSelect  SubType = "single-select"   // text: one of Options
	SubMultiSelect   SubType = "multi-select"    // text or array[text]: some of Options
	SubWorkflow      SubType = "workflow"        // text: a workflow state of Options
)

// subTypeKinds lists the field types each subtype may refine.
var subTypeKinds = map[SubType][]Kind{
	SubURL:           {KindText},
	SubEmail:         {KindText},
	SubInteger:       {KindNumber},
	SubBoolean:       {KindText},
	SubHTML:          {KindText},
	SubMarkdown:      {KindText},
	SubFile:          {KindText, KindArrayText},
	SubFiles:         {KindText, KindArrayText},
	SubDayRange:      {KindText},
	SubDateTimeRange: {KindText},
	SubDay:           {KindDate},
	SubSingleSelect:  {KindText},
	SubMultiSelect:   {KindText, KindArrayText},
	SubWorkflow:      {KindText},
}

// Cardinality of a relation.
type Cardinality string

// The relation cardinalities.
const (
	ManyToOne  Cardinality = "many-to-one"
	ManyToMany Cardinality = "many-to-many"
)

// Relation declares that a field holds the id(s) of items of another type.
type Relation struct {
	// Cardinality is ManyToOne (the field holds one id) or ManyToMany (an
	// array of ids).
	Cardinality Cardinality
	// Name is the relation's field name on the source side.
	Name string
	// TargetType is the id of the related type.
	TargetType string
	// TargetName is the relation's field name on the target side; empty
	// means the declaring type's name.
	TargetName string
	// TargetFieldID is the target field matched against this field's value;
	// empty means "id".
	TargetFieldID string
}

// NumberFormat is the display format of a number field.
type NumberFormat struct {
	// Type is Money, Percent or Number.
	Type string
	// Precision is the number of decimals shown, nil for the default.
	Precision *int
	// Unit is shown after the number (a currency, "h", ...).
	Unit string
}

// Field is one field of a map schema (types whose items are [Item]s). Build
// it with [ID], [Text], [Bool], [Number], [Integer], [DateTimeField], [DayField],
// [TextArray] or [Ref]/[Refs] and refine it with the chainable methods; the
// zero Field is not valid. Types declared from a Go struct get their fields
// from the struct instead.
type Field struct {
	// ID is the key of the field's value in items.
	ID string
	// Name is the field's display name.
	Name string
	// Kind is the field's type: id, text, number, date or array[text].
	Kind Kind
	// SubType refines Kind (url, email, integer, md, day, ...).
	SubType SubType
	// Description is shown as help.
	Description string
	// Order is the display order (0: unspecified).
	Order int
	// Readonly: the field's name and type cannot be modified.
	Readonly bool
	// Ignore hides the field in the fields catalog.
	Ignore bool
	// Relation, when set, makes the field hold related ids.
	Relation *Relation
	// Format is the number format.
	Format *NumberFormat
	// Options of a single-select, multi-select or workflow field.
	Options []string
}

// ID declares the identity field "id"; every type has one.
func ID() Field { return Field{ID: "id", Name: "ID", Kind: KindID} }

// Text declares a text field.
func Text(id, name string) Field { return Field{ID: id, Name: name, Kind: KindText} }

// Bool declares a yes/no field (text of subType boolean: values "true" and
// "false"; a Go bool in an Item is sent that way).
func Bool(id, name string) Field {
	return Field{ID: id, Name: name, Kind: KindText, SubType: SubBoolean}
}

// Number declares a decimal number field.
func Number(id, name string) Field { return Field{ID: id, Name: name, Kind: KindNumber} }

// Integer declares an integer number field.
func Integer(id, name string) Field {
	return Field{ID: id, Name: name, Kind: KindNumber, SubType: SubInteger}
}

// DateTimeField declares a date-time field: an instant, sent as ISO 8601
// (a time.Time in an Item is sent with milliseconds).
func DateTimeField(id, name string) Field { return Field{ID: id, Name: name, Kind: KindDate} }

// DayField declares a calendar-day field, without a time of day: a date of
// subType day, sent as YYYY-MM-DD. An Item's value is a [Day], a
// "YYYY-MM-DD" string or a time.Time at midnight; a time.Time with a time
// of day is sent as it is and reported (the test harness fails on it).
func DayField(id, name string) Field {
	return Field{ID: id, Name: name, Kind: KindDate, SubType: SubDay}
}

// TextArray declares an array[text] field.
func TextArray(id, name string) Field { return Field{ID: id, Name: name, Kind: KindArrayText} }

// Ref declares a many-to-one relation: the field holds the id of one item
// of targetType. The relation's name on the target side is the declaring
// type's name unless [Field.Inverse] says otherwise.
func Ref(id, name, targetType string) Field {
	return Field{ID: id, Name: name, Kind: KindText, Relation: &Relation{Cardinality: ManyToOne, Name: name, TargetType: targetType}}
}

// Refs declares a many-to-many relation: the field holds ids of items of
// targetType.
func Refs(id, name, targetType string) Field {
	return Field{ID: id, Name: name, Kind: KindArrayText, Relation: &Relation{Cardinality: ManyToMany, Name: name, TargetType: targetType}}
}

// Inverse names a relation on its target side ("Tasks" for a task's
// project).
func (f Field) Inverse(name string) Field {
	return f.withRelation(func(r *Relation) { r.TargetName = name })
}

// MatchOn makes a relation match its value against another field of the
// target than its id.
func (f Field) MatchOn(targetField string) Field {
	return f.withRelation(func(r *Relation) { r.TargetFieldID = targetField })
}

// withRelation changes a copy of the field's relation (the declared one
// stays as it is); a field without a relation is returned unchanged.
func (f Field) withRelation(change func(*Relation)) Field {
	if f.Relation != nil {
		r := *f.Relation
		change(&r)
		f.Relation = &r
	}
	return f
}

// As sets the subtype.
func (f Field) As(s SubType) Field { f.SubType = s; return f }

// Describe sets the description.
func (f Field) Describe(d string) Field { f.Description = d; return f }

// At sets the display order.
func (f Field) At(order int) Field { f.Order = order; return f }

// ReadOnly marks the field's name and type as not modifiable.
func (f Field) ReadOnly() Field { f.Readonly = true; return f }

// Hidden hides the field in the fields catalog.
func (f Field) Hidden() Field { f.Ignore = true; return f }

// WithOptions sets the options of a select or workflow field.
func (f Field) WithOptions(options ...string) Field { f.Options = options; return f }

// WithFormat sets the number format.
func (f Field) WithFormat(format NumberFormat) Field { f.Format = &format; return f }

// check reports every problem of one field.
func (f *Field) check() []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("field %q: "+format, append([]any{f.ID}, args...)...))
	}
	if f.ID == "" {
		add("the id is empty")
	}
	if f.Name == "" {
		add("the name is empty")
	}
	switch f.Kind {
	case KindID, KindText, KindNumber, KindDate, KindArrayText:
	default:
		add("unknown type %q", f.Kind)
	}
	if f.SubType != "" {
		kinds, ok := subTypeKinds[f.SubType]
		if !ok {
			add("unknown subType %q%s", f.SubType, didYouMean(string(f.SubType), subTypeNames()))
		} else if !slices.Contains(kinds, f.Kind) {
			add("subType %q does not apply to type %q", f.SubType, f.Kind)
		}
	}
	if r := f.Relation; r != nil {
		switch r.Cardinality {
		case ManyToOne, ManyToMany:
		default:
			add("unknown relation cardinality %q", r.Cardinality)
		}
		if r.TargetType == "" || r.Name == "" {
			add("a relation needs a name and a target type")
		}
	}
	return errs
}

func (f *Field) wire() protocol.SchemaField {
	out := protocol.SchemaField{
		ID: f.ID, Name: f.Name, Description: f.Description, Type: string(f.Kind), SubType: string(f.SubType),
		Readonly: f.Readonly, Ignore: f.Ignore, Order: f.Order, Options: f.Options,
	}
	if nf := f.Format; nf != nil {
		out.Format = &protocol.NumberFormat{Type: nf.Type, Precision: nf.Precision, Unit: nf.Unit}
	}
	if r := f.Relation; r != nil {
		tf := r.TargetFieldID
		if tf == "" {
			tf = "id"
		}
		out.Relation = &protocol.Relation{
			Cardinality: string(r.Cardinality), Name: r.Name, TargetType: r.TargetType, TargetName: r.TargetName, TargetFieldID: tf,
		}
	}
	return out
}

// checkFields reports every problem of one type's field list: each bad
// field, ids declared twice, a missing id or name field.
func checkFields(typeID string, fields []Field) []error {
	var errs []error
	add := func(err error) { errs = append(errs, fmt.Errorf("type %q: %w", typeID, err)) }
	seen := make(map[string]bool, len(fields))
	for i := range fields {
		f := &fields[i]
		for _, err := range f.check() {
			add(err)
		}
		if f.ID == "" {
			continue
		}
		if seen[f.ID] {
			add(fmt.Errorf("field %q declared twice", f.ID))
		}
		seen[f.ID] = true
		if f.ID == "id" && f.Kind != KindID {
			add(errors.New(`field "id" must have type id`))
		}
		if f.ID == protocol.SyncAction {
			add(errors.New("__syncAction is reserved: declare Delta on the type and appkit adds it"))
		}
	}
	if !seen["id"] {
		add(errors.New(`has no "id" field`))
	}
	if !seen["name"] {
		add(errors.New(`has no "name" field (the item's title)`))
	}
	return errs
}
