package graphql

import (
	"maps"
	"slices"

	"github.com/vektah/gqlparser/v2/ast"
)

// Introspection: __schema, __type(name) and the __Type, __Field,
// __InputValue, __EnumValue and __Directive objects, answered from the
// space's generated schema.

// introType is a __Type: a named definition, or a LIST / NON_NULL wrapper.
type introType struct {
	def  *ast.Definition
	wrap string // "LIST" or "NON_NULL"
	of   *ast.Type
}

type introSchema struct{}

func (e *executor) introspect(c *cfield, path []any) any {
	if c.name == "__schema" {
		return e.introObject(introSchema{}, c, path)
	}
	name, _ := value(c.first().Arguments.ForName("name").Value, e.vars).(string)
	def := e.sch.schema.Types[name]
	if def == nil {
		return nil
	}
	return e.introObject(&introType{def: def}, c, path)
}

func (e *executor) typeRef(t *ast.Type) *introType {
	if t == nil {
		return nil
	}
	if t.NonNull {
		inner := *t
		inner.NonNull = false
		return &introType{wrap: "NON_NULL", of: &inner}
	}
	if t.Elem != nil {
		return &introType{wrap: "LIST", of: t.Elem}
	}
	return &introType{def: e.sch.schema.Types[t.NamedType]}
}

func introTypeName(v any) string {
	switch v.(type) {
	case introSchema:
		return "__Schema"
	case *introType:
		return "__Type"
	case *ast.FieldDefinition:
		return "__Field"
	case *ast.ArgumentDefinition:
		return "__InputValue"
	case *ast.EnumValueDefinition:
		return "__EnumValue"
	case *ast.DirectiveDefinition:
		return "__Directive"
	}
	return ""
}

// introObject writes one introspection object with the selected fields.
func (e *executor) introObject(v any, c *cfield, path []any) any {
	if v == nil {
		return nil
	}
	if t, ok := v.(*introType); ok && t == nil {
		return nil
	}
	tn := introTypeName(v)
	return objectOf(e.sub(c, tn), tn, func(f *cfield) any {
		return e.introValue(e.introField(v, f), f, extend2(path, f.key))
	})
}

// introValue writes a value of an introspection field: objects and lists
// of them through their selections, scalars as they are.
func (e *executor) introValue(v any, f *cfield, path []any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = e.introValue(it, f, append(path, i))
		}
		return out
	case introSchema, *ast.FieldDefinition, *ast.ArgumentDefinition, *ast.EnumValueDefinition, *ast.DirectiveDefinition:
		return e.introObject(x, f, path)
	case *introType:
		if x == nil || (x.def == nil && x.wrap == "") {
			return nil
		}
		return e.introObject(x, f, path)
	}
	return v
}

func (e *executor) includeDeprecated(f *cfield) bool {
	if a := f.first().Arguments.ForName("includeDeprecated"); a != nil {
		b, _ := value(a.Value, e.vars).(bool)
		return b
	}
	return false
}

func deprecation(ds ast.DirectiveList) (bool, any) {
	d := ds.ForName("deprecated")
	if d == nil {
		return false, nil
	}
	reason := any("No longer supported")
	if a := d.Arguments.ForName("reason"); a != nil {
		reason = a.Value.Raw
	}
	return true, reason
}

func descOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// introField resolves one field of an introspection object.
func (e *executor) introField(v any, f *cfield) any {
	switch x := v.(type) {
	case introSchema:
		return e.introSchemaField(f)
	case *introType:
		if x.wrap != "" {
			return e.introWrapperField(x, f)
		}
		return e.introTypeField(x.def, f)
	case *ast.FieldDefinition:
		return e.introFieldDefField(x, f)
	case *ast.ArgumentDefinition:
		return e.introArgumentField(x, f)
	case *ast.EnumValueDefinition: // __EnumValue
		return introMember(f, x.Name, x.Description, x.Directives)
	case *ast.DirectiveDefinition:
		return introDirectiveField(x, f)
	}
	return nil
}

// introSchemaField resolves a field of __Schema.
func (e *executor) introSchemaField(f *cfield) any {
	s := e.sch.schema
	switch f.name {
	case "description":
		return descOrNil(s.Description)
	case "types":
		out := make([]any, 0, len(s.Types))
		for _, n := range slices.Sorted(maps.Keys(s.Types)) {
			out = append(out, &introType{def: s.Types[n]})
		}
		return out
	case "queryType":
		return &introType{def: s.Query}
	case "mutationType":
		if s.Mutation == nil {
			return nil
		}
		return &introType{def: s.Mutation}
	case "subscriptionType":
		return nil
	case "directives":
		out := make([]any, 0, len(s.Directives))
		for _, n := range slices.Sorted(maps.Keys(s.Directives)) {
			out = append(out, s.Directives[n])
		}
		return out
	}
	return nil
}

// introWrapperField resolves a field of a __Type that wraps another
// (LIST or NON_NULL).
func (e *executor) introWrapperField(x *introType, f *cfield) any {
	switch f.name {
	case "kind":
		return x.wrap
	case "ofType":
		return e.typeRef(x.of)
	}
	return nil
}

// introTypeField resolves a field of a named __Type.
func (e *executor) introTypeField(d *ast.Definition, f *cfield) any {
	switch f.name {
	case "kind":
		return string(d.Kind)
	case "name":
		return d.Name
	case "description":
		return descOrNil(d.Description)
	case "specifiedByURL":
		return introSpecifiedByURL(d)
	case "isOneOf":
		if d.Kind != ast.InputObject {
			return nil
		}
		return d.Directives.ForName("oneOf") != nil
	case "fields":
		return e.introTypeFields(d, f)
	case "inputFields":
		return introInputFields(d)
	case "interfaces":
		return e.introInterfaces(d)
	case "possibleTypes":
		return e.introPossibleTypes(d)
	case "enumValues":
		return e.introEnumValues(d, f)
	case "ofType":
		return nil
	}
	return nil
}

// introSpecifiedByURL is the url of a scalar's @specifiedBy, or nil.
func introSpecifiedByURL(d *ast.Definition) any {
	if sd := d.Directives.ForName("specifiedBy"); sd != nil {
		if a := sd.Arguments.ForName("url"); a != nil {
			return a.Value.Raw
		}
	}
	return nil
}

// introTypeFields lists the fields of an object or interface (the
// deprecated ones when f asks for them), nil for other kinds.
func (e *executor) introTypeFields(d *ast.Definition, f *cfield) any {
	if d.Kind != ast.Object && d.Kind != ast.Interface {
		return nil
	}
	all := e.includeDeprecated(f)
	out := []any{}
	for _, fd := range d.Fields {
		if len(fd.Name) > 1 && fd.Name[:2] == "__" {
			continue
		}
		if dep, _ := deprecation(fd.Directives); dep && !all {
			continue
		}
		out = append(out, fd)
	}
	return out
}

// introInputFields lists the fields of an input object, nil for other
// kinds.
func introInputFields(d *ast.Definition) any {
	if d.Kind != ast.InputObject {
		return nil
	}
	out := []any{}
	for _, fd := range d.Fields {
		out = append(out, &ast.ArgumentDefinition{Name: fd.Name, Description: fd.Description, Type: fd.Type, DefaultValue: fd.DefaultValue, Directives: fd.Directives})
	}
	return out
}

// introInterfaces lists the interfaces an object or interface implements,
// nil for other kinds.
func (e *executor) introInterfaces(d *ast.Definition) any {
	if d.Kind != ast.Object && d.Kind != ast.Interface {
		return nil
	}
	out := []any{}
	for _, n := range d.Interfaces {
		out = append(out, &introType{def: e.sch.schema.Types[n]})
	}
	return out
}

// introPossibleTypes lists the types of an interface or union, nil for
// other kinds.
func (e *executor) introPossibleTypes(d *ast.Definition) any {
	if d.Kind != ast.Interface && d.Kind != ast.Union {
		return nil
	}
	out := []any{}
	for _, p := range e.sch.schema.GetPossibleTypes(d) {
		out = append(out, &introType{def: p})
	}
	return out
}

// introEnumValues lists the values of an enum (the deprecated ones when f
// asks for them), nil for other kinds.
func (e *executor) introEnumValues(d *ast.Definition, f *cfield) any {
	if d.Kind != ast.Enum {
		return nil
	}
	all := e.includeDeprecated(f)
	out := []any{}
	for _, ev := range d.EnumValues {
		if dep, _ := deprecation(ev.Directives); dep && !all {
			continue
		}
		out = append(out, ev)
	}
	return out
}

// introMember resolves the fields that __Field, __InputValue and
// __EnumValue share: name, description, isDeprecated and
// deprecationReason (from ds); nil for other fields.
func introMember(f *cfield, name, desc string, ds ast.DirectiveList) any {
	switch f.name {
	case "name":
		return name
	case "description":
		return descOrNil(desc)
	case "isDeprecated":
		dep, _ := deprecation(ds)
		return dep
	case "deprecationReason":
		_, r := deprecation(ds)
		return r
	}
	return nil
}

// introArgs lists the arguments of a field or directive.
func introArgs(args ast.ArgumentDefinitionList) []any {
	out := []any{}
	for _, a := range args {
		out = append(out, a)
	}
	return out
}

// introFieldDefField resolves a field of __Field.
func (e *executor) introFieldDefField(x *ast.FieldDefinition, f *cfield) any {
	switch f.name {
	case "args":
		return introArgs(x.Arguments)
	case "type":
		return e.typeRef(x.Type)
	}
	return introMember(f, x.Name, x.Description, x.Directives)
}

// introArgumentField resolves a field of __InputValue.
func (e *executor) introArgumentField(x *ast.ArgumentDefinition, f *cfield) any {
	switch f.name {
	case "type":
		return e.typeRef(x.Type)
	case "defaultValue":
		if x.DefaultValue == nil {
			return nil
		}
		return x.DefaultValue.String()
	}
	return introMember(f, x.Name, x.Description, x.Directives)
}

// introDirectiveField resolves a field of __Directive.
func introDirectiveField(x *ast.DirectiveDefinition, f *cfield) any {
	switch f.name {
	case "name":
		return x.Name
	case "description":
		return descOrNil(x.Description)
	case "isRepeatable":
		return x.IsRepeatable
	case "locations":
		out := make([]any, 0, len(x.Locations))
		for _, l := range x.Locations {
			out = append(out, string(l))
		}
		return out
	case "args":
		return introArgs(x.Arguments)
	}
	return nil
}
