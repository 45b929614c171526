package store

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Primitive field type names.
const (
	TInt           = "platform/int"
	TDecimal       = "platform/decimal"
	TBool          = "platform/bool"
	TText          = "platform/text"
	TEmail         = "platform/email"
	TEmoji         = "platform/emoji"
	TDate          = "platform/date"
	TDateTime      = "platform/date-time"
	TDateRange     = "platform/date-range"
	TDateTimeRange = "platform/date-time-range"
	TUUID          = "platform/uuid"
	TRank          = "platform/rank"
	TJSON          = "platform/json-value"
)

// DocumentType is the built-in type of rich-text documents; DocumentSecret is
// its field holding the secret used at /api/documents/<secret>.
const (
	DocumentType   = "Collaboration~Documents/Document"
	DocumentSecret = "Collaboration~Documents/secret"
)

// IsPrimitive reports whether t names a primitive field type.
func IsPrimitive(t string) bool {
	switch t {
	case TInt, TDecimal, TBool, TText, TEmail, TEmoji, TDate, TDateTime, TDateRange,
		TDateTimeRange, TUUID, TRank, TJSON:
		return true
	}
	return false
}

// IsRange reports whether t is a range type (stored in two columns).
func IsRange(t string) bool { return t == TDateRange || t == TDateTimeRange }

// Type kinds.
const (
	KindDomain  = "domain"  // a user type (domain or auxiliary)
	KindEnum    = "enum"    // options of a single-select
	KindBuiltin = "builtin" // Collaboration~Documents/Document
)

// Field roles: built-in columns every table has.
const (
	RoleID        = "id"
	RolePublicID  = "public-id"
	RoleCreated   = "creation-date"
	RoleModified  = "modification-date"
	RolePrimitive = "primitive" // a column c_<n> (two for ranges)
	RoleRelation  = "relation"  // entity, collection, single-select or rich-text field
)

// Relation storage kinds.
const (
	StoreColumn  = "column"  // Col on the holder's table holds the target id
	StoreReverse = "reverse" // the partner's column on the target table holds the holder id
	StoreLink    = "link"    // link table Link(a, b); this field's holder side is LinkSide
)

// Catalog is an immutable snapshot of the schema. Never modify a Catalog that
// was returned by the store; schema changes work on a Clone.
type Catalog struct {
	Version  int64   `json:"version"`
	SchemaID string  `json:"schema_id"`
	NextID   int64   `json:"next_id"`
	Types    []*Type `json:"types"`

	byName map[string]*Type
	byID   map[string]*Type
	// frozen is set when the catalog becomes the store's snapshot.
	frozen bool
}

// Frozen reports whether c is a snapshot the store installed, which never
// changes again: what is derived from it may be cached under its pointer.
// The private catalog of a transaction that changed the schema is not
// frozen (until that transaction commits).
func (c *Catalog) Frozen() bool { return c.frozen }

// Type is one type of the catalog.
type Type struct {
	ID     string         `json:"id"`
	Name   string         `json:"name"`
	Kind   string         `json:"kind"`
	Table  string         `json:"table"`
	Meta   map[string]any `json:"meta"`
	Fields []*Field       `json:"fields"`

	byName map[string]*Field
}

// Field is one field of a type.
type Field struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Meta map[string]any `json:"meta"`
	Role string         `json:"role"`
	// Prim is the primitive type for RoleID..RolePrimitive.
	Prim string `json:"prim,omitempty"`
	// Col is the column on the holder's table (primitive or StoreColumn).
	Col string `json:"col,omitempty"`
	// TargetID is the id of the related type for RoleRelation.
	TargetID   string `json:"target_id,omitempty"`
	Collection bool   `json:"collection,omitempty"`
	Relation   string `json:"relation,omitempty"`
	Storage    string `json:"storage,omitempty"`
	// PartnerID is the partner field's id for StoreReverse (whose Col is used).
	PartnerID string `json:"partner_id,omitempty"`
	Link      string `json:"link,omitempty"`
	// LinkSide is "a" or "b": the link column holding this field's holder id.
	LinkSide string `json:"link_side,omitempty"`
	// Key is set on a primitive field made a key of its type by
	// [Tx.KeyField]: unique and indexed.
	Key bool `json:"key,omitempty"`

	// HolderID is the id of the type that holds the field.
	HolderID string `json:"holder_id"`
}

// Type returns the type named name, or nil.
func (c *Catalog) Type(name string) *Type { return c.byName[name] }

// TypeByID returns the type with this id, or nil.
func (c *Catalog) TypeByID(id string) *Type { return c.byID[id] }

// Field returns the field named name, or nil.
func (t *Type) Field(name string) *Field { return t.byName[name] }

// FieldByRole returns the first field with the role, or nil.
func (t *Type) FieldByRole(role string) *Field {
	for _, f := range t.Fields {
		if f.Role == role {
			return f
		}
	}
	return nil
}

// Target returns the related type of a relation field, or nil.
func (c *Catalog) Target(f *Field) *Type {
	if f.Role != RoleRelation {
		return nil
	}
	return c.byID[f.TargetID]
}

// Holder returns the type holding f.
func (c *Catalog) Holder(f *Field) *Type { return c.byID[f.HolderID] }

// Partner returns the other field of f's relation pair, or nil.
func (c *Catalog) Partner(f *Field) *Field {
	if f.Relation == "" {
		return nil
	}
	for _, t := range c.Types {
		for _, g := range t.Fields {
			if g != f && g.Role == RoleRelation && g.Relation == f.Relation {
				return g
			}
		}
	}
	return nil
}

// FieldByID finds a field by id anywhere in the catalog.
func (c *Catalog) FieldByID(id string) *Field {
	for _, t := range c.Types {
		for _, f := range t.Fields {
			if f.ID == id {
				return f
			}
		}
	}
	return nil
}

// TypeName is the field type as the schema shows it: a primitive name or the
// related type's name.
func (c *Catalog) TypeName(f *Field) string {
	if f.Role == RoleRelation {
		if t := c.byID[f.TargetID]; t != nil {
			return t.Name
		}
		return ""
	}
	return f.Prim
}

// IsRichText reports whether f is a rich-text field.
func (c *Catalog) IsRichText(f *Field) bool {
	t := c.Target(f)
	return t != nil && t.Name == DocumentType && f.Role == RoleRelation
}

// IsToOne reports whether f is a relation holding at most one entity.
func (f *Field) IsToOne() bool { return f.Role == RoleRelation && !f.Collection }

// IsCollection reports whether f is a to-many relation.
func (f *Field) IsCollection() bool { return f.Role == RoleRelation && f.Collection }

// BuiltinColumn returns the column of a built-in role.
func BuiltinColumn(role string) string {
	switch role {
	case RoleID:
		return "id"
	case RolePublicID:
		return "public_id"
	case RoleCreated:
		return "created"
	case RoleModified:
		return "modified"
	}
	return ""
}

// Column returns the holder-table column of a primitive or built-in field
// ("" for relations not stored on the holder table). Ranges have two columns:
// see RangeColumns.
func (f *Field) Column() string {
	if c := BuiltinColumn(f.Role); c != "" {
		return c
	}
	if f.Role == RoleRelation && f.Storage != StoreColumn {
		return ""
	}
	return f.Col
}

// RangeColumns returns the start and end columns of a range field.
func (f *Field) RangeColumns() (string, string) { return f.Col + "_s", f.Col + "_e" }

// PrimType is the primitive type of a primitive or built-in field.
func (f *Field) PrimType() string { return f.Prim }

// Clone returns a deep copy for copy-on-write schema changes.
func (c *Catalog) Clone() *Catalog {
	b, err := json.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("store: catalog clone: %v", err))
	}
	out, err := decodeCatalog(b)
	if err != nil {
		panic(fmt.Sprintf("store: catalog clone: %v", err))
	}
	return out
}

func decodeCatalog(b []byte) (*Catalog, error) {
	var c Catalog
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("decode catalog: %w", err)
	}
	c.reindex()
	return &c, nil
}

func (c *Catalog) reindex() {
	c.byName = make(map[string]*Type, len(c.Types))
	c.byID = make(map[string]*Type, len(c.Types))
	for _, t := range c.Types {
		c.byName[t.Name] = t
		c.byID[t.ID] = t
		t.byName = make(map[string]*Field, len(t.Fields))
		for _, f := range t.Fields {
			f.HolderID = t.ID
			if f.Meta == nil {
				f.Meta = map[string]any{}
			}
			t.byName[f.Name] = f
		}
		if t.Meta == nil {
			t.Meta = map[string]any{}
		}
	}
}

func (c *Catalog) newIdent(prefix string) string {
	c.NextID++
	return fmt.Sprintf("%s_%d", prefix, c.NextID)
}

// SchemaJSON renders the catalog as the spec's Schema object.
func (c *Catalog) SchemaJSON() map[string]any {
	types := make([]any, 0, len(c.Types))
	for _, t := range c.Types {
		fields := make([]any, 0, len(t.Fields))
		for _, f := range t.Fields {
			fields = append(fields, map[string]any{
				"platform/name": f.Name,
				"platform/type": c.TypeName(f),
				"platform/id":   f.ID,
				"platform/meta": copyMeta(f.Meta),
			})
		}
		meta := copyMeta(t.Meta)
		meta["platform/primitive?"] = false
		if _, ok := meta["platform/domain?"]; !ok {
			meta["platform/domain?"] = false
		}
		if t.Kind == KindEnum {
			meta["platform/enum?"] = true
		}
		types = append(types, map[string]any{
			"platform/name":   t.Name,
			"platform/id":     t.ID,
			"platform/fields": fields,
			"platform/meta":   meta,
		})
	}
	v := fmt.Sprint(c.Version)
	return map[string]any{
		"platform/id":    c.SchemaID,
		"platform/types": types,
		"platform/meta": map[string]any{
			"platform/version":      v,
			"platform/rel-version":  v,
			"platform/maintenance?": false,
			"maintenance?":          false,
		},
	}
}

func copyMeta(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TypeNames returns the sorted names of all types (for error messages and tests).
func (c *Catalog) TypeNames() []string {
	out := make([]string, 0, len(c.Types))
	for _, t := range c.Types {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

// maxName bounds the length of a type or field name.
const maxName = 200

// validName checks a type or field name: "<app>/<name>", printable, bounded.
func validName(s string) bool { return validNameOf(s, maxName) }

// validEnumName checks an enum type's name: as validName, but up to
// 2*maxName+1 long, for the workspace service names a select's enum type
// <field name>_<holder type name>.
func validEnumName(s string) bool { return validNameOf(s, 2*maxName+1) }

func validNameOf(s string, max int) bool {
	if len(s) < 3 || len(s) > max || !strings.Contains(s, "/") || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func metaBool(m map[string]any, k string) bool {
	b, _ := m[k].(bool)
	return b
}
