package store

import (
	"encoding/json"
	"strings"
)

// The presentation keys of a field's Meta (MetaLabel of a type's too): how the field is shown, which
// the sync engine writes from an app's schema (and the command API may
// set). The store keeps them as they are; the APIs and the console read
// them through the methods below.
const (
	// MetaLabel is the field's display name (text).
	MetaLabel = "ui/label"
	// MetaDescription explains the field (text).
	MetaDescription = "ui/description"
	// MetaTitle marks the field whose value names an entity (boolean).
	MetaTitle = "ui/title?"
	// MetaHidden marks a field not shown (boolean).
	MetaHidden = "ui/hidden?"
	// MetaOrder places the field among the others, lower first (number).
	MetaOrder = "ui/order"
	// MetaFormat is how a number is written ({type, precision, unit}).
	MetaFormat = "ui/format"
	// MetaReadonly marks a field no API changes (boolean).
	MetaReadonly = "platform/readonly?"
)

// Label is the field's display name, trimmed ("" when it has none).
func (f *Field) Label() string { return metaLabel(f.Meta) }

// Label is the type's display name, trimmed ("" when it has none).
func (t *Type) Label() string { return metaLabel(t.Meta) }

func metaLabel(meta map[string]any) string {
	s, _ := meta[MetaLabel].(string)
	return strings.TrimSpace(s)
}

// Description is the field's explanation ("" when it has none).
func (f *Field) Description() string {
	s, _ := f.Meta[MetaDescription].(string)
	return s
}

// IsTitle reports whether the field's value names its entity.
func (f *Field) IsTitle() bool {
	b, _ := f.Meta[MetaTitle].(bool)
	return b
}

// Hidden reports whether the field is not shown.
func (f *Field) Hidden() bool {
	b, _ := f.Meta[MetaHidden].(bool)
	return b
}

// Order is the field's place among the others, when it has a number
// there: as the engine writes it (an integer) or as the catalog decodes
// it (float64, json.Number).
func (f *Field) Order() (float64, bool) {
	switch n := f.Meta[MetaOrder].(type) {
	case float64:
		return n, true
	case json.Number:
		v, err := n.Float64()
		return v, err == nil
	}
	i, ok := ToInt(f.Meta[MetaOrder])
	return float64(i), ok
}

// TitleField is the type's field whose value names an entity (nil when
// none is marked).
func (t *Type) TitleField() *Field {
	for _, f := range t.Fields {
		if f.IsTitle() {
			return f
		}
	}
	return nil
}
