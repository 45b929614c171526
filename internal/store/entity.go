package store

import (
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/appkitgo/appkit/internal/jsonw"
	"github.com/google/uuid"
)

// refID reads a reference: {"platform/id": "<uuid>"} or a bare uuid string.
func refID(field string, v any) (string, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case map[string]any:
		id, ok := x["platform/id"].(string)
		if !ok {
			return "", Errorf(NameInvalidValue, map[string]any{"field": field}, "field %s: want an object with platform/id", field)
		}
		s = id
	default:
		return "", Errorf(NameInvalidValue, map[string]any{"field": field}, "field %s: want an object with platform/id, got %s", field, jsonw.Kind(v))
	}
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return "", Errorf(NameInvalidValue, map[string]any{"field": field}, "field %s: platform/id %q is not a uuid", field, s)
	}
	return u.String(), nil
}

func (t *Tx) typeOf(name string) (*Type, error) {
	ty := t.cat.Type(name)
	if ty == nil {
		return nil, Errorf(NameTypeNotFound, map[string]any{"type": name}, "type %s not found", name)
	}
	return ty, nil
}

// writableType is the type typeName for a command writing its entities: not
// a built-in type, whose entities the store alone writes (how says what
// the store does with them, in the refusal).
func (t *Tx) writableType(typeName, how string) (*Type, error) {
	ty, err := t.typeOf(typeName)
	if err != nil {
		return nil, err
	}
	if ty.Kind == KindBuiltin {
		return nil, Errorf(NameBuiltinProtected, map[string]any{"type": typeName}, "entities of %s are %s by the store", typeName, how)
	}
	return ty, nil
}

func (t *Tx) fieldOf(ty *Type, name string) (*Field, error) {
	f := ty.Field(name)
	if f == nil {
		return nil, Errorf(NameFieldNotFound, map[string]any{"type": ty.Name, "field": name}, "field %s not found on %s", name, ty.Name)
	}
	return f, nil
}

func (t *Tx) mustExist(ty *Type, id string, field string) error {
	ok, err := t.exists("SELECT 1 FROM "+ty.Table+" WHERE id = ?", id)
	if err != nil {
		return err
	}
	if !ok {
		data := map[string]any{"type": ty.Name, "platform/id": id}
		if field != "" {
			data["field"] = field
		}
		return Errorf(NameEntityNotFound, data, "no %s entity with id %s", ty.Name, id)
	}
	return nil
}

// existingID reads the reference to the entity of ty that a command acts on,
// which the command calls key (refID), and checks that the entity exists
// (entity-not-found, naming no field).
func (t *Tx) existingID(ty *Type, key string, v any) (string, error) {
	id, err := refID(key, v)
	if err != nil {
		return "", err
	}
	if err := t.mustExist(ty, id, ""); err != nil {
		return "", err
	}
	return id, nil
}

func (t *Tx) newDocument() (string, error) {
	dt := t.cat.Type(DocumentType)
	id := NewEntityID()
	pub, err := t.nextPublicID(dt.ID)
	if err != nil {
		return "", err
	}
	ms := t.now.UnixMilli()
	sf := dt.Field(DocumentSecret)
	if _, err := t.exec("INSERT INTO "+dt.Table+" (id, public_id, created, modified, "+sf.Col+") VALUES (?, ?, ?, ?, ?)",
		id, pub, ms, ms, newSecret()); err != nil {
		return "", err
	}
	return id, nil
}

// pending holds the column values of one entity write.
type pending struct {
	cols    []string
	args    []any
	reverse map[*Field]any // StoreReverse to-one fields: target id or nil
	result  map[string]any
}

func (p *pending) set(col string, v any) {
	p.cols = append(p.cols, col)
	p.args = append(p.args, v)
}

// assign validates one field value and records its columns.
func (t *Tx) assign(ty *Type, f *Field, v any, p *pending, creating bool) error {
	switch f.Role {
	case RoleID:
		return nil // handled by the caller
	case RolePublicID:
		return Errorf(NameReadonlyField, map[string]any{"field": f.Name}, "field %s is assigned by the store", f.Name)
	case RoleCreated, RoleModified:
		a, err := ScalarArg(f.Name, TDateTime, v)
		if err != nil {
			return err
		}
		if a == nil {
			return Errorf(NameInvalidValue, map[string]any{"field": f.Name}, "field %s cannot be empty", f.Name)
		}
		p.set(BuiltinColumn(f.Role), a)
		p.result[f.Name] = OutScalar(TDateTime, a)
		return nil
	case RolePrimitive:
		if v == nil && metaBool(f.Meta, "platform/required?") {
			return Errorf(NameRequiredMissing, map[string]any{"field": f.Name}, "field %s is required", f.Name)
		}
		if IsRange(f.Prim) {
			s, e, err := RangeArgs(f.Name, f.Prim, v)
			if err != nil {
				return err
			}
			sc, ec := f.RangeColumns()
			p.set(sc, s)
			p.set(ec, e)
			p.result[f.Name] = OutRange(f.Prim, s, e)
			return nil
		}
		a, err := ScalarArg(f.Name, f.Prim, v)
		if err != nil {
			return err
		}
		p.set(f.Col, a)
		p.result[f.Name] = OutScalar(f.Prim, a)
		return nil
	}
	// Relations.
	if f.Collection {
		return Errorf(NameInvalidValue, map[string]any{"field": f.Name},
			"collection field %s cannot be set here; use platform.entity/add-collection-items", f.Name)
	}
	if t.cat.IsRichText(f) {
		return Errorf(NameInvalidValue, map[string]any{"field": f.Name},
			"rich-text field %s cannot be set here; write its document through /api/documents", f.Name)
	}
	target := t.cat.Target(f)
	var id any
	if v != nil {
		s, err := refID(f.Name, v)
		if err != nil {
			return err
		}
		if err := t.mustExist(target, s, f.Name); err != nil {
			return err
		}
		id = s
		p.result[f.Name] = map[string]any{"platform/id": s}
	} else {
		if metaBool(f.Meta, "platform/required?") {
			return Errorf(NameRequiredMissing, map[string]any{"field": f.Name}, "field %s is required", f.Name)
		}
		p.result[f.Name] = nil
	}
	if f.Storage == StoreReverse {
		if p.reverse == nil {
			p.reverse = map[*Field]any{}
		}
		p.reverse[f] = id
		return nil
	}
	p.set(f.Col, id)
	return nil
}

// applyRelations keeps one-to-one pairs one-to-one and writes reverse sides.
func (t *Tx) applyRelations(ty *Type, id string, p *pending, before bool) error {
	if before {
		// A to-one column whose partner is to-one: the target leaves its old holder.
		for i, col := range p.cols {
			f := t.fieldByCol(ty, col)
			if f == nil || f.Role != RoleRelation || p.args[i] == nil {
				continue
			}
			if pt := t.cat.Partner(f); pt != nil && !pt.Collection {
				if _, err := t.exec("UPDATE "+ty.Table+" SET "+f.Col+" = NULL WHERE "+f.Col+" = ? AND id <> ?", p.args[i], id); err != nil {
					return err
				}
			}
		}
		return nil
	}
	fields := make([]*Field, 0, len(p.reverse))
	for f := range p.reverse {
		fields = append(fields, f)
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
	for _, f := range fields {
		partner := t.cat.FieldByID(f.PartnerID)
		tt := t.cat.Holder(partner)
		if _, err := t.exec("UPDATE "+tt.Table+" SET "+partner.Col+" = NULL WHERE "+partner.Col+" = ?", id); err != nil {
			return err
		}
		if target := p.reverse[f]; target != nil {
			if _, err := t.exec("UPDATE "+tt.Table+" SET "+partner.Col+" = ? WHERE id = ?", id, target); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *Tx) fieldByCol(ty *Type, col string) *Field {
	for _, f := range ty.Fields {
		if f.Col == col && f.Role == RoleRelation && f.Storage == StoreColumn {
			return f
		}
	}
	return nil
}

// Create runs platform.entity/create and returns the created entity: every
// primitive field, and entity and single-select fields as {platform/id} or null.
func (t *Tx) Create(typeName string, entity map[string]any) (map[string]any, error) {
	ty, err := t.writableType(typeName, "created")
	if err != nil {
		return nil, err
	}
	id := NewEntityID()
	if v, ok := entity["platform/id"]; ok && v != nil {
		s, ok := v.(string)
		u, err := uuid.Parse(s)
		if !ok || err != nil || len(s) != 36 {
			return nil, Errorf(NameInvalidValue, map[string]any{"field": "platform/id"}, "platform/id must be a uuid string")
		}
		id = u.String()
	}
	p := &pending{result: map[string]any{}}
	ms := t.now.UnixMilli()
	names := slices.Sorted(maps.Keys(entity))
	given := map[string]bool{}
	for _, k := range names {
		f, err := t.fieldOf(ty, k)
		if err != nil {
			return nil, err
		}
		given[k] = true
		if err := t.assign(ty, f, entity[k], p, true); err != nil {
			return nil, err
		}
	}
	for _, f := range ty.Fields {
		if given[f.Name] {
			continue
		}
		switch f.Role {
		case RolePrimitive:
			dv, ok := f.Meta["platform/default-value"]
			if ok && dv == "$now" && f.Prim == TDateTime {
				dv = FormatDateTime(ms)
			}
			if !ok {
				dv = nil
			}
			if err := t.assign(ty, f, dv, p, true); err != nil {
				return nil, err
			}
		case RoleRelation:
			if f.Collection {
				continue
			}
			if t.cat.IsRichText(f) {
				doc, err := t.newDocument()
				if err != nil {
					return nil, err
				}
				p.set(f.Col, doc)
				p.result[f.Name] = map[string]any{"platform/id": doc}
				continue
			}
			dv := f.Meta["platform/default-value"]
			if err := t.assign(ty, f, dv, p, true); err != nil {
				return nil, err
			}
		}
	}
	created, modified := any(ms), any(ms)
	var cols []string
	var args []any
	for i, c := range p.cols {
		switch c {
		case "created":
			created = p.args[i]
		case "modified":
			modified = p.args[i]
		default:
			cols = append(cols, c)
			args = append(args, p.args[i])
		}
	}
	pub, err := t.nextPublicID(ty.ID)
	if err != nil {
		return nil, err
	}
	if err := t.applyRelations(ty, id, &pending{cols: cols, args: args}, true); err != nil {
		return nil, err
	}
	var q strings.Builder
	q.WriteString("INSERT INTO " + ty.Table + " (id, public_id, created, modified")
	for _, c := range cols {
		q.WriteString(", " + c)
	}
	q.WriteString(") VALUES (?, ?, ?, ?")
	q.WriteString(strings.Repeat(", ?", len(cols)))
	q.WriteString(")")
	all := append([]any{id, pub, created, modified}, args...)
	if _, err := t.exec(q.String(), all...); err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "unique") || strings.Contains(err.Error(), "duplicate key") {
			return nil, Errorf(NameEntityExists, map[string]any{"type": typeName, "platform/id": id}, "a %s entity with id %s already exists", typeName, id)
		}
		return nil, err
	}
	if err := t.applyRelations(ty, id, p, false); err != nil {
		return nil, err
	}
	for _, f := range ty.Fields {
		switch f.Role {
		case RoleID:
			p.result[f.Name] = id
		case RolePublicID:
			p.result[f.Name] = pub
		case RoleCreated:
			p.result[f.Name] = OutScalar(TDateTime, created)
		case RoleModified:
			p.result[f.Name] = OutScalar(TDateTime, modified)
		}
	}
	return p.result, nil
}

// Update runs platform.entity/update and returns the entity as Create does.
func (t *Tx) Update(typeName string, entity map[string]any) (map[string]any, error) {
	ty, err := t.writableType(typeName, "managed")
	if err != nil {
		return nil, err
	}
	id, err := refID("platform/id", entity)
	if err != nil {
		return nil, err
	}
	p := &pending{result: map[string]any{}}
	names := make([]string, 0, len(entity))
	for k := range entity {
		if k != "platform/id" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	modifiedSet := false
	for _, k := range names {
		f, err := t.fieldOf(ty, k)
		if err != nil {
			return nil, err
		}
		if f.Role == RoleModified {
			modifiedSet = true
		}
		if err := t.assign(ty, f, entity[k], p, false); err != nil {
			return nil, err
		}
	}
	if !modifiedSet {
		p.set("modified", t.now.UnixMilli())
	}
	if err := t.mustExist(ty, id, ""); err != nil {
		return nil, err
	}
	if err := t.applyRelations(ty, id, p, true); err != nil {
		return nil, err
	}
	var q strings.Builder
	q.WriteString("UPDATE " + ty.Table + " SET ")
	for i, c := range p.cols {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(c + " = ?")
	}
	q.WriteString(" WHERE id = ?")
	if _, err := t.exec(q.String(), append(p.args, id)...); err != nil {
		return nil, err
	}
	if err := t.applyRelations(ty, id, p, false); err != nil {
		return nil, err
	}
	return t.Read(ty, id)
}

// Read returns one entity as Create does (nil error and a not-found *Error
// when it does not exist).
func (t *Tx) Read(ty *Type, id string) (map[string]any, error) {
	d := t.s.dialect
	type out struct {
		f    *Field
		cols int
	}
	var exprs []string
	var outs []out
	for _, f := range ty.Fields {
		switch {
		case f.Role == RolePrimitive && IsRange(f.Prim):
			s, e := f.RangeColumns()
			exprs = append(exprs, ColumnExpr(d, f.Prim, "x", s), ColumnExpr(d, f.Prim, "x", e))
			outs = append(outs, out{f, 2})
		case f.Role == RoleRelation && f.Collection:
		case f.Role == RoleRelation && f.Storage == StoreReverse:
			p := t.cat.FieldByID(f.PartnerID)
			pt := t.cat.Holder(p)
			exprs = append(exprs, fmt.Sprintf("(SELECT r.id FROM %s r WHERE r.%s = x.id ORDER BY r.id LIMIT 1)", pt.Table, p.Col))
			outs = append(outs, out{f, 1})
		default:
			exprs = append(exprs, ColumnExpr(d, f.Prim, "x", f.Column()))
			outs = append(outs, out{f, 1})
		}
	}
	q := "SELECT " + strings.Join(exprs, ", ") + " FROM " + ty.Table + " x WHERE x.id = ?"
	st, err := t.stmt(q)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(exprs))
	ptrs := make([]any, len(exprs))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := st.QueryRowContext(t.ctx, id).Scan(ptrs...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, Errorf(NameEntityNotFound, map[string]any{"type": ty.Name, "platform/id": id}, "no %s entity with id %s", ty.Name, id)
		}
		return nil, fmt.Errorf("store: read entity: %w", err)
	}
	res := make(map[string]any, len(outs))
	i := 0
	for _, o := range outs {
		switch {
		case o.cols == 2:
			res[o.f.Name] = OutRange(o.f.Prim, vals[i], vals[i+1])
		case o.f.Role == RoleRelation:
			if vals[i] == nil {
				res[o.f.Name] = nil
			} else {
				res[o.f.Name] = map[string]any{"platform/id": OutScalar(TText, vals[i])}
			}
		default:
			res[o.f.Name] = OutScalar(o.f.Prim, vals[i])
		}
		i += o.cols
	}
	return res, nil
}

// Delete runs platform.entity/delete: removes the entity, clears references
// to it, removes its links, its rich-text documents with their contents and
// the data attached to it (comments, files, assignees, creator,
// notifications; attached.go). Every API deletes an entity through it: the
// command API, GraphQL's delete and a synchronization's removals.
func (t *Tx) Delete(typeName string, entity map[string]any) error {
	ty, err := t.writableType(typeName, "managed")
	if err != nil {
		return err
	}
	id, err := t.existingID(ty, "platform/id", entity)
	if err != nil {
		return err
	}
	dt := t.cat.Type(DocumentType)
	sf := dt.Field(DocumentSecret)
	for _, f := range ty.Fields {
		if t.cat.IsRichText(f) && f.Storage == StoreColumn {
			doc := "(SELECT " + f.Col + " FROM " + ty.Table + " WHERE id = ?)"
			if _, err := t.exec("DELETE FROM "+DocumentsTable+" WHERE secret IN (SELECT "+sf.Col+" FROM "+dt.Table+" WHERE id = "+doc+")", id); err != nil {
				return err
			}
			if _, err := t.exec("DELETE FROM "+dt.Table+" WHERE id = "+doc, id); err != nil {
				return err
			}
		}
	}
	for _, o := range t.cat.Types {
		for _, f := range o.Fields {
			if f.Role != RoleRelation {
				continue
			}
			if f.Storage == StoreColumn && f.TargetID == ty.ID {
				if _, err := t.exec("UPDATE "+o.Table+" SET "+f.Col+" = NULL WHERE "+f.Col+" = ?", id); err != nil {
					return err
				}
			}
			if f.Storage == StoreLink && f.HolderID == ty.ID {
				if _, err := t.exec("DELETE FROM "+f.Link+" WHERE "+f.LinkSide+" = ?", id); err != nil {
					return err
				}
			}
			if f.Storage == StoreLink && f.TargetID == ty.ID {
				other := "b"
				if f.LinkSide == "b" {
					other = "a"
				}
				if _, err := t.exec("DELETE FROM "+f.Link+" WHERE "+other+" = ?", id); err != nil {
					return err
				}
			}
		}
	}
	if _, err := t.exec("DELETE FROM "+ty.Table+" WHERE id = ?", id); err != nil {
		return err
	}
	return t.deleteAttached("= ?", id)
}

// CollectionItems runs platform.entity/add-collection-items (add true) and
// remove-collection-items (add false).
func (t *Tx) CollectionItems(typeName, fieldName string, entity any, items []any, add bool) error {
	ty, err := t.typeOf(typeName)
	if err != nil {
		return err
	}
	f, err := t.fieldOf(ty, fieldName)
	if err != nil {
		return err
	}
	if !f.IsCollection() {
		return Errorf(NameInvalidValue, map[string]any{"field": fieldName}, "field %s of %s is not a collection", fieldName, typeName)
	}
	id, err := t.existingID(ty, "entity", entity)
	if err != nil {
		return err
	}
	target := t.cat.Target(f)
	seen := map[string]bool{}
	var ids []string
	for _, it := range items {
		s, err := refID(fieldName, it)
		if err != nil {
			return err
		}
		if !seen[s] {
			seen[s] = true
			ids = append(ids, s)
		}
	}
	for _, s := range ids {
		if add {
			if err := t.mustExist(target, s, fieldName); err != nil {
				return err
			}
		}
		switch f.Storage {
		case StoreReverse:
			p := t.cat.FieldByID(f.PartnerID)
			pt := t.cat.Holder(p)
			if add {
				_, err = t.exec("UPDATE "+pt.Table+" SET "+p.Col+" = ? WHERE id = ?", id, s)
			} else {
				_, err = t.exec("UPDATE "+pt.Table+" SET "+p.Col+" = NULL WHERE id = ? AND "+p.Col+" = ?", s, id)
			}
		case StoreLink:
			self, other := f.LinkSide, "b"
			if self == "b" {
				other = "a"
			}
			if add {
				_, err = t.exec("INSERT INTO "+f.Link+" ("+self+", "+other+") VALUES (?, ?) ON CONFLICT DO NOTHING", id, s)
			} else {
				_, err = t.exec("DELETE FROM "+f.Link+" WHERE "+self+" = ? AND "+other+" = ?", id, s)
			}
		default:
			return fmt.Errorf("store: collection %s has storage %q", fieldName, f.Storage)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Upsert creates the entity, or updates it when an entity of the type with
// its platform/id exists (the sync engine's write). created reports which.
func (t *Tx) Upsert(typeName string, entity map[string]any) (result map[string]any, created bool, err error) {
	ty, err := t.typeOf(typeName)
	if err != nil {
		return nil, false, err
	}
	if v, ok := entity["platform/id"]; ok && v != nil {
		id, err := refID("platform/id", entity)
		if err != nil {
			return nil, false, err
		}
		found, err := t.exists("SELECT 1 FROM "+ty.Table+" WHERE id = ?", id)
		if err != nil {
			return nil, false, err
		}
		if found {
			res, err := t.Update(typeName, entity)
			return res, false, err
		}
	}
	res, err := t.Create(typeName, entity)
	return res, err == nil, err
}
