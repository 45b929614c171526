package syncer

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
)

// kind is how an app field is stored and how its values are converted.
type kind string

const (
	kText          kind = "text"
	kEmail         kind = "email"
	kBool          kind = "bool"
	kMarkdown      kind = "markdown"
	kHTML          kind = "html"
	kDateRange     kind = "date-range"
	kDateTimeRange kind = "date-time-range"
	kSelect        kind = "select"
	kList          kind = "list" // multi-select, files: a JSON array of strings
	kDecimal       kind = "decimal"
	kInt           kind = "int"
	kDateTime      kind = "date-time"
	kDate          kind = "date"
	kRefOne        kind = "ref-one"
	kRefMany       kind = "ref-many"
	kJSON          kind = "json"
)

// prim is the store's primitive type of a kind ("" for relations).
func (k kind) prim() string {
	switch k {
	case kText:
		return store.TText
	case kEmail:
		return store.TEmail
	case kBool:
		return store.TBool
	case kDateRange:
		return store.TDateRange
	case kDateTimeRange:
		return store.TDateTimeRange
	case kList, kJSON:
		return store.TJSON
	case kDecimal:
		return store.TDecimal
	case kInt:
		return store.TInt
	case kDateTime:
		return store.TDateTime
	case kDate:
		return store.TDate
	}
	return ""
}

// mapField is the table of app field types: what the service makes of each
// type and subType.
func mapField(f protocol.SchemaField) kind {
	if f.Relation != nil {
		if f.Relation.Cardinality == "many-to-many" {
			return kRefMany
		}
		return kRefOne
	}
	sub := strings.ToLower(f.SubType)
	switch strings.ToLower(f.Type) {
	case "number":
		if sub == "integer" {
			return kInt
		}
		return kDecimal
	case "date":
		if sub == "day" {
			return kDate
		}
		return kDateTime
	case "array[text]":
		return kList
	case "text", "":
		switch sub {
		case "email":
			return kEmail
		case "boolean":
			return kBool
		case "md":
			return kMarkdown
		case "html":
			return kHTML
		case "date-range":
			return kDateRange
		case "date-time-range":
			return kDateTimeRange
		case "single-select", "workflow":
			return kSelect
		case "multi-select", "file", "files":
			return kList
		}
		return kText
	}
	return kJSON
}

// typeMap is how one app type lives in the store (kept in the sync state).
type typeMap struct {
	// AppType is the app's type id.
	AppType string `json:"app_type"`
	// Store is the store type's name.
	Store string `json:"store"`
	// Fields are the app's fields by app field id.
	Fields map[string]*fieldMap `json:"fields"`
}

// fieldMap is how one app field lives in the store.
type fieldMap struct {
	AppID string `json:"app_id"`
	Name  string `json:"name"`
	Kind  kind   `json:"kind"`
	// Store is the store field's name.
	Store string `json:"store"`
	// Target is the app type of a relation; TargetField the field matched.
	Target      string `json:"target,omitempty"`
	TargetField string `json:"target_field,omitempty"`
	// Enum is the store's enum type of a select.
	Enum string `json:"enum,omitempty"`
}

// UnmarshalJSON reads a mapping saved in a sync state. A select's enum saved
// under the name the host gave enums before (legacyEnumName) is read under
// the name it has now (enumName): store.Open renamed the type.
func (tm *typeMap) UnmarshalJSON(b []byte) error {
	type plain typeMap
	if err := json.Unmarshal(b, (*plain)(tm)); err != nil {
		return err
	}
	space, ok := strings.CutSuffix(tm.Store, "/"+tm.AppType)
	if !ok {
		return nil
	}
	for _, fm := range tm.Fields {
		if fm != nil && fm.Kind == kSelect && fm.Store == storeFieldName(space, tm.AppType, fm.AppID) &&
			fm.Enum == legacyEnumName(space, tm.AppType, fm.AppID) {
			fm.Enum = enumName(space, tm.AppType, fm.AppID)
		}
	}
	return nil
}

// Names in the store: the app's space, then the type, then the field.
func storeTypeName(space, appType string) string { return space + "/" + appType }
func storeFieldName(space, appType, field string) string {
	return space + "." + appType + "/" + field
}
func hiddenFieldName(space, appType, what string) string {
	return space + "." + appType + ".sync/" + what
}

// enumName is the store's enum type of a select field, named as the
// workspace service names it: <field name>_<holder type name>
// (github.issue/state_github/issue).
func enumName(space, appType, field string) string {
	return storeFieldName(space, appType, field) + "_" + storeTypeName(space, appType)
}

// legacyEnumName is the name enum types had before enumName
// (github.issue.state/options). store.Open renames such types, and a
// mapping saved with one reads as enumName's (typeMap.UnmarshalJSON); the
// ids of options are still derived from it (optionID).
func legacyEnumName(space, appType, field string) string {
	return space + "." + appType + "." + field + "/options"
}

// The hidden fields of every synchronized type: the app's id of the entity,
// the run that last delivered it and a hash of the values it was last
// written with (an item written again with the same values is counted
// unchanged, not updated).
const (
	hiddenAppID = "app-id"
	hiddenRun   = "run"
	hiddenHash  = "hash"
)

// idSpace is the namespace of the ids derived from names (select options
// and relation fields).
var idSpace = uuid.MustParse("6f1b7a1e-52a4-4c1b-9a0e-3c7d2f5b8e41")

// optionID is the platform/id of an option of an enum. It is derived from
// the name the host first gave the enum (legacyEnumName, for a name made
// by enumName): the options of an enum renamed from that name keep their
// ids, which the entities' values point at.
func optionID(enum, option string) string {
	b := make([]byte, 0, 5+len(enum)+9+len(option))
	b = append(b, "enum\x00"...)
	if space, t, field, ok := splitEnumName(enum); ok {
		b = append(append(append(append(append(append(b, space...), '.'), t...), '.'), field...), "/options"...)
	} else {
		b = append(b, enum...)
	}
	b = append(append(b, 0), option...)
	return uuid.NewSHA1(idSpace, b).String()
}

// splitEnumName finds the space, type and field of an enum named by
// enumName. The space is a slug (no dot), so it ends at the first dot; the
// type is then the shortest that ends the name after "_<space>/" (only a
// type holding "_<space>/" itself could be another).
func splitEnumName(enum string) (space, appType, field string, ok bool) {
	space, rest, found := strings.Cut(enum, ".")
	if !found || !ValidSpace(space) {
		return "", "", "", false
	}
	for i := range len(rest) {
		if rest[i] != '/' {
			continue
		}
		// rest is <type>/<field>_<space>/<type>.
		t, tail := rest[:i], rest[i+1:]
		n := len(tail) - len(t) - len(space) - 2
		if n < 0 || tail[n] != '_' || tail[n+1:n+1+len(space)] != space || tail[n+1+len(space)] != '/' || tail[n+2+len(space):] != t {
			continue
		}
		return space, t, tail[:n], true
	}
	return "", "", "", false
}

func relationID(space, appType, field string) string {
	return uuid.NewSHA1(idSpace, []byte("relation\x00"+space+"\x00"+appType+"\x00"+field)).String()
}

// schemaPlan is the mapping of the selected types computed from the app's
// schema alone (no store access): what mapSchema then brings the store in
// line with, step by step.
type schemaPlan struct {
	space string
	types []string
	names map[string]string
	// fields are each type's app fields by id, ids sorted.
	ids    map[string][]string
	fields map[string]map[string]protocol.SchemaField
	out    map[string]*typeMap
	warns  []string
}

// planSchema maps the app's fields of the selected types (kinds, relation
// targets, enums) and collects what the host tolerates as warnings.
func planSchema(space string, schema map[string]map[string]protocol.SchemaField, types []string, names map[string]string) *schemaPlan {
	p := &schemaPlan{space: space, types: types, names: names, ids: map[string][]string{},
		fields: map[string]map[string]protocol.SchemaField{}, out: map[string]*typeMap{}}
	selected := map[string]bool{}
	for _, t := range types {
		selected[t] = true
		p.out[t] = &typeMap{AppType: t, Store: storeTypeName(space, t), Fields: map[string]*fieldMap{}}
	}
	for _, t := range types {
		fields := schema[t]
		kept := map[string]protocol.SchemaField{}
		var keptIDs []string
		for _, id := range slices.Sorted(maps.Keys(fields)) {
			sf := fields[id]
			if sf.ID == "" {
				sf.ID = id
			}
			if id == "id" || sf.Type == "id" || id == protocol.SyncAction {
				continue
			}
			k := mapField(sf)
			if (k == kRefOne || k == kRefMany) && !selected[sf.Relation.TargetType] {
				p.warns = append(p.warns, fmt.Sprintf("%s.%s relates to type %q, which is not synchronized: its ids are kept as a JSON value", t, id, sf.Relation.TargetType))
				k = kJSON
			}
			fm := &fieldMap{AppID: id, Name: sf.Name, Kind: k, Store: storeFieldName(space, t, id)}
			if k == kRefOne || k == kRefMany {
				fm.Target = sf.Relation.TargetType
				fm.TargetField = sf.Relation.TargetFieldID
				if fm.TargetField == "" {
					fm.TargetField = "id"
				}
				if tf, ok := schema[fm.Target][fm.TargetField]; fm.TargetField != "id" && (!ok || tf.Type == "id" || mapField(tf).prim() == "") {
					if !ok || tf.Type != "id" {
						p.warns = append(p.warns, fmt.Sprintf("%s.%s matches %s.%s, which is not a plain field of that type: matched on id instead", t, id, fm.Target, fm.TargetField))
					}
					fm.TargetField = "id"
				}
			}
			if k == kSelect {
				fm.Enum = enumName(space, t, id)
			}
			p.out[t].Fields[id] = fm
			kept[id] = sf
			keptIDs = append(keptIDs, id)
		}
		p.fields[t], p.ids[t] = kept, keptIDs
	}
	return p
}

// schemaOp is one schema change of a mapping step (creating a type, adding,
// renaming or retiring a field). Each is idempotent: run again on a store
// where it already happened, it changes nothing, so a mapping that failed
// midway is completed by the next run.
type schemaOp func(tx *store.Tx) error

// ops lists the schema changes that bring the store in line with the plan:
// the types first (so relations can point at any of them), then each
// type's fields, then the fields of the previous run the app no longer
// sends. old is the mapping of the previous run (nil at the first);
// changes receives what the operations changed, in words.
func (p *schemaPlan) ops(old map[string]*typeMap, changes *[]string) []schemaOp {
	var ops []schemaOp
	for _, t := range p.types {
		ops = append(ops, p.createType(t, changes))
	}
	for _, t := range p.types {
		tm := p.out[t]
		prev := map[string]*fieldMap{}
		if o := old[t]; o != nil {
			for id, f := range o.Fields {
				prev[id] = f
			}
		}
		used := map[string]bool{}
		for _, id := range p.ids[t] {
			ops = append(ops, p.ensureField(tm, tm.Fields[id], p.fields[t], prev, used, changes))
		}
		ops = append(ops, retireFields(tm, prev, used, changes))
	}
	return ops
}

// createType creates the store type of app type t with its hidden fields,
// unless it exists.
func (p *schemaPlan) createType(t string, changes *[]string) schemaOp {
	return func(tx *store.Tx) error {
		name := storeTypeName(p.space, t)
		if ty := tx.Catalog().Type(name); ty != nil {
			// Types created before the hash field get it, and before
			// entities were found by their app ids, the app id's index
			// (not changes worth reporting: they are hidden).
			if ty.Field(hiddenFieldName(p.space, t, hiddenHash)) == nil {
				if err := tx.CreateField(store.FieldSpec{Holder: name, Name: hiddenFieldName(p.space, t, hiddenHash), Type: store.TText, Meta: map[string]any{store.MetaHidden: true, store.MetaReadonly: true}}); err != nil {
					return fmt.Errorf("add the hash field to %s: %w", name, err)
				}
			}
			if err := tx.KeyField(name, hiddenFieldName(p.space, t, hiddenAppID)); err != nil {
				return fmt.Errorf("index the app ids of %s: %w", name, err)
			}
			return nil
		}
		spec := store.TypeSpec{Name: name, Meta: map[string]any{"platform/domain?": true, "app/type-id": t, store.MetaLabel: p.names[t]}, Fields: []store.FieldSpec{
			{Name: hiddenFieldName(p.space, t, hiddenAppID), Type: store.TText, Meta: map[string]any{store.MetaHidden: true, store.MetaReadonly: true}},
			{Name: hiddenFieldName(p.space, t, hiddenRun), Type: store.TInt, Meta: map[string]any{store.MetaHidden: true, store.MetaReadonly: true}},
			{Name: hiddenFieldName(p.space, t, hiddenHash), Type: store.TText, Meta: map[string]any{store.MetaHidden: true, store.MetaReadonly: true}},
		}}
		if err := tx.CreateType(spec); err != nil {
			return fmt.Errorf("create type %s: %w", name, err)
		}
		if err := tx.KeyField(name, hiddenFieldName(p.space, t, hiddenAppID)); err != nil {
			return fmt.Errorf("index the app ids of %s: %w", name, err)
		}
		*changes = append(*changes, "created type "+name)
		return nil
	}
}

// ensureField brings one app field into the store: a field the previous
// run knew under another id, with the same name and kind, is renamed (its
// values stay); else it is created, or fixed up, by ensureField.
func (p *schemaPlan) ensureField(tm *typeMap, fm *fieldMap, fields map[string]protocol.SchemaField, prev map[string]*fieldMap, used map[string]bool, changes *[]string) schemaOp {
	return func(tx *store.Tx) error {
		used[fm.Store] = true
		cat := tx.Catalog()
		if _, had := prev[fm.AppID]; !had && cat.Type(tm.Store).Field(fm.Store) == nil {
			for _, pid := range slices.Sorted(maps.Keys(prev)) {
				old := prev[pid]
				if _, still := fields[pid]; still || old.Name != fm.Name || old.Kind != fm.Kind {
					continue
				}
				if cat.Type(tm.Store).Field(old.Store) == nil {
					continue
				}
				if err := tx.RenameField(tm.Store, old.Store, fm.Store); err != nil {
					return fmt.Errorf("rename field %s: %w", old.Store, err)
				}
				_ = tx.SetFieldMeta(tm.Store, fm.Store, "app/field-id", fm.AppID)
				*changes = append(*changes, fmt.Sprintf("renamed field %s to %s (the app renamed %q to %q; values kept)", old.Store, fm.Store, pid, fm.AppID))
				delete(prev, pid)
				break
			}
		}
		return ensureField(tx, p.space, tm, fm, fields[fm.AppID], changes)
	}
}

// retireFields marks the fields of the previous run that the app no longer
// sends as retired (their values stay).
func retireFields(tm *typeMap, prev map[string]*fieldMap, used map[string]bool, changes *[]string) schemaOp {
	return func(tx *store.Tx) error {
		for _, pid := range slices.Sorted(maps.Keys(prev)) {
			p := prev[pid]
			if _, still := tm.Fields[pid]; still || used[p.Store] {
				continue
			}
			st := tx.Catalog().Type(tm.Store)
			if st == nil || st.Field(p.Store) == nil {
				continue
			}
			if retired, _ := st.Field(p.Store).Meta["app/retired?"].(bool); retired {
				continue
			}
			if err := tx.SetFieldMeta(tm.Store, p.Store, "app/retired?", true); err != nil {
				return fmt.Errorf("retire field %s: %w", p.Store, err)
			}
			*changes = append(*changes, fmt.Sprintf("retired field %s (the app no longer sends %q; values kept)", p.Store, pid))
		}
		return nil
	}
}

// ensureField creates the store field of fm when it is missing, or retires
// a field of the same name whose kind changed and creates it afresh.
func ensureField(tx *store.Tx, space string, tm *typeMap, fm *fieldMap, sf protocol.SchemaField, changes *[]string) error {
	ty := tx.Catalog().Type(tm.Store)
	meta := presentation(fm, sf)
	meta["app/field-id"] = fm.AppID
	if existing := ty.Field(fm.Store); existing != nil {
		if fieldFits(tx.Catalog(), existing, fm) {
			if retired, _ := existing.Meta["app/retired?"].(bool); retired {
				if err := tx.SetFieldMeta(tm.Store, fm.Store, "app/retired?", nil); err != nil {
					return err
				}
				*changes = append(*changes, "restored field "+fm.Store)
			}
			// What the app says about the field for display follows it.
			for _, k := range presentationKeys {
				if fmt.Sprint(existing.Meta[k]) != fmt.Sprint(meta[k]) {
					if err := tx.SetFieldMeta(tm.Store, fm.Store, k, meta[k]); err != nil {
						return err
					}
					// GraphQL and the console name a field after its
					// label: a relabel renames it there.
					if old, ok := existing.Meta[k].(string); ok && k == store.MetaLabel && old != "" {
						*changes = append(*changes, fmt.Sprintf("relabelled field %s: %q → %q (GraphQL and the console name the field after its label)", fm.Store, old, meta[k]))
					}
				}
			}
			if fm.Kind == kSelect {
				// The values go to the enum the field has (named
				// otherwise when the store kept an older name).
				if enum := tx.Catalog().Target(existing); enum != nil {
					fm.Enum = enum.Name
				}
				return ensureOptions(tx, fm, sf)
			}
			return nil
		}
		// The kind changed: keep the old values under a retired name.
		retired := fm.Store + "~" + string(kindOfField(tx.Catalog(), existing))
		for i := 2; ty.Field(retired) != nil; i++ {
			retired = fmt.Sprintf("%s~%s-%d", fm.Store, kindOfField(tx.Catalog(), existing), i)
		}
		if err := tx.RenameField(tm.Store, fm.Store, retired); err != nil {
			return fmt.Errorf("retire field %s: %w", fm.Store, err)
		}
		if err := tx.SetFieldMeta(tm.Store, retired, "app/retired?", true); err != nil {
			return err
		}
		*changes = append(*changes, fmt.Sprintf("retired field %s as %s (its type changed to %s; values kept)", fm.Store, retired, fm.Kind))
	}
	switch fm.Kind {
	case kMarkdown, kHTML:
		if err := tx.CreateField(store.FieldSpec{Holder: tm.Store, Name: fm.Store, Type: store.DocumentType, Meta: meta}); err != nil {
			return fmt.Errorf("create field %s: %w", fm.Store, err)
		}
	case kSelect:
		if tx.Catalog().Type(fm.Enum) == nil {
			if err := tx.CreateEnum(fm.Enum); err != nil {
				return fmt.Errorf("create enum %s: %w", fm.Enum, err)
			}
		}
		if err := tx.CreateField(store.FieldSpec{Holder: tm.Store, Name: fm.Store, Type: fm.Enum, Meta: meta}); err != nil {
			return fmt.Errorf("create field %s: %w", fm.Store, err)
		}
		if err := ensureOptions(tx, fm, sf); err != nil {
			return err
		}
	case kRefOne, kRefMany:
		target := storeTypeName(space, fm.Target)
		rel := relationID(space, tm.AppType, fm.AppID)
		meta["platform/relation"] = rel
		meta["platform/collection?"] = fm.Kind == kRefMany
		if err := tx.CreateField(store.FieldSpec{Holder: tm.Store, Name: fm.Store, Type: target, Meta: meta}); err != nil {
			return fmt.Errorf("create field %s: %w", fm.Store, err)
		}
		// The other side, on the target type: a collection.
		label := sf.Relation.TargetName
		if label == "" {
			label = tm.AppType
		}
		tt := tx.Catalog().Type(target)
		pname := storeFieldName(space, fm.Target, slug(label))
		if slug(label) == "" || tt.Field(pname) != nil {
			pname = storeFieldName(space, fm.Target, tm.AppType+"-"+fm.AppID)
		}
		for i := 2; tt.Field(pname) != nil; i++ {
			pname = fmt.Sprintf("%s-%d", storeFieldName(space, fm.Target, tm.AppType+"-"+fm.AppID), i)
		}
		pmeta := map[string]any{store.MetaLabel: label, "platform/relation": rel, "platform/collection?": true, store.MetaReadonly: true}
		if err := tx.CreateField(store.FieldSpec{Holder: target, Name: pname, Type: tm.Store, Meta: pmeta}); err != nil {
			return fmt.Errorf("create field %s: %w", pname, err)
		}
	default:
		if err := tx.CreateField(store.FieldSpec{Holder: tm.Store, Name: fm.Store, Type: fm.Kind.prim(), Meta: meta}); err != nil {
			return fmt.Errorf("create field %s: %w", fm.Store, err)
		}
	}
	*changes = append(*changes, fmt.Sprintf("added field %s (%s)", fm.Store, fm.Kind))
	return nil
}

// presentationKeys are the field meta keys that carry what the app says
// about a field for display.
var presentationKeys = []string{store.MetaLabel, store.MetaDescription, store.MetaTitle, store.MetaHidden, store.MetaOrder, store.MetaFormat, store.MetaReadonly}

// presentation is the display meta of an app field (nil values for what the
// app does not say).
func presentation(fm *fieldMap, sf protocol.SchemaField) map[string]any {
	meta := map[string]any{store.MetaLabel: sf.Name}
	if sf.Description != "" {
		meta[store.MetaDescription] = sf.Description
	}
	if fm.AppID == "name" {
		meta[store.MetaTitle] = true
	}
	if sf.Ignore {
		meta[store.MetaHidden] = true
	}
	if sf.Order != 0 {
		meta[store.MetaOrder] = int64(sf.Order)
	}
	if sf.Format != nil {
		f := map[string]any{"type": sf.Format.Type}
		if sf.Format.Precision != nil {
			f["precision"] = int64(*sf.Format.Precision)
		}
		if sf.Format.Unit != "" {
			f["unit"] = sf.Format.Unit
		}
		meta[store.MetaFormat] = f
	}
	if sf.Readonly {
		meta[store.MetaReadonly] = true
	}
	return meta
}

// ensureOptions creates the declared options of a select's enum.
func ensureOptions(tx *store.Tx, fm *fieldMap, sf protocol.SchemaField) error {
	if len(sf.Options) == 0 {
		return nil
	}
	opts := map[string]string{}
	for _, o := range sf.Options {
		opts[optionID(fm.Enum, o)] = o
	}
	return tx.EnsureEnumOptions(tx.Catalog().Type(fm.Enum), opts)
}

// fieldFits reports whether an existing store field can hold fm's values.
func fieldFits(cat *store.Catalog, f *store.Field, fm *fieldMap) bool {
	k := kindOfField(cat, f)
	if k == fm.Kind || (f.Role == store.RolePrimitive && f.Prim == fm.Kind.prim()) {
		return true
	}
	return (k == kMarkdown && fm.Kind == kHTML) || (k == kHTML && fm.Kind == kMarkdown)
}

// kindOfField is the kind a store field holds.
func kindOfField(cat *store.Catalog, f *store.Field) kind {
	if f.Role == store.RoleRelation {
		switch t := cat.Target(f); {
		case t == nil:
			return kJSON
		case t.Name == store.DocumentType:
			return kMarkdown
		case t.Kind == store.KindEnum:
			return kSelect
		case f.Collection:
			return kRefMany
		default:
			return kRefOne
		}
	}
	for _, k := range []kind{kText, kEmail, kBool, kDateRange, kDateTimeRange, kJSON, kDecimal, kInt, kDateTime, kDate} {
		if k.prim() == f.Prim {
			return k
		}
	}
	return kJSON
}

// EntityIDs finds the entities synchronized into space for items of app
// type appType by their app ids: app id -> platform/id, for the items that
// have an entity. Entities get fresh time-ordered ids when they are created
// (not ids derived from the app's), so this is how a host or a test finds
// the entity of an item.
func EntityIDs(ctx context.Context, st *store.Store, space, appType string, appIDs []string) (map[string]string, error) {
	out := map[string]string{}
	err := st.Write(ctx, func(tx *store.Tx) error {
		ty := tx.Catalog().Type(storeTypeName(space, appType))
		if ty == nil {
			return nil
		}
		appF := ty.Field(hiddenFieldName(space, appType, hiddenAppID))
		if appF == nil {
			return nil
		}
		found, err := tx.MatchByValue(ty, appF, appIDs)
		for a, m := range found {
			out[a] = m.ID
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find the entities of %s in %s: %w", appType, space, err)
	}
	return out, nil
}
