package appkit

import (
	"fmt"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// Kind is the type of a schema field (spec 002, "Schema field description").
type Kind string

// The schema field types.
const (
	KindID        Kind = "id"
	KindText      Kind = "text"
	KindNumber    Kind = "number"
	KindDate      Kind = "date"
	KindArrayText Kind = "array[text]"
)

// SubType refines a field's type (spec 002 and NOTES.md's mapping table).
type SubType string

// The subtypes the service understands.
const (
	SubURL           SubType = "url"
	SubEmail         SubType = "email"
	SubInteger       SubType = "integer"    // number → int
	SubBoolean       SubType = "boolean"    // text → bool
	SubHTML          SubType = "html"       // text → rich text
	SubMarkdown      SubType = "md"         // text → rich text
	SubFile          SubType = "file"       // text or array[text] → files
	SubFiles         SubType = "files"      // array[text] → files
	SubDateRange     SubType = "date-range" // text JSON {"start","end"}
	SubDateTimeRange SubType = "date-time-range"
	SubDay           SubType = "day" // date → YYYY-MM-DD
	SubSingleSelect  SubType = "single-select"
	SubMultiSelect   SubType = "multi-select"
	SubWorkflow      SubType = "workflow"
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
	SubDateRange:     {KindText},
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
	Cardinality Cardinality
	// Name is the relation's field name on the source side.
	Name string
	// TargetType is the id of the related type.
	TargetType string
	// TargetName is the relation's field name on the target side.
	TargetName string
	// TargetFieldID is the target field matched against this field's value;
	// empty means "id".
	TargetFieldID string
}

// Field is one field of a type's schema. Build it with [ID], [Text],
// [Number], [Date], [TextArray] or [Ref]/[Refs] and refine it with the
// chainable methods; the zero Field is not valid.
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
	// Format is the number format (NOTES.md: Money, Percent or Number).
	Format *protocol.NumberFormat
	// Options of a single-select, multi-select or workflow field.
	Options []string
}

// ID declares the identity field; every type needs one with id "id".
func ID(name string) Field { return Field{ID: "id", Name: name, Kind: KindID} }

// Text declares a text field.
func Text(id, name string) Field { return Field{ID: id, Name: name, Kind: KindText} }

// Number declares a decimal number field.
func Number(id, name string) Field { return Field{ID: id, Name: name, Kind: KindNumber} }

// Integer declares an integer number field.
func Integer(id, name string) Field {
	return Field{ID: id, Name: name, Kind: KindNumber, SubType: SubInteger}
}

// Date declares a date-time field (ISO 8601 values).
func Date(id, name string) Field { return Field{ID: id, Name: name, Kind: KindDate} }

// Day declares a date field (YYYY-MM-DD values).
func Day(id, name string) Field { return Field{ID: id, Name: name, Kind: KindDate, SubType: SubDay} }

// TextArray declares an array[text] field.
func TextArray(id, name string) Field { return Field{ID: id, Name: name, Kind: KindArrayText} }

// Ref declares a many-to-one relation: the field holds the id of one item of
// targetType; targetName is the relation's name on the target side.
func Ref(id, name, targetType, targetName string) Field {
	return Field{ID: id, Name: name, Kind: KindText, Relation: &Relation{
		Cardinality: ManyToOne, Name: name, TargetType: targetType, TargetName: targetName, TargetFieldID: "id",
	}}
}

// Refs declares a many-to-many relation: the field holds ids of items of
// targetType.
func Refs(id, name, targetType, targetName string) Field {
	return Field{ID: id, Name: name, Kind: KindArrayText, Relation: &Relation{
		Cardinality: ManyToMany, Name: name, TargetType: targetType, TargetName: targetName, TargetFieldID: "id",
	}}
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
func (f Field) WithFormat(format protocol.NumberFormat) Field { f.Format = &format; return f }

func (f *Field) check() error {
	if f.ID == "" {
		return fmt.Errorf("a field has an empty id")
	}
	if f.Name == "" {
		return fmt.Errorf("field %q has an empty name", f.ID)
	}
	switch f.Kind {
	case KindID, KindText, KindNumber, KindDate, KindArrayText:
	default:
		return fmt.Errorf("field %q: unknown type %q", f.ID, f.Kind)
	}
	if f.SubType != "" {
		kinds, ok := subTypeKinds[f.SubType]
		if !ok {
			return fmt.Errorf("field %q: unknown subType %q", f.ID, f.SubType)
		}
		fits := false
		for _, k := range kinds {
			fits = fits || k == f.Kind
		}
		if !fits {
			return fmt.Errorf("field %q: subType %q does not apply to type %q", f.ID, f.SubType, f.Kind)
		}
	}
	if r := f.Relation; r != nil {
		switch r.Cardinality {
		case ManyToOne, ManyToMany:
		default:
			return fmt.Errorf("field %q: unknown relation cardinality %q", f.ID, r.Cardinality)
		}
		if r.TargetType == "" || r.Name == "" || r.TargetName == "" {
			return fmt.Errorf("field %q: a relation needs name, targetType and targetName", f.ID)
		}
	}
	return nil
}

func (f *Field) wire() protocol.SchemaField {
	out := protocol.SchemaField{
		ID: f.ID, Name: f.Name, Description: f.Description, Type: string(f.Kind), SubType: string(f.SubType),
		Readonly: f.Readonly, Ignore: f.Ignore, Order: f.Order, Format: f.Format, Options: f.Options,
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

// checkFields checks one type's field list: unique ids, an id and a name field.
func checkFields(typeID string, fields []Field) error {
	seen := make(map[string]bool, len(fields))
	for i := range fields {
		f := &fields[i]
		if err := f.check(); err != nil {
			return fmt.Errorf("type %q: %w", typeID, err)
		}
		if seen[f.ID] {
			return fmt.Errorf("type %q: field %q declared twice", typeID, f.ID)
		}
		seen[f.ID] = true
		if f.ID == "id" && f.Kind != KindID {
			return fmt.Errorf("type %q: field \"id\" must have type id", typeID)
		}
	}
	if !seen["id"] {
		return fmt.Errorf("type %q: has no \"id\" field", typeID)
	}
	if !seen["name"] {
		return fmt.Errorf("type %q: has no \"name\" field", typeID)
	}
	return nil
}
