package graphql

import (
	"sort"

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
	fields := e.sub(c, tn)
	m := newOmap(len(fields))
	for _, f := range fields {
		if f.name == "__typename" {
			m.set(f.key, tn)
			continue
		}
		m.set(f.key, e.introValue(e.introField(v, f), f, extend2(path, f.key)))
	}
	return m
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
	s := e.sch.schema
	switch x := v.(type) {
	case introSchema:
		switch f.name {
		case "description":
			return descOrNil(s.Description)
		case "types":
			names := make([]string, 0, len(s.Types))
			for n := range s.Types {
				names = append(names, n)
			}
			sort.Strings(names)
			out := make([]any, 0, len(names))
			for _, n := range names {
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
			names := make([]string, 0, len(s.Directives))
			for n := range s.Directives {
				names = append(names, n)
			}
			sort.Strings(names)
			out := make([]any, 0, len(names))
			for _, n := range names {
				out = append(out, s.Directives[n])
			}
			return out
		}
	case *introType:
		if x.wrap != "" {
			switch f.name {
			case "kind":
				return x.wrap
			case "ofType":
				return e.typeRef(x.of)
			}
			return nil
		}
		d := x.def
		switch f.name {
		case "kind":
			return string(d.Kind)
		case "name":
			return d.Name
		case "description":
			return descOrNil(d.Description)
		case "specifiedByURL":
			if sd := d.Directives.ForName("specifiedBy"); sd != nil {
				if a := sd.Arguments.ForName("url"); a != nil {
					return a.Value.Raw
				}
			}
			return nil
		case "isOneOf":
			if d.Kind != ast.InputObject {
				return nil
			}
			return d.Directives.ForName("oneOf") != nil
		case "fields":
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
		case "inputFields":
			if d.Kind != ast.InputObject {
				return nil
			}
			out := []any{}
			for _, fd := range d.Fields {
				out = append(out, &ast.ArgumentDefinition{Name: fd.Name, Description: fd.Description, Type: fd.Type, DefaultValue: fd.DefaultValue, Directives: fd.Directives})
			}
			return out
		case "interfaces":
			if d.Kind != ast.Object && d.Kind != ast.Interface {
				return nil
			}
			out := []any{}
			for _, n := range d.Interfaces {
				out = append(out, &introType{def: s.Types[n]})
			}
			return out
		case "possibleTypes":
			if d.Kind != ast.Interface && d.Kind != ast.Union {
				return nil
			}
			out := []any{}
			for _, p := range s.GetPossibleTypes(d) {
				out = append(out, &introType{def: p})
			}
			return out
		case "enumValues":
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
		case "ofType":
			return nil
		}
	case *ast.FieldDefinition:
		switch f.name {
		case "name":
			return x.Name
		case "description":
			return descOrNil(x.Description)
		case "args":
			out := []any{}
			for _, a := range x.Arguments {
				out = append(out, a)
			}
			return out
		case "type":
			return e.typeRef(x.Type)
		case "isDeprecated":
			dep, _ := deprecation(x.Directives)
			return dep
		case "deprecationReason":
			_, r := deprecation(x.Directives)
			return r
		}
	case *ast.ArgumentDefinition:
		switch f.name {
		case "name":
			return x.Name
		case "description":
			return descOrNil(x.Description)
		case "type":
			return e.typeRef(x.Type)
		case "defaultValue":
			if x.DefaultValue == nil {
				return nil
			}
			return x.DefaultValue.String()
		case "isDeprecated":
			dep, _ := deprecation(x.Directives)
			return dep
		case "deprecationReason":
			_, r := deprecation(x.Directives)
			return r
		}
	case *ast.EnumValueDefinition:
		switch f.name {
		case "name":
			return x.Name
		case "description":
			return descOrNil(x.Description)
		case "isDeprecated":
			dep, _ := deprecation(x.Directives)
			return dep
		case "deprecationReason":
			_, r := deprecation(x.Directives)
			return r
		}
	case *ast.DirectiveDefinition:
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
			out := []any{}
			for _, a := range x.Arguments {
				out = append(out, a)
			}
			return out
		}
	}
	return nil
}
