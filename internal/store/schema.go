package store

import (
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// TypeSpec is the argument of schema.type/create.
type TypeSpec struct {
	Name   string
	ID     string
	Meta   map[string]any
	Fields []FieldSpec
}

// FieldSpec is the argument of schema.field/create (Holder names the type).
type FieldSpec struct {
	Holder string
	Name   string
	Type   string
	ID     string
	Meta   map[string]any
}

// builtin role flags in field meta.
var roleFlags = []struct{ flag, role, name, prim string }{
	{"platform/id?", RoleID, "platform/id", TUUID},
	{"platform/public-id?", RolePublicID, "platform/public-id", TText},
	{"platform/creation-date?", RoleCreated, "platform/creation-date", TDateTime},
	{"platform/modification-date?", RoleModified, "platform/modification-date", TDateTime},
}

func builtinFields(typeName string, dates bool) []*Field {
	var out []*Field
	for i, r := range roleFlags {
		if !dates && i >= 2 {
			break
		}
		meta := map[string]any{r.flag: true, MetaReadonly: true, "platform/secured?": false}
		if r.role == RoleCreated || r.role == RoleModified {
			meta["platform/default-value"] = "$now"
		}
		if r.role == RoleModified {
			meta["platform/required?"] = true
		}
		out = append(out, &Field{ID: uuid.NewString(), Name: r.name, Role: r.role, Prim: r.prim, Meta: meta})
	}
	return out
}

func newID(id string) (string, error) {
	if id == "" {
		return uuid.NewString(), nil
	}
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", Errorf(NameInvalidSchema, map[string]any{"id": id}, "platform/id %q is not a uuid", id)
	}
	return u.String(), nil
}

// addType registers t (fields with roles already set for built-ins) and creates its table.
func (t *Tx) addType(ty *Type) error {
	d := t.s.dialect
	ty.Table = t.cat.newIdent("t")
	fields := ty.Fields
	ty.Fields = nil
	t.cat.Types = append(t.cat.Types, ty)
	t.cat.reindex()
	text := SQLType(d, TText)
	if err := t.ddl(fmt.Sprintf("CREATE TABLE %s (id %s PRIMARY KEY, public_id %s, created BIGINT NOT NULL, modified BIGINT NOT NULL)", ty.Table, text, text)); err != nil {
		return err
	}
	if err := t.ddl(fmt.Sprintf("CREATE INDEX %s_order ON %s (created, id)", ty.Table, ty.Table)); err != nil {
		return err
	}
	if _, err := t.tx.ExecContext(t.ctx, d.Rebind("INSERT INTO catalog_counters (type_id, next) VALUES (?, 0)"), ty.ID); err != nil {
		return fmt.Errorf("store: counter: %w", err)
	}
	for _, f := range fields {
		if f.Role != RolePrimitive && f.Role != RoleRelation && f.Role != "" {
			f.HolderID = ty.ID
			ty.Fields = append(ty.Fields, f)
			t.cat.reindex()
			continue
		}
		if f.Role == RolePrimitive {
			if err := t.addPrimitive(ty, f); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *Tx) addPrimitive(ty *Type, f *Field) error {
	need := 1
	if IsRange(f.Prim) {
		need = 2
	}
	if err := t.roomForColumns(ty, f.Name, need); err != nil {
		return err
	}
	f.Col = t.cat.newIdent("c")
	f.HolderID = ty.ID
	ty.Fields = append(ty.Fields, f)
	t.cat.reindex()
	typ := SQLType(t.s.dialect, f.Prim)
	if IsRange(f.Prim) {
		s, e := f.RangeColumns()
		if err := t.ddl(fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", ty.Table, s, typ)); err != nil {
			return err
		}
		return t.ddl(fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", ty.Table, e, typ))
	}
	return t.ddl(fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", ty.Table, f.Col, typ))
}

// CreateType runs schema.type/create.
func (t *Tx) CreateType(spec TypeSpec) error {
	if err := t.mutable(); err != nil {
		return err
	}
	if !validName(spec.Name) {
		return Errorf(NameInvalidName, map[string]any{"name": spec.Name}, "invalid type name %q (want <app>/<name>)", spec.Name)
	}
	if t.cat.Type(spec.Name) != nil {
		return Errorf(NameTypeExists, map[string]any{"name": spec.Name}, "type %s already exists", spec.Name)
	}
	id, err := newID(spec.ID)
	if err != nil {
		return err
	}
	if t.cat.TypeByID(id) != nil {
		return Errorf(NameTypeExists, map[string]any{"id": id}, "a type with id %s already exists", id)
	}
	ty := &Type{ID: id, Name: spec.Name, Kind: KindDomain, Meta: copyMeta(spec.Meta)}
	// Built-in roles first: from the spec's fields when sent, else added.
	have := map[string]bool{}
	var rest []FieldSpec
	for _, fs := range spec.Fields {
		role := ""
		for _, r := range roleFlags {
			if metaBool(fs.Meta, r.flag) || (fs.Name == r.name && fs.Type == r.prim) {
				role = r.role
			}
		}
		if role == "" || have[role] {
			rest = append(rest, fs)
			continue
		}
		have[role] = true
		fid, err := newID(fs.ID)
		if err != nil {
			return err
		}
		if !validName(fs.Name) {
			return Errorf(NameInvalidName, map[string]any{"name": fs.Name}, "invalid field name %q", fs.Name)
		}
		prim := fs.Type
		for _, r := range roleFlags {
			if r.role == role {
				prim = r.prim
			}
		}
		ty.Fields = append(ty.Fields, &Field{ID: fid, Name: fs.Name, Role: role, Prim: prim, Meta: copyMeta(fs.Meta)})
	}
	for _, f := range builtinFields(spec.Name, true) {
		if !have[f.Role] {
			ty.Fields = append(ty.Fields, f)
		}
	}
	if err := t.addType(ty); err != nil {
		return err
	}
	for _, fs := range rest {
		fs.Holder = spec.Name
		if err := t.CreateField(fs); err != nil {
			return err
		}
	}
	return nil
}

// CreateEnum runs schema.enum/create: an enum type whose entities are the
// options of a single-select (fields enum/name, platform/rank).
func (t *Tx) CreateEnum(name string) error {
	if err := t.mutable(); err != nil {
		return err
	}
	if !validEnumName(name) {
		return Errorf(NameInvalidName, map[string]any{"name": name}, "invalid enum name %q", name)
	}
	if t.cat.Type(name) != nil {
		return Errorf(NameTypeExists, map[string]any{"name": name}, "type %s already exists", name)
	}
	ty := &Type{ID: uuid.NewString(), Name: name, Kind: KindEnum, Meta: map[string]any{"platform/enum?": true}}
	ty.Fields = builtinFields(name, false)
	ty.Fields = append(ty.Fields,
		&Field{ID: uuid.NewString(), Name: "enum/name", Role: RolePrimitive, Prim: TText, Meta: map[string]any{MetaTitle: true}},
		&Field{ID: uuid.NewString(), Name: "platform/rank", Role: RolePrimitive, Prim: TRank, Meta: map[string]any{}},
	)
	return t.addType(ty)
}

// CreateField runs schema.field/create.
func (t *Tx) CreateField(fs FieldSpec) error {
	holder, f, err := t.newField(fs)
	if err != nil {
		return err
	}
	if IsPrimitive(fs.Type) {
		f.Role = RolePrimitive
		f.Prim = fs.Type
		if dv, ok := f.Meta["platform/default-value"]; ok && dv != "$now" {
			if err := checkValue(f, dv); err != nil {
				return err
			}
		}
		return t.addPrimitive(holder, f)
	}
	target := t.cat.Type(fs.Type)
	if target == nil {
		return Errorf(NameTypeNotFound, map[string]any{"type": fs.Type}, "field type %s is neither a primitive nor a known type", fs.Type)
	}
	partner, err := t.relationField(holder, f, target)
	if err != nil {
		return err
	}
	if !f.Collection && (partner == nil || partner.Collection || partner.Storage != StoreColumn) {
		// The field gets a column of its own (see storeRelation).
		if err := t.roomForColumns(holder, f.Name, 1); err != nil {
			return err
		}
	}
	f.HolderID = holder.ID
	holder.Fields = append(holder.Fields, f)
	t.cat.reindex()
	if err := t.storeRelation(holder, f, partner, target); err != nil {
		return err
	}
	if dv, ok := f.Meta["platform/default-value"]; ok {
		if err := t.checkRelationDefault(f, dv); err != nil {
			return err
		}
	}
	return nil
}

// newField checks what every new field needs (a mutable schema, a user
// type holding it, a free valid name and id) and returns its holder and
// the field, its role still to be set.
func (t *Tx) newField(fs FieldSpec) (*Type, *Field, error) {
	if err := t.mutable(); err != nil {
		return nil, nil, err
	}
	holder, err := t.userType(fs.Holder)
	if err != nil {
		return nil, nil, err
	}
	if !validName(fs.Name) {
		return nil, nil, Errorf(NameInvalidName, map[string]any{"name": fs.Name}, "invalid field name %q (want <app>/<name>)", fs.Name)
	}
	if holder.Field(fs.Name) != nil {
		return nil, nil, Errorf(NameFieldExists, map[string]any{"type": fs.Holder, "field": fs.Name}, "field %s already exists on %s", fs.Name, fs.Holder)
	}
	id, err := newID(fs.ID)
	if err != nil {
		return nil, nil, err
	}
	if t.cat.FieldByID(id) != nil {
		return nil, nil, Errorf(NameFieldExists, map[string]any{"id": id}, "a field with id %s already exists", id)
	}
	return holder, &Field{ID: id, Name: fs.Name, Meta: copyMeta(fs.Meta)}, nil
}

// relationField makes f a relation from holder to target as its meta
// says (a collection, a relation id) and returns the field of target it
// pairs with, nil when none.
func (t *Tx) relationField(holder *Type, f *Field, target *Type) (*Field, error) {
	f.Role = RoleRelation
	f.TargetID = target.ID
	f.Collection = metaBool(f.Meta, "platform/collection?")
	if rel, ok := f.Meta["platform/relation"]; ok {
		s, _ := rel.(string)
		if _, err := uuid.Parse(s); err != nil {
			return nil, Errorf(NameInvalidSchema, map[string]any{"field": f.Name}, "platform/relation must be a uuid")
		}
		f.Relation = s
	}
	if target.Kind != KindDomain && f.Collection {
		return nil, Errorf(NameInvalidSchema, map[string]any{"field": f.Name}, "a field of type %s cannot be a collection", target.Name)
	}
	if f.Relation == "" {
		return nil, nil
	}
	var partner *Field
	for _, g := range target.Fields {
		if g.Role == RoleRelation && g.Relation == f.Relation && g.TargetID == holder.ID {
			partner = g
		}
	}
	if partner == nil {
		for _, ty := range t.cat.Types {
			for _, g := range ty.Fields {
				if g.Relation == f.Relation {
					return nil, Errorf(NameInvalidSchema, map[string]any{"relation": f.Relation}, "relation %s already pairs fields of other types", f.Relation)
				}
			}
		}
	} else if p2 := t.cat.Partner(partner); p2 != nil {
		return nil, Errorf(NameInvalidSchema, map[string]any{"relation": f.Relation}, "relation %s already has two fields", f.Relation)
	}
	return partner, nil
}

// storeRelation chooses where the relation f of holder keeps its values
// (a column of its own, its partner's column read in reverse, or a link
// table shared with its partner) and makes that storage.
func (t *Tx) storeRelation(holder *Type, f, partner *Field, target *Type) error {
	switch {
	case !f.Collection && partner != nil && !partner.Collection && partner.Storage == StoreColumn:
		f.Storage = StoreReverse
		f.PartnerID = partner.ID
	case !f.Collection:
		return t.relationColumn(holder, f, partner, target)
	case partner != nil && !partner.Collection:
		f.Storage = StoreReverse
		f.PartnerID = partner.ID
	case partner != nil && partner.Storage == StoreLink:
		f.Storage = StoreLink
		f.Link = partner.Link
		f.LinkSide = "b"
		if partner.LinkSide == "b" {
			f.LinkSide = "a"
		}
	default:
		f.Storage = StoreLink
		f.Link = t.cat.newIdent("l")
		f.LinkSide = "a"
		text := SQLType(t.s.dialect, TText)
		if err := t.ddl(fmt.Sprintf("CREATE TABLE %s (a %s NOT NULL, b %s NOT NULL, PRIMARY KEY (a, b))", f.Link, text, text)); err != nil {
			return err
		}
		if err := t.ddl(fmt.Sprintf("CREATE INDEX %s_b ON %s (b, a)", f.Link, f.Link)); err != nil {
			return err
		}
	}
	return nil
}

// relationColumn gives the to-one relation f a column of its own in
// holder's table; a lone collection partner's links move into it (the
// partner then reads the column in reverse), and a field to documents
// gets a document for each existing entity.
func (t *Tx) relationColumn(holder *Type, f, partner *Field, target *Type) error {
	f.Storage = StoreColumn
	f.Col = t.cat.newIdent("c")
	if err := t.ddl(fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", holder.Table, f.Col, SQLType(t.s.dialect, TText))); err != nil {
		return err
	}
	if err := t.ddl(fmt.Sprintf("CREATE INDEX %s_%s ON %s (%s)", holder.Table, f.Col, holder.Table, f.Col)); err != nil {
		return err
	}
	if partner != nil && partner.Storage == StoreLink {
		hcol, tcol := "b", "a"
		if partner.LinkSide == "b" {
			hcol, tcol = "a", "b"
		}
		if err := t.ddl(fmt.Sprintf("UPDATE %s SET %s = (SELECT l.%s FROM %s l WHERE l.%s = %s.id ORDER BY l.%s LIMIT 1)",
			holder.Table, f.Col, tcol, partner.Link, hcol, holder.Table, tcol)); err != nil {
			return err
		}
		if err := t.ddl("DROP TABLE " + partner.Link); err != nil {
			return err
		}
		partner.Storage, partner.Link, partner.LinkSide, partner.PartnerID = StoreReverse, "", "", f.ID
	}
	if target.Name == DocumentType {
		return t.createDocsForExisting(holder, f)
	}
	return nil
}

func (t *Tx) createDocsForExisting(holder *Type, f *Field) error {
	rows, err := t.tx.QueryContext(t.ctx, "SELECT id FROM "+holder.Table)
	if err != nil {
		return fmt.Errorf("store: list entities: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("store: list entities: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		doc, err := t.newDocument()
		if err != nil {
			return err
		}
		if _, err := t.exec("UPDATE "+holder.Table+" SET "+f.Col+" = ? WHERE id = ?", doc, id); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(f *Field, v any) error {
	if IsRange(f.Prim) {
		_, _, err := RangeArgs(f.Name, f.Prim, v)
		return err
	}
	_, err := ScalarArg(f.Name, f.Prim, v)
	return err
}

func (t *Tx) checkRelationDefault(f *Field, v any) error {
	if v == nil {
		return nil
	}
	id, err := refID(f.Name, v)
	if err != nil {
		return err
	}
	target := t.cat.Target(f)
	ok, err := t.exists("SELECT 1 FROM "+target.Table+" WHERE id = ?", id)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(NameEntityNotFound, map[string]any{"field": f.Name, "platform/id": id}, "default value of %s: no %s entity with id %s", f.Name, target.Name, id)
	}
	return nil
}

// RenameType runs schema.type/rename.
func (t *Tx) RenameType(from, to string) error {
	if err := t.mutable(); err != nil {
		return err
	}
	ty, err := t.userType(from)
	if err != nil {
		return err
	}
	if !validName(to) && (ty.Kind != KindEnum || !validEnumName(to)) {
		return Errorf(NameInvalidName, map[string]any{"name": to}, "invalid type name %q", to)
	}
	if t.cat.Type(to) != nil {
		return Errorf(NameTypeExists, map[string]any{"name": to}, "type %s already exists", to)
	}
	ty.Name = to
	t.cat.reindex()
	return nil
}

// RenameField runs schema.field/rename.
func (t *Tx) RenameField(holder, from, to string) error {
	if err := t.mutable(); err != nil {
		return err
	}
	ty, f, err := t.userField(holder, from)
	if err != nil {
		return err
	}
	if !validName(to) {
		return Errorf(NameInvalidName, map[string]any{"name": to}, "invalid field name %q", to)
	}
	if ty.Field(to) != nil {
		return Errorf(NameFieldExists, map[string]any{"field": to}, "field %s already exists on %s", to, holder)
	}
	f.Name = to
	t.cat.reindex()
	return nil
}

// builtin reports whether f is a built-in field: a field of a built-in type
// (Collaboration~Documents/Document), a built-in column (platform/id,
// platform/public-id, the creation and modification dates), or one of the
// fields the store gives an enum type (enum/name, platform/rank).
func builtin(ty *Type, f *Field) bool {
	switch {
	case ty.Kind == KindBuiltin:
		return true
	case f.Role != RolePrimitive && f.Role != RoleRelation:
		return true
	case ty.Kind == KindEnum && (f.Name == "enum/name" || f.Name == "platform/rank"):
		return true
	}
	return false
}

// userType is the type a schema change names: the schema-type-not-found
// error when the catalog has none, builtin-protected for a built-in type.
func (t *Tx) userType(name string) (*Type, error) {
	ty := t.cat.Type(name)
	if ty == nil {
		return nil, Errorf(NameTypeNotFound, map[string]any{"type": name}, "type %s not found", name)
	}
	if ty.Kind == KindBuiltin {
		return nil, Errorf(NameBuiltinProtected, map[string]any{"type": name}, "type %s is built in", name)
	}
	return ty, nil
}

// userField is the field a schema change names, with its type: the
// not-found error of the type or the field, builtin-protected for a built-in
// field.
func (t *Tx) userField(holder, name string) (*Type, *Field, error) {
	ty := t.cat.Type(holder)
	if ty == nil {
		return nil, nil, Errorf(NameTypeNotFound, map[string]any{"type": holder}, "type %s not found", holder)
	}
	f := ty.Field(name)
	if f == nil {
		return nil, nil, Errorf(NameFieldNotFound, map[string]any{"type": holder, "field": name}, "field %s not found on %s", name, holder)
	}
	if builtin(ty, f) {
		return nil, nil, Errorf(NameBuiltinProtected, map[string]any{"type": ty.Name, "field": f.Name}, "field %s of %s is built in", f.Name, ty.Name)
	}
	return ty, f, nil
}

// SetFieldMeta runs schema.field/set-meta.
func (t *Tx) SetFieldMeta(holder, name, key string, value any) error {
	if err := t.mutable(); err != nil {
		return err
	}
	_, f, err := t.userField(holder, name)
	if err != nil {
		return err
	}
	switch key {
	case "platform/collection?", "platform/relation", "platform/id?", "platform/public-id?", "platform/creation-date?", "platform/modification-date?":
		return Errorf(NameInvalidSchema, map[string]any{"key": key}, "meta key %s cannot be changed after creation", key)
	case "":
		return Errorf(NameInvalidSchema, nil, "meta key is empty")
	case "platform/default-value":
		if value != nil && !(value == "$now" && f.Prim == TDateTime) {
			if f.Role == RoleRelation {
				if err := t.checkRelationDefault(f, value); err != nil {
					return err
				}
			} else if err := checkValue(f, value); err != nil {
				return err
			}
		}
	}
	if value == nil {
		delete(f.Meta, key)
	} else {
		f.Meta[key] = value
	}
	return nil
}

// InstallMixins runs platform.app/install-mixins: records the mixins in the
// type meta (app/mixins); platform/rank-mixin also adds a platform/rank field.
func (t *Tx) InstallMixins(types map[string][]string) error {
	if err := t.mutable(); err != nil {
		return err
	}
	for name, mixins := range types {
		ty, err := t.userType(name)
		if err != nil {
			return err
		}
		m, _ := ty.Meta["app/mixins"].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		for _, mx := range mixins {
			if mx == "" || len(mx) > 200 {
				return Errorf(NameInvalidSchema, nil, "invalid mixin name")
			}
			m[mx] = true
			if mx == "platform/rank-mixin" && ty.Field("platform/rank") == nil {
				if err := t.addPrimitive(ty, &Field{ID: uuid.NewString(), Name: "platform/rank", Role: RolePrimitive, Prim: TRank, Meta: map[string]any{}}); err != nil {
					return err
				}
			}
		}
		ty.Meta["app/mixins"] = m
	}
	return nil
}

// fieldHasValues reports whether any entity has a value in f.
func (t *Tx) fieldHasValues(ty *Type, f *Field) (bool, error) {
	switch {
	case f.Role == RolePrimitive && IsRange(f.Prim):
		s, e := f.RangeColumns()
		return t.exists(fmt.Sprintf("SELECT 1 FROM %s WHERE %s IS NOT NULL OR %s IS NOT NULL LIMIT 1", ty.Table, s, e))
	case f.Role == RolePrimitive:
		return t.exists(fmt.Sprintf("SELECT 1 FROM %s WHERE %s IS NOT NULL LIMIT 1", ty.Table, f.Col))
	case t.cat.IsRichText(f):
		return false, nil
	case f.Storage == StoreColumn:
		return t.exists(fmt.Sprintf("SELECT 1 FROM %s WHERE %s IS NOT NULL LIMIT 1", ty.Table, f.Col))
	case f.Storage == StoreReverse:
		p := t.cat.FieldByID(f.PartnerID)
		pt := t.cat.Holder(p)
		return t.exists(fmt.Sprintf("SELECT 1 FROM %s WHERE %s IS NOT NULL LIMIT 1", pt.Table, p.Col))
	case f.Storage == StoreLink:
		return t.exists(fmt.Sprintf("SELECT 1 FROM %s LIMIT 1", f.Link))
	}
	return false, nil
}

// DeleteField runs schema.field/delete. Deleting one field of a relation pair
// deletes its partner too.
func (t *Tx) DeleteField(holder, name string, deleteValues bool) error {
	if err := t.mutable(); err != nil {
		return err
	}
	ty, f, err := t.userField(holder, name)
	if err != nil {
		return err
	}
	if !deleteValues {
		has, err := t.fieldHasValues(ty, f)
		if err != nil {
			return err
		}
		if has {
			return Errorf(NameFieldHasValues, map[string]any{"type": holder, "field": name},
				"field %s of %s has values; pass delete-values? true to delete them", name, holder)
		}
	}
	return t.dropField(ty, f)
}

// dropField removes f (and its relation partner) with their storage.
func (t *Tx) dropField(ty *Type, f *Field) error {
	fields := []*Field{f}
	if p := t.cat.Partner(f); p != nil {
		fields = append(fields, p)
	}
	droppedLinks := map[string]bool{}
	var enums []*Type
	for _, g := range fields {
		gt := t.cat.Holder(g)
		switch {
		case g.Role == RolePrimitive && IsRange(g.Prim):
			s, e := g.RangeColumns()
			if err := t.ddl(fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", gt.Table, s)); err != nil {
				return err
			}
			if err := t.ddl(fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", gt.Table, e)); err != nil {
				return err
			}
		case g.Role == RolePrimitive:
			// SQLite refuses to drop an indexed column (KeyField).
			if g.Key {
				if err := t.ddl(fmt.Sprintf("DROP INDEX %s_%s", gt.Table, g.Col)); err != nil {
					return err
				}
			}
			if err := t.ddl(fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", gt.Table, g.Col)); err != nil {
				return err
			}
		case g.Storage == StoreColumn:
			if t.cat.IsRichText(g) {
				dt := t.cat.Type(DocumentType)
				sf := dt.Field(DocumentSecret)
				if err := t.ddl(fmt.Sprintf("DELETE FROM %s WHERE secret IN (SELECT d.%s FROM %s d WHERE d.id IN (SELECT %s FROM %s))",
					DocumentsTable, sf.Col, dt.Table, g.Col, gt.Table)); err != nil {
					return err
				}
				if err := t.ddl(fmt.Sprintf("DELETE FROM %s WHERE id IN (SELECT %s FROM %s)", dt.Table, g.Col, gt.Table)); err != nil {
					return err
				}
			}
			if target := t.cat.Target(g); target != nil && target.Kind == KindEnum {
				enums = append(enums, target)
			}
			if err := t.ddl(fmt.Sprintf("DROP INDEX %s_%s", gt.Table, g.Col)); err != nil {
				return err
			}
			if err := t.ddl(fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", gt.Table, g.Col)); err != nil {
				return err
			}
		case g.Storage == StoreLink && !droppedLinks[g.Link]:
			droppedLinks[g.Link] = true
			if err := t.ddl("DROP TABLE " + g.Link); err != nil {
				return err
			}
		}
		for i, h := range gt.Fields {
			if h == g {
				gt.Fields = append(gt.Fields[:i], gt.Fields[i+1:]...)
				break
			}
		}
	}
	_ = ty
	t.cat.reindex()
	// An enum type used by no field any more goes with its last field.
	for _, e := range enums {
		if len(t.referrers(e)) == 0 && t.cat.TypeByID(e.ID) != nil {
			if err := t.dropType(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// referrers lists relation fields of other types that target ty.
func (t *Tx) referrers(ty *Type) []*Field {
	var out []*Field
	for _, o := range t.cat.Types {
		if o == ty {
			continue
		}
		for _, f := range o.Fields {
			if f.Role == RoleRelation && f.TargetID == ty.ID {
				out = append(out, f)
			}
		}
	}
	return out
}

// DeleteType runs schema.type/delete: the type goes with its entities and
// the data attached to them.
func (t *Tx) DeleteType(name string, deleteEntities, deleteRelated bool) error {
	if err := t.mutable(); err != nil {
		return err
	}
	ty, err := t.userType(name)
	if err != nil {
		return err
	}
	if !deleteEntities {
		has, err := t.exists("SELECT 1 FROM " + ty.Table + " LIMIT 1")
		if err != nil {
			return err
		}
		if has {
			return Errorf(NameTypeHasEntities, map[string]any{"type": name}, "type %s has entities; pass delete-entities? true to delete them", name)
		}
	}
	related := t.referrers(ty)
	if len(related) > 0 && !deleteRelated {
		names := make([]string, 0, len(related))
		for _, f := range related {
			names = append(names, t.cat.Holder(f).Name+" "+f.Name)
		}
		return Errorf(NameTypeHasRelated, map[string]any{"type": name, "fields": names},
			"other types have fields related to %s (%s); pass delete-related-fields? true to delete them", name, strings.Join(names, ", "))
	}
	for _, f := range related {
		if t.cat.FieldByID(f.ID) == nil {
			continue // went with its partner
		}
		if err := t.dropField(t.cat.Holder(f), f); err != nil {
			return err
		}
	}
	// The type's own relation fields (and their partners elsewhere).
	for {
		var rel *Field
		for _, f := range ty.Fields {
			if f.Role == RoleRelation {
				rel = f
				break
			}
		}
		if rel == nil {
			break
		}
		if err := t.dropField(ty, rel); err != nil {
			return err
		}
	}
	return t.dropType(ty)
}

// dropType drops ty's table, with the data attached to its entities.
func (t *Tx) dropType(ty *Type) error {
	if err := t.deleteAttached("IN (SELECT id FROM " + ty.Table + ")"); err != nil {
		return err
	}
	if err := t.ddl("DROP TABLE " + ty.Table); err != nil {
		return err
	}
	if _, err := t.tx.ExecContext(t.ctx, t.s.dialect.Rebind("DELETE FROM catalog_counters WHERE type_id = ?"), ty.ID); err != nil {
		return fmt.Errorf("store: counter: %w", err)
	}
	delete(t.counters, ty.ID)
	if err := t.dropReservedIDs(ty.Name); err != nil {
		return err
	}
	for i, o := range t.cat.Types {
		if o == ty {
			t.cat.Types = append(t.cat.Types[:i], t.cat.Types[i+1:]...)
			break
		}
	}
	t.cat.reindex()
	return nil
}
