package conformance

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/pagerules"
)

// Field types and subTypes of a schema.
var (
	schemaTypes = map[string]bool{"id": true, "text": true, "number": true, "date": true, "array[text]": true}
	subTypes    = map[string]bool{
		"url": true, "integer": true, "email": true, "boolean": true, "html": true, "md": true,
		"files": true, "file": true, "date-range": true, "date-time-range": true,
		"single-select": true, "multi-select": true, "workflow": true, "day": true,
	}
	cardinalities = map[string]bool{"many-to-one": true, "many-to-many": true}
)

// checkSchema asks for the schema of the synchronized types and checks it;
// it reports whether a schema to check items against was obtained.
func (r *runner) checkSchema(ctx context.Context) bool {
	types := r.syncTypes()
	a := r.post(ctx, protocol.PathSchema, map[string]any{"types": types, "filter": r.filterValues(), "account": r.account})
	rest := []string{CheckSchemaIDName, CheckSchemaFieldTypes, CheckSchemaRelations, CheckSchemaRelOnce}
	if !a.ok() {
		r.skip(CheckSchemaTypes, "", "no answer (see transport.answers)")
		r.skipAll(rest, "no schema")
		return false
	}
	raw, err := decodeMap(a)
	if err != nil {
		r.fail(CheckSchemaTypes, "", "200 with an object of every requested type", err.Error())
		r.skipAll(rest, "no schema")
		return false
	}
	var ps []problem
	fields := map[string]map[string]map[string]any{}
	for _, t := range types {
		obj, ok := raw[t].(map[string]any)
		if !ok {
			ps = append(ps, problem{fmt.Sprintf("%s: an object of fields", t), describeValue(raw[t], raw[t] != nil)})
			continue
		}
		fields[t] = map[string]map[string]any{}
		for id, f := range obj {
			fm, ok := f.(map[string]any)
			if !ok {
				ps = append(ps, problem{fmt.Sprintf("%s.%s: an object", t, id), describeValue(f, true)})
				continue
			}
			fields[t][id] = fm
		}
	}
	r.verdict(CheckSchemaTypes, "", ps)
	r.schema = map[string]pagerules.Schema{}
	known := map[string]bool{}
	for _, t := range r.config.Types {
		known[t.ID] = true
	}
	for _, t := range slices.Sorted(maps.Keys(fields)) {
		r.verdict(CheckSchemaIDName, t, schemaIDName(fields[t]))
		r.verdict(CheckSchemaFieldTypes, t, schemaFieldTypes(fields[t]))
		r.verdict(CheckSchemaRelations, t, schemaRelations(t, fields, known))
		ts := pagerules.Schema{Fields: map[string]pagerules.Field{}}
		for id, f := range fields[t] {
			if id == protocol.SyncAction {
				ts.Delta = true
				continue
			}
			var fi pagerules.Field
			fi.Type, _ = f["type"].(string)
			fi.SubType, _ = f["subType"].(string)
			if rel, ok := f["relation"].(map[string]any); ok {
				fi.Cardinality, _ = rel["cardinality"].(string)
			}
			ts.Fields[id] = fi
		}
		r.schema[t] = ts
	}
	r.verdict(CheckSchemaRelOnce, "", relationsOnce(fields))
	r.rawSchema = map[string]any{}
	for t := range fields {
		r.rawSchema[t] = raw[t]
	}

	a = r.provoke(ctx, protocol.PathSchema, map[string]any{"types": []string{unknownID}, "filter": r.filterValues(), "account": r.account})
	switch {
	case !a.ok():
		r.skip(CheckSchemaUnknown, "", "no answer (see transport.answers)")
	case a.status >= 400:
		r.pass(CheckSchemaUnknown, "")
	default:
		r.fail(CheckSchemaUnknown, "", "an error status (4xx) for an unknown type", a.describe())
	}
	return len(r.schema) > 0
}

func schemaIDName(fields map[string]map[string]any) []problem {
	var ps []problem
	if id, ok := fields["id"]; !ok {
		ps = append(ps, problem{`a field "id" of type id`, "no field id"})
	} else if id["type"] != "id" {
		ps = append(ps, problem{`a field "id" of type id`, "type " + describeValue(id["type"], id["type"] != nil)})
	}
	if _, ok := fields["name"]; !ok {
		ps = append(ps, problem{`a field "name"`, "no field name"})
	}
	return ps
}

func schemaFieldTypes(fields map[string]map[string]any) []problem {
	var ps []problem
	for _, id := range slices.Sorted(maps.Keys(fields)) {
		f := fields[id]
		where := id + "."
		wantKeys(f, where, &ps, "name:string", "type:string", "description?:string", "readonly?:boolean", "ignore?:boolean")
		if v, ok := f["id"]; ok && v != id {
			ps = append(ps, problem{where + "id: the field's key " + id, describeValue(v, true)})
		}
		if t, ok := f["type"].(string); ok && !schemaTypes[t] {
			ps = append(ps, problem{where + "type: one of id, text, number, date, array[text]", fmt.Sprintf("%q", t)})
		}
		if st, ok := f["subType"]; ok {
			if s, isString := st.(string); !isString || !subTypes[s] {
				ps = append(ps, problem{where + "subType: one of " + strings.Join(slices.Sorted(maps.Keys(subTypes)), ", "), describeValue(st, true)})
			}
		}
	}
	return ps
}

func schemaRelations(t string, all map[string]map[string]map[string]any, known map[string]bool) []problem {
	var ps []problem
	fields := all[t]
	for _, id := range slices.Sorted(maps.Keys(fields)) {
		v, ok := fields[id]["relation"]
		if !ok {
			continue
		}
		where := id + ".relation."
		rel, isObj := v.(map[string]any)
		if !isObj {
			ps = append(ps, problem{where[:len(where)-1] + ": an object", describeValue(v, true)})
			continue
		}
		if c, _ := rel["cardinality"].(string); !cardinalities[c] {
			ps = append(ps, problem{where + "cardinality: many-to-one or many-to-many", describeValue(rel["cardinality"], rel["cardinality"] != nil)})
		}
		wantKeys(rel, where, &ps, "name:string", "targetType:string", "targetName?:string", "targetFieldId?:string")
		target, _ := rel["targetType"].(string)
		if target == "" {
			continue
		}
		if !known[target] {
			ps = append(ps, problem{where + "targetType: a type of the config", fmt.Sprintf("%q", target)})
			continue
		}
		tf, _ := rel["targetFieldId"].(string)
		if tf == "" {
			tf = "id"
		}
		if tfields, ok := all[target]; ok {
			if _, ok := tfields[tf]; !ok {
				ps = append(ps, problem{where + "targetFieldId: a field of " + target, fmt.Sprintf("%q", tf)})
			}
		}
	}
	return ps
}

// relationsOnce finds relations declared on both of their sides: a relation
// from A to B whose target name is the name (or field id) of a relation
// from B back to A. It runs in time linear in the relations (an index of
// the sides by type, target and name), so a hostile schema of many
// relations cannot stall a run.
func relationsOnce(all map[string]map[string]map[string]any) []problem {
	type side struct{ typ, field, name, target, targetName string }
	type key struct{ typ, target, name string }
	var sides []side
	byName := map[key][]int{} // sides by (type, target, name) and (type, target, field id)
	for _, t := range slices.Sorted(maps.Keys(all)) {
		for _, id := range slices.Sorted(maps.Keys(all[t])) {
			rel, ok := all[t][id]["relation"].(map[string]any)
			if !ok {
				continue
			}
			s := side{typ: t, field: id}
			s.name, _ = rel["name"].(string)
			s.target, _ = rel["targetType"].(string)
			s.targetName, _ = rel["targetName"].(string)
			i := len(sides)
			sides = append(sides, s)
			byName[key{t, s.target, id}] = append(byName[key{t, s.target, id}], i)
			if s.name != "" && s.name != id {
				byName[key{t, s.target, s.name}] = append(byName[key{t, s.target, s.name}], i)
			}
		}
	}
	var ps []problem
	reported := map[[2]int]bool{}
	for i, a := range sides {
		if a.targetName == "" {
			continue
		}
		for _, j := range byName[key{a.target, a.typ, a.targetName}] {
			pair := [2]int{min(i, j), max(i, j)}
			if i == j || reported[pair] {
				continue
			}
			reported[pair] = true
			x, y := sides[pair[0]], sides[pair[1]]
			ps = append(ps, problem{"each relation declared on one side only",
				fmt.Sprintf("%s.%s and %s.%s declare the same relation", x.typ, x.field, y.typ, y.field)})
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].got < ps[j].got })
	return ps
}
