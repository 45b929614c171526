package graphql

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// group is one mutation group: a database, its selection and the
// transaction its actions run in.
type group struct {
	e      *executor
	tx     *store.Tx
	o      *object
	where  *query.Filter
	order  []query.Order
	limit  int
	offset int
	// ids are the entities the actions act on, once known.
	ids    []string
	loaded bool
}

// actionErr is the failure of one action: the group's transaction is rolled
// back and the error points at the action.
type actionErr struct {
	key string
	f   *ast.Field
	err error
}

func (a *actionErr) Error() string { return a.key + ": " + a.err.Error() }
func (a *actionErr) Unwrap() error { return a.err }

// mutationGroup runs the actions of one database group in one transaction.
func (e *executor) mutationGroup(c *cfield, path []any) any {
	o := e.sch.groups[c.name]
	if o == nil {
		e.fail(c.first(), path, "unknown field "+c.name, "GRAPHQL_VALIDATION_FAILED")
		return nil
	}
	where, order, limit, offset, err := e.listArgs(o, c.first(), false)
	if err != nil {
		e.failErr(c.first(), path, err)
		return nil
	}
	actions := e.sub(c, o.name+sActions)
	var out *omap
	err = e.st.Write(e.ctx, func(tx *store.Tx) error {
		g := &group{e: e, tx: tx, o: o, where: where, order: order, limit: limit, offset: offset}
		out = newOmap(len(actions))
		for _, a := range actions {
			if a.name == "__typename" {
				out.set(a.key, o.name+sActions)
				continue
			}
			v, err := g.run(a, extend2(path, a.key))
			if err == nil {
				err = e.spend(a.key, v)
			}
			if err != nil {
				return &actionErr{key: a.key, f: a.first(), err: err}
			}
			out.set(a.key, v)
		}
		return nil
	})
	if err != nil {
		var ae *actionErr
		if errors.As(err, &ae) {
			e.failErr(ae.f, extend2(path, ae.key), ae.err)
		} else {
			e.failErr(c.first(), path, err)
		}
		return nil
	}
	return out
}

func (g *group) find(a *cfield) *action {
	for _, act := range g.o.actions {
		if act.name == a.name {
			return act
		}
	}
	return nil
}

// selected returns the entities the next action acts on: the group's
// selection, evaluated the first time it is needed, or what create made.
func (g *group) selected() ([]string, error) {
	if g.loaded {
		return g.ids, nil
	}
	limit, most := g.limit, g.e.svc.cfg.MaxSelected
	if limit <= 0 {
		limit = most + 1 // one more tells that the filter selects too many
	}
	ids, err := g.e.ids(g.tx.Querier(), g.o, g.where, g.order, limit, g.offset)
	if err != nil {
		return nil, err
	}
	if g.limit <= 0 && len(ids) > most {
		return nil, userErrorf("the filter selects more than %d entities: act on them in pages with limit, offset and orderBy", most)
	}
	if g.limit < 0 {
		ids = nil
	}
	g.ids, g.loaded = ids, true
	return ids, nil
}

// ids runs a query for the ids of o's entities.
func (e *executor) ids(db store.Querier, o *object, where *query.Filter, order []query.Order, limit, offset int) ([]string, error) {
	q := &query.Query{From: o.st.Name, Select: []query.Select{{Kind: query.SelectField, Key: "id", Field: "platform/id"}},
		Where: where, Order: order, Limit: limit, Offset: offset}
	if o.option {
		return nil, userErrorf("options cannot be selected here")
	}
	rows, err := e.rows(db, q)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		if s, ok := r["id"].(string); ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// argObj gathers the arguments of an action field as an input object.
func (e *executor) argObj(f *ast.Field) *inputObj {
	o := &inputObj{}
	for _, a := range f.Arguments {
		v := value(a.Value, e.vars)
		if _, skip := v.(absent); skip {
			continue
		}
		o.keys = append(o.keys, a.Name)
		o.vals = append(o.vals, v)
	}
	return o
}

// run runs one action of the group: the actions that act on a selection
// get the selected entities first.
func (g *group) run(a *cfield, path []any) (any, error) {
	act := g.find(a)
	if act == nil {
		return nil, userErrorf("unknown action %s", a.name)
	}
	f := a.first()
	args := g.e.argObj(f)
	if depth(args) > MaxInputDepth {
		return nil, userErrorf("the arguments of %s nest deeper than %d levels", a.name, MaxInputDepth)
	}
	c := &actionCall{f: a, act: act, args: args, path: path}
	if !act.kind.unselected {
		ids, err := g.selected()
		if err != nil {
			return nil, err
		}
		c.ids = ids
	}
	return act.kind.run(g, c)
}

// runCreate creates one entity of the group's object.
func (g *group) runCreate(c *actionCall) (any, error) {
	id, err := g.create(g.o, c.args)
	if err != nil {
		return nil, err
	}
	g.ids, g.loaded = []string{id}, true
	return g.result(c.f, fmt.Sprintf("created 1 %s", g.o.display()), g.o, []string{id}), nil
}

// runCreateBatch creates one entity per item of data.
func (g *group) runCreateBatch(c *actionCall) (any, error) {
	var ids []string
	for i, it := range listOf(argValue(c.args, "data")) {
		obj, _ := it.(*inputObj)
		if obj == nil {
			return nil, userErrorf("data[%d] is not an object", i)
		}
		id, err := g.create(g.o, obj)
		if err != nil {
			return nil, fmt.Errorf("data[%d]: %w", i, err)
		}
		ids = append(ids, id)
	}
	g.ids, g.loaded = ids, true
	return g.result(c.f, fmt.Sprintf("created %d %s", len(ids), g.o.display()), g.o, ids), nil
}

// runUpdate updates the selected entities.
func (g *group) runUpdate(c *actionCall) (any, error) {
	for _, id := range c.ids {
		if err := g.update(g.o, id, c.args); err != nil {
			return nil, err
		}
	}
	return g.result(c.f, fmt.Sprintf("updated %d %s", len(c.ids), g.o.display()), g.o, c.ids), nil
}

// runDelete deletes the selected entities.
func (g *group) runDelete(c *actionCall) (any, error) {
	for _, id := range c.ids {
		if err := g.delete(g.o, id); err != nil {
			return nil, err
		}
	}
	g.ids = nil
	return g.result(c.f, fmt.Sprintf("deleted %d %s", len(c.ids), g.o.display()), g.o, c.ids), nil
}

// runAddComment comments on each selected entity (a filled-in template).
func (g *group) runAddComment(c *actionCall) (any, error) {
	tpl, _ := argValue(c.args, "value").(string)
	texts, err := g.fill(tpl, c.ids)
	if err != nil {
		return nil, err
	}
	for _, id := range c.ids {
		if err := g.addComment(id, texts[id]); err != nil {
			return nil, err
		}
	}
	return g.result(c.f, fmt.Sprintf("commented on %d %s", len(c.ids), g.o.display()), g.o, c.ids), nil
}

// runWriteRich appends to, prepends to or overwrites a rich-text field of the selected entities.
func (g *group) runWriteRich(c *actionCall, mode richWrite) (any, error) {
	tpl, _ := argValue(c.args, "value").(string)
	texts, err := g.fill(tpl, c.ids)
	if err != nil {
		return nil, err
	}
	if err := g.writeRich(c.act.field, c.ids, texts, mode); err != nil {
		return nil, err
	}
	return g.result(c.f, fmt.Sprintf("changed %s of %d %s", c.act.field.name, len(c.ids), g.o.display()), g.o, c.ids), nil
}

// runAddItem creates items (one, or one per item of data) linked to each selected entity.
func (g *group) runAddItem(c *actionCall, batch bool) (any, error) {
	items := []*inputObj{c.args}
	if batch {
		items = nil
		for i, it := range listOf(argValue(c.args, "data")) {
			obj, _ := it.(*inputObj)
			if obj == nil {
				return nil, userErrorf("data[%d] is not an object", i)
			}
			items = append(items, obj)
		}
	}
	var made []string
	for _, id := range c.ids {
		for _, it := range items {
			nid, err := g.create(c.act.field.target, it)
			if err != nil {
				return nil, err
			}
			if err := g.link(c.act.field, id, []string{nid}); err != nil {
				return nil, err
			}
			made = append(made, nid)
		}
	}
	return g.result(c.f, fmt.Sprintf("created %d %s linked through %s", len(made), c.act.field.target.display(), c.act.field.name), c.act.field.target, made), nil
}

// runLink links the chosen targets to the selected entities.
func (g *group) runLink(c *actionCall) (any, error) {
	targets, err := g.choose(c.act.field, c.args)
	if err != nil {
		return nil, err
	}
	for _, id := range c.ids {
		if err := g.link(c.act.field, id, targets); err != nil {
			return nil, err
		}
	}
	return g.result(c.f, fmt.Sprintf("linked %d %s to %d %s through %s", len(targets), c.act.field.target.display(), len(c.ids), g.o.display(), c.act.field.name), g.o, c.ids), nil
}

// runUnlink unlinks (or deletes) the entities linked to the selected ones that args match.
func (g *group) runUnlink(c *actionCall, del bool) (any, error) {
	where, err := objectFilter(c.act.field.target, c.args, nil)
	if err != nil {
		return nil, err
	}
	linked, err := g.linked(c.act.field, c.ids, where)
	if err != nil {
		return nil, err
	}
	n := 0
	var touched []string
	for _, id := range c.ids {
		items := linked[id]
		if len(items) == 0 {
			continue
		}
		n += len(items)
		if del {
			for _, it := range items {
				if err := g.delete(c.act.field.target, it); err != nil {
					return nil, err
				}
				touched = append(touched, it)
			}
			continue
		}
		if err := g.unlink(c.act.field, id, items); err != nil {
			return nil, err
		}
		touched = append(touched, id)
	}
	if del {
		return g.result(c.f, fmt.Sprintf("deleted %d %s linked through %s", n, c.act.field.target.display(), c.act.field.name), c.act.field.target, touched), nil
	}
	return g.result(c.f, fmt.Sprintf("unlinked %d %s through %s", n, c.act.field.target.display(), c.act.field.name), g.o, touched), nil
}

// runAssignToMe assigns the selected entities to the viewer.
func (g *group) runAssignToMe(c *actionCall) (any, error) {
	e := g.e
	for _, id := range c.ids {
		if err := g.assign(id); err != nil {
			return nil, err
		}
	}
	return g.result(c.f, fmt.Sprintf("assigned %s to %d %s", e.viewer.Email, len(c.ids), g.o.display()), g.o, c.ids), nil
}

// runNotify notifies the assignees, the creators or the given users about each selected entity.
func (g *group) runNotify(c *actionCall, who func(id string) ([]string, error)) (any, error) {
	n, err := g.notifyEach(c.args, c.ids, who)
	if err != nil {
		return nil, err
	}
	return g.result(c.f, fmt.Sprintf("sent %d notifications about %d %s", n, len(c.ids), g.o.display()), g.o, c.ids), nil
}

// assigneesOf are the e-mail addresses of the users assigned to an entity.
func (g *group) assigneesOf(id string) ([]string, error) {
	var to []string
	err := g.tx.Attached().Assignees(g.e.ctx, []string{id}, func(_, email string) error {
		to = append(to, email)
		return nil
	})
	slices.Sort(to)
	return to, err
}

// creatorOf is the e-mail address of the user who created an entity
// through this API, when known.
func (g *group) creatorOf(id string) ([]string, error) {
	email, err := g.tx.Attached().Creator(g.e.ctx, id)
	if email == "" {
		return nil, err
	}
	return []string{email}, err
}

// runFinalState moves the selected entities to the final state of a status field.
func (g *group) runFinalState(c *actionCall) (any, error) {
	final, name, err := g.finalState(c.act.field)
	if err != nil {
		return nil, err
	}
	for _, id := range c.ids {
		if _, err := g.tx.Update(g.o.st.Name, map[string]any{"platform/id": id, c.act.field.store: final}); err != nil {
			return nil, err
		}
	}
	return g.result(c.f, fmt.Sprintf("moved %d %s to %s", len(c.ids), g.o.display(), name), g.o, c.ids), nil
}

// runAddFile attaches a file fetched from a URL to the selected entities.
func (g *group) runAddFile(c *actionCall) (any, error) {
	e := g.e
	name, err := checkName(fmt.Sprint(argValue(c.args, "name")))
	if err != nil {
		return nil, err
	}
	raw, _ := argValue(c.args, "url").(string)
	data, ctype, err := e.svc.fetch.fetch(e.ctx, raw)
	if err != nil {
		return nil, err
	}
	if err := g.attach(c.ids, name, ctype, data); err != nil {
		return nil, err
	}
	return g.result(c.f, fmt.Sprintf("attached %s (%d bytes) to %d %s", name, len(data), len(c.ids), g.o.display()), g.o, c.ids), nil
}

// runAttachPdf attaches a PDF made from a filled-in template to each selected entity.
func (g *group) runAttachPdf(c *actionCall) (any, error) {
	nameArg, _ := argValue(c.args, "name").(string)
	name, err := checkName(pdfName(nameArg))
	if err != nil {
		return nil, err
	}
	tpl, _ := argValue(c.args, "value").(string)
	texts, err := g.fillMax(tpl, c.ids, MaxPdfTextBytes)
	if err != nil {
		return nil, err
	}
	for _, id := range c.ids {
		pdf, err := pdfFile(name, texts[id])
		if err != nil {
			return nil, err
		}
		if err := g.attach([]string{id}, name, "application/pdf", pdf); err != nil {
			return nil, err
		}
	}
	return g.result(c.f, fmt.Sprintf("attached %s to %d %s", name, len(c.ids), g.o.display()), g.o, c.ids), nil
}

func argValue(o *inputObj, k string) any {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i]
		}
	}
	return nil
}

// result writes an ActionResult.
func (g *group) result(a *cfield, msg string, o *object, ids []string) *omap {
	return objectOf(g.e.sub(a, tResult), tResult, func(f *cfield) any {
		switch f.name {
		case "message":
			return msg
		case "entities":
			sub := g.e.sub(f, tEntityRef)
			list := make([]any, 0, len(ids))
			for _, id := range ids {
				list = append(list, entityRef(sub, id, o.display()))
			}
			return list
		}
		return nil
	})
}

// list answers listEntities: the entities by id, in the group's order.
func (g *group) list(a *cfield, ids []string, path []any) (any, error) {
	e := g.e
	fields := e.sub(a, g.o.name)
	if len(ids) == 0 {
		return []any{}, nil
	}
	sel, err := e.selects(g.o, fields)
	if err != nil {
		return nil, err
	}
	in := make([]any, len(ids))
	for i, id := range ids {
		in[i] = id
	}
	q := &query.Query{From: g.o.st.Name, Select: sel, Order: g.order, NoLimit: true,
		Where: &query.Filter{Op: query.OpIn, Path: query.Path{Fields: []string{"platform/id"}}, Value: query.Value{Literal: in}}}
	rows, err := e.answerRows(g.tx.Querier(), q)
	if err != nil {
		return nil, err
	}
	ld := e.answerLoader()
	for _, r := range rows {
		e.need(g.o, fields, r, ld)
	}
	if err := ld.loadFrom(e.ctx, e.svc, g.tx.Querier(), g.tx.Attached()); err != nil {
		return nil, err
	}
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = e.entity(g.o, fields, r, append(path, i), ld)
	}
	return out, nil
}

// values converts create or update arguments into the store's entity map;
// relations and rich text are returned apart, applied once the entity
// exists.
func (g *group) values(o *object, args *inputObj) (map[string]any, map[*field]any, map[*field]string, error) {
	ent := map[string]any{}
	rels := map[*field]any{}
	rich := map[*field]string{}
	for i, k := range args.keys {
		fd := o.byName[k]
		if fd == nil {
			return nil, nil, nil, userErrorf("%s has no field %s", o.name, k)
		}
		v := args.vals[i]
		switch fd.kind {
		case kID:
			ent["platform/id"] = v
		case kScalar:
			if fd.sf != nil && fd.sf.Role != store.RolePrimitive {
				return nil, nil, nil, userErrorf("field %s is set by the store", k)
			}
			ent[fd.store] = literal(fd, v)
		case kJSON:
			if v == nil {
				ent[fd.store] = nil
				continue
			}
			s, _ := v.(string)
			var j any
			if err := json.Unmarshal([]byte(s), &j); err != nil {
				return nil, nil, nil, userErrorf("field %s takes JSON text: %v", k, err)
			}
			ent[fd.store] = j
		case kRange:
			ent[fd.store] = plain(v)
		case kRich:
			s, _ := v.(string)
			rich[fd] = s
		case kToOne, kList:
			rels[fd] = v
		}
	}
	return ent, rels, rich, nil
}

// create makes one entity of o from the arguments and returns its id.
func (g *group) create(o *object, args *inputObj) (string, error) {
	ent, rels, rich, err := g.values(o, args)
	if err != nil {
		return "", err
	}
	for fd, v := range rels {
		if fd.kind == kToOne {
			id, err := g.chooseOne(fd, v)
			if err != nil {
				return "", err
			}
			ent[fd.store] = id
			delete(rels, fd)
		}
	}
	res, err := g.tx.Create(o.st.Name, ent)
	if err != nil {
		return "", err
	}
	id, _ := res["platform/id"].(string)
	if err := g.tx.SetCreator(id, g.e.viewer.Email); err != nil {
		return "", err
	}
	for fd, v := range rels {
		targets, err := g.chooseAll(fd, v)
		if err != nil {
			return "", err
		}
		if err := g.tx.CollectionItems(o.st.Name, fd.store, id, toAny(targets), true); err != nil {
			return "", err
		}
	}
	for fd, md := range rich {
		if err := g.putRich(o, fd, map[string]string{id: md}); err != nil {
			return "", err
		}
	}
	return id, nil
}

// update sets the given fields of one entity; a list selector replaces the
// list's items.
func (g *group) update(o *object, id string, args *inputObj) error {
	ent, rels, rich, err := g.values(o, args)
	if err != nil {
		return err
	}
	if _, ok := ent["platform/id"]; ok {
		return userErrorf("update cannot change id")
	}
	for fd, v := range rels {
		if fd.kind == kToOne {
			if v == nil {
				ent[fd.store] = nil
			} else {
				tid, err := g.chooseOne(fd, v)
				if err != nil {
					return err
				}
				ent[fd.store] = tid
			}
			delete(rels, fd)
		}
	}
	ent["platform/id"] = id
	if _, err := g.tx.Update(o.st.Name, ent); err != nil {
		return err
	}
	for fd, v := range rels {
		var targets []string
		if v != nil {
			if targets, err = g.chooseAll(fd, v); err != nil {
				return err
			}
		}
		cur, err := g.linked(fd, []string{id}, nil)
		if err != nil {
			return err
		}
		if err := g.tx.CollectionItems(o.st.Name, fd.store, id, toAny(cur[id]), false); err != nil {
			return err
		}
		if err := g.tx.CollectionItems(o.st.Name, fd.store, id, toAny(targets), true); err != nil {
			return err
		}
	}
	for fd, md := range rich {
		if err := g.putRich(o, fd, map[string]string{id: md}); err != nil {
			return err
		}
	}
	return nil
}

func toAny(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// selector reads a selector input: its filter, order and limit.
func selector(o *object, v any) (*query.Filter, []query.Order, int, error) {
	obj, ok := v.(*inputObj)
	if !ok {
		return nil, nil, 0, userErrorf("a relation takes a selector object")
	}
	where, err := objectFilter(o, obj, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	order, err := orderBy(o, argValue(obj, "orderBy"), nil)
	if err != nil {
		return nil, nil, 0, err
	}
	limit := 0
	if n, ok := argValue(obj, "limit").(int64); ok {
		if n < 0 {
			return nil, nil, 0, userErrorf("limit must not be negative")
		}
		limit = int(min(n, MaxSelected))
	}
	return where, order, limit, nil
}

// chooseOne finds the first entity (or option) matching a selector.
func (g *group) chooseOne(fd *field, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	ids, err := g.chooseLimited(fd, v, 1)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, userErrorf("no %s matches the selector of %s", fd.target.name, fd.name)
	}
	return ids[0], nil
}

func (g *group) chooseAll(fd *field, v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	return g.chooseLimited(fd, v, 0)
}

func (g *group) chooseLimited(fd *field, v any, max int) ([]string, error) {
	where, order, limit, err := selector(fd.target, v)
	if err != nil {
		return nil, err
	}
	if max > 0 && (limit == 0 || limit > max) {
		limit = max
	}
	if limit == 0 {
		limit = MaxSelected
	}
	from := fd.target.st
	if fd.target.option {
		from = g.e.cat.Target(fd.sf)
	}
	tmp := &object{st: from, name: fd.target.name}
	return g.e.ids(g.tx.Querier(), tmp, where, order, limit, 0)
}

// choose reads the filter arguments of link<Relation>.
func (g *group) choose(fd *field, args *inputObj) ([]string, error) {
	return g.chooseAll(fd, args)
}

// link adds targets to the relation of entity id (a one-to-one field takes
// the first).
func (g *group) link(fd *field, id string, targets []string) error {
	holder := g.e.cat.Holder(fd.sf)
	if fd.kind == kToOne {
		if len(targets) == 0 {
			return nil
		}
		_, err := g.tx.Update(holder.Name, map[string]any{"platform/id": id, fd.store: targets[0]})
		return err
	}
	return g.tx.CollectionItems(holder.Name, fd.store, id, toAny(targets), true)
}

func (g *group) unlink(fd *field, id string, targets []string) error {
	holder := g.e.cat.Holder(fd.sf)
	if fd.kind == kToOne {
		_, err := g.tx.Update(holder.Name, map[string]any{"platform/id": id, fd.store: nil})
		return err
	}
	return g.tx.CollectionItems(holder.Name, fd.store, id, toAny(targets), false)
}

// linked returns, per entity, the ids of the related entities of fd that
// match where (all of them when where is nil).
func (g *group) linked(fd *field, ids []string, where *query.Filter) (map[string][]string, error) {
	out := map[string][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	holder := g.e.cat.Holder(fd.sf)
	idSel := []query.Select{{Kind: query.SelectField, Key: "id", Field: "platform/id"}}
	sel := query.Select{Kind: query.SelectCollection, Key: "r", Field: fd.store, Sub: idSel, Where: where}
	var cond *query.Filter
	if fd.kind == kToOne {
		sel = query.Select{Kind: query.SelectObject, Key: "r", Field: fd.store, Sub: idSel}
		if where != nil {
			cond = prefixFilter(where, fd.store)
		}
	}
	filter := &query.Filter{Op: query.OpIn, Path: query.Path{Fields: []string{"platform/id"}}, Value: query.Value{Literal: toAny(ids)}}
	if cond != nil {
		filter = and([]*query.Filter{filter, cond})
	}
	q := &query.Query{From: holder.Name, Select: []query.Select{idSel[0], sel}, Where: filter, NoLimit: true}
	rows, err := g.e.rows(g.tx.Querier(), q)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		id, _ := r["id"].(string)
		switch x := r["r"].(type) {
		case map[string]any:
			if s, ok := x["id"].(string); ok {
				out[id] = append(out[id], s)
			}
		case []any:
			for _, it := range x {
				if m, ok := it.(map[string]any); ok {
					if s, ok := m["id"].(string); ok {
						out[id] = append(out[id], s)
					}
				}
			}
		}
	}
	return out, nil
}

// prefixFilter moves a filter on a related type's fields under field name.
func prefixFilter(f *query.Filter, name string) *query.Filter {
	out := *f
	if f.Op == query.OpAnd || f.Op == query.OpOr {
		out.Sub = make([]*query.Filter, len(f.Sub))
		for i, s := range f.Sub {
			out.Sub[i] = prefixFilter(s, name)
		}
		return &out
	}
	out.Path.Fields = append([]string{name}, f.Path.Fields...)
	return &out
}

// delete removes one entity (and, in the store, what is attached to it).
func (g *group) delete(o *object, id string) error {
	return g.tx.Delete(o.st.Name, map[string]any{"platform/id": id})
}

func (g *group) addComment(id, md string) error {
	if err := checkText("the comment", len(md), MaxTextBytes); err != nil {
		return err
	}
	if err := g.e.charge(len(md)); err != nil {
		return err
	}
	return g.tx.AddComment(store.Comment{EntityID: id, Author: g.e.viewer.Email, Content: md, Created: g.e.now()})
}

// putRich overwrites the documents of a rich-text field.
func (g *group) putRich(o *object, fd *field, byID map[string]string) error {
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	secrets, err := g.tx.DocumentSecrets(o.st, fd.sf, ids)
	if err != nil {
		return err
	}
	contents := map[string]string{}
	for id, md := range byID {
		if s, ok := secrets[id]; ok {
			contents[s] = md
		}
	}
	return g.tx.PutDocuments(contents)
}

// richWrite is how a rich-text action writes its markdown.
type richWrite int

const (
	richAppend richWrite = iota
	richPrepend
	richOverwrite
)

// writeRich appends, prepends or overwrites a rich-text field.
func (g *group) writeRich(fd *field, ids []string, texts map[string]string, k richWrite) error {
	if len(ids) == 0 {
		return nil
	}
	secrets, err := g.tx.DocumentSecrets(g.o.st, fd.sf, ids)
	if err != nil {
		return err
	}
	// The current documents are read to be written again: what the
	// request may still write bounds them.
	left := int64(g.e.svc.cfg.MaxWriteBytes) - g.e.written
	ld := &loader{max: int(max(left, 1)), tooLarge: tooLargef("the %s documents to change are larger than the %d bytes one request may write; act on fewer entities per request", fd.name, g.e.svc.cfg.MaxWriteBytes)}
	for _, id := range ids {
		if s, ok := secrets[id]; ok {
			ld.wantDoc(s)
		}
	}
	if k != richOverwrite {
		if err := ld.loadFrom(g.e.ctx, g.e.svc, g.tx.Querier(), g.tx.Attached()); err != nil {
			return err
		}
	}
	contents := map[string]string{}
	for _, id := range ids {
		s, ok := secrets[id]
		if !ok {
			continue
		}
		cur := strings.TrimRight(ld.docs[strings.ToLower(s)], "\n")
		add := texts[id]
		n := len(add)
		if k != richOverwrite && cur != "" {
			n += len(cur) + 2
		}
		if err := checkText(fmt.Sprintf("the %s document", fd.name), n, MaxTextBytes); err != nil {
			return err
		}
		if err := g.e.charge(n); err != nil {
			return err
		}
		switch {
		case k == richOverwrite || cur == "":
			contents[s] = add
		case k == richAppend:
			contents[s] = cur + "\n\n" + add
		default:
			contents[s] = add + "\n\n" + cur
		}
	}
	return g.tx.PutDocuments(contents)
}

// Text templates: {{field}}, {{field.sub}} through one-to-one fields, and
// {{me.email}}.
var refPattern = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

// fill renders a template for each entity.
func (g *group) fill(tpl string, ids []string) (map[string]string, error) {
	return g.fillMax(tpl, ids, MaxTextBytes)
}

// fillMax is fill with the filled texts bounded to max bytes each: the
// filling stops as soon as a text passes it.
func (g *group) fillMax(tpl string, ids []string, max int) (map[string]string, error) {
	if err := checkTemplate(tpl); err != nil {
		return nil, err
	}
	if err := checkText("the filled text", len(tpl), max); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ids))
	refs := refPattern.FindAllStringSubmatch(tpl, -1)
	if len(refs) == 0 {
		for _, id := range ids {
			out[id] = tpl
		}
		return out, nil
	}
	// One query reads every reference of every entity.
	type ref struct {
		key  string
		path []*field
	}
	var sels []query.Select
	byText := map[string]*ref{}
	for i, m := range refs {
		text := m[1]
		if _, ok := byText[text]; ok || text == "me.email" {
			continue
		}
		parts := strings.Split(text, ".")
		r := &ref{key: fmt.Sprintf("r%d", i)}
		o := g.o
		for j, p := range parts {
			fd := o.byName[p]
			if fd == nil {
				return nil, userErrorf("template reference {{%s}}: %s has no field %s", text, o.name, p)
			}
			last := j == len(parts)-1
			if !last && fd.kind != kToOne {
				return nil, userErrorf("template reference {{%s}}: %s is not a one-to-one field", text, p)
			}
			if last && fd.kind != kID && fd.kind != kScalar && fd.kind != kJSON {
				return nil, userErrorf("template reference {{%s}}: %s is not a plain value", text, p)
			}
			r.path = append(r.path, fd)
			if !last {
				o = fd.target
			}
		}
		sel := query.Select{Kind: query.SelectField, Key: "v", Field: r.path[len(r.path)-1].store}
		for j := len(r.path) - 2; j >= 0; j-- {
			sel = query.Select{Kind: query.SelectObject, Key: "v", Field: r.path[j].store, Sub: []query.Select{sel}}
		}
		sel.Key = r.key
		sels = append(sels, sel)
		byText[text] = r
	}
	vals := map[string]map[string]any{}
	if len(sels) > 0 && len(ids) > 0 {
		q := &query.Query{From: g.o.st.Name, NoLimit: true,
			Select: append([]query.Select{{Kind: query.SelectField, Key: "id", Field: "platform/id"}}, sels...),
			Where:  &query.Filter{Op: query.OpIn, Path: query.Path{Fields: []string{"platform/id"}}, Value: query.Value{Literal: toAny(ids)}}}
		rows, err := g.e.rows(g.tx.Querier(), q)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			id, _ := r["id"].(string)
			vals[id] = r
		}
	}
	locs := refPattern.FindAllStringIndex(tpl, -1)
	total := int64(0) // the filled texts are held before they are written
	for _, id := range ids {
		row := vals[id]
		value := func(m string) string {
			text := strings.TrimSpace(m[2 : len(m)-2])
			if text == "me.email" {
				return g.e.viewer.Email
			}
			r := byText[text]
			if r == nil || row == nil {
				return ""
			}
			v := row[r.key]
			for range r.path[:len(r.path)-1] {
				mm, _ := v.(map[string]any)
				if mm == nil {
					return ""
				}
				v = mm["v"]
			}
			if v == nil {
				return ""
			}
			if raw, ok := v.(json.RawMessage); ok {
				return string(raw)
			}
			return fmt.Sprint(v)
		}
		var b strings.Builder
		last := 0
		for _, l := range locs {
			b.WriteString(tpl[last:l[0]])
			b.WriteString(value(tpl[l[0]:l[1]]))
			last = l[1]
			if err := checkText("the filled text", b.Len()+len(tpl)-last, max); err != nil {
				return nil, err
			}
		}
		b.WriteString(tpl[last:])
		out[id] = b.String()
		if total += int64(b.Len()); g.e.written+total > int64(g.e.svc.cfg.MaxWriteBytes) {
			return nil, tooLargef("the texts filled for %d entities would be larger than %d bytes; act on fewer entities per request", len(ids), g.e.svc.cfg.MaxWriteBytes)
		}
	}
	return out, nil
}

// now is the current time in Unix milliseconds.
func (e *executor) now() int64 { return time.Now().UnixMilli() }

// finalState finds the final option of a workflow field: the option named
// by the field's workflow/final-state meta, else the one ranked last.
func (g *group) finalState(fd *field) (string, string, error) {
	enum := g.e.cat.Target(fd.sf)
	q := &query.Query{From: enum.Name, Limit: 1,
		Select: []query.Select{{Kind: query.SelectField, Key: "id", Field: "platform/id"}, {Kind: query.SelectField, Key: "name", Field: "enum/name"}},
		Order:  []query.Order{{Path: query.Path{Fields: []string{"platform/rank"}}, Desc: true}}}
	if named, _ := fd.sf.Meta["workflow/final-state"].(string); named != "" {
		q.Where = &query.Filter{Op: query.OpEq, Path: query.Path{Fields: []string{"enum/name"}}, Value: query.Value{Literal: named}}
	}
	rows, err := g.e.rows(g.tx.Querier(), q)
	if err != nil {
		return "", "", err
	}
	if len(rows) == 0 {
		return "", "", userErrorf("the workflow field %s has no final state", fd.name)
	}
	id, _ := rows[0]["id"].(string)
	name, _ := rows[0]["name"].(string)
	return id, name, nil
}
