package graphql

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// executor runs one validated operation.
type executor struct {
	svc    *Service
	sch    *spaceSchema
	doc    *ast.QueryDocument
	vars   map[string]any
	viewer Viewer
	ctx    context.Context
	st     *store.Store
	cat    *store.Catalog
	errs   []*Error
	// subs caches the merged sub-selections of each response key.
	subs map[*cfield][]*cfield
	// answer is what the answer's data may still grow by (Config.MaxAnswerBytes);
	// negative once a field crossed it.
	answer *query.Budget
	// written is what the request's mutations wrote (Config.MaxWriteBytes).
	written int64
}

// cfield is one response key of a selection set: the fields selected under
// it (several when a field is selected twice, or through fragments).
type cfield struct {
	key    string
	name   string
	fields []*ast.Field
}

func (c *cfield) first() *ast.Field { return c.fields[0] }

// collect groups the fields of a selection set by response key, following
// fragments and applying @skip and @include.
// rows compiles q against the request's catalog and runs it on db (the
// store, or a mutation group's transaction).
func (e *executor) rows(db store.Querier, q *query.Query) ([]map[string]any, error) {
	plan, err := query.Compile(e.cat, e.st.Dialect(), q, nil)
	if err != nil {
		return nil, err
	}
	return plan.Run(e.ctx, db)
}

// answerRows is rows for a read whose rows go into the answer: the query
// stops as soon as its result would not fit in what is left of the answer.
func (e *executor) answerRows(db store.Querier, q *query.Query) ([]map[string]any, error) {
	plan, err := query.Compile(e.cat, e.st.Dialect(), q, nil)
	if err != nil {
		return nil, err
	}
	rows, _, err := e.answer.Run(e.ctx, db, plan)
	return rows, err
}

// answerLoader is a loader for what goes into the answer: it reads at most
// what is left of the answer.
func (e *executor) answerLoader() *loader {
	return &loader{max: max(e.answer.Left(), 1), tooLarge: e.answer.Err()}
}

// spend counts the key and value of a field of the answer against what is
// left of it.
func (e *executor) spend(key string, v any) error {
	return e.answer.Spend(answerSize(key) + 1 + answerSize(v))
}

func (e *executor) collect(set ast.SelectionSet, typeName string, out []*cfield, visited map[string]bool) []*cfield {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if !e.included(s.Directives) {
				continue
			}
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			found := false
			for _, c := range out {
				if c.key == key {
					c.fields = append(c.fields, s)
					found = true
					break
				}
			}
			if !found {
				out = append(out, &cfield{key: key, name: s.Name, fields: []*ast.Field{s}})
			}
		case *ast.InlineFragment:
			if !e.included(s.Directives) || (s.TypeCondition != "" && s.TypeCondition != typeName) {
				continue
			}
			out = e.collect(s.SelectionSet, typeName, out, visited)
		case *ast.FragmentSpread:
			if !e.included(s.Directives) || visited[s.Name] {
				continue
			}
			frag := e.doc.Fragments.ForName(s.Name)
			if frag == nil || frag.TypeCondition != typeName {
				continue
			}
			visited[s.Name] = true
			out = e.collect(frag.SelectionSet, typeName, out, visited)
		}
	}
	return out
}

// sub collects the merged sub-selections of a response key.
func (e *executor) sub(c *cfield, typeName string) []*cfield {
	if out, ok := e.subs[c]; ok {
		return out
	}
	var out []*cfield
	for _, f := range c.fields {
		out = e.collect(f.SelectionSet, typeName, out, map[string]bool{})
	}
	if e.subs == nil {
		e.subs = map[*cfield][]*cfield{}
	}
	e.subs[c] = out
	return out
}

func (e *executor) included(ds ast.DirectiveList) bool {
	for _, d := range ds {
		if d.Name != "skip" && d.Name != "include" {
			continue
		}
		v := true
		if a := d.Arguments.ForName("if"); a != nil {
			b, _ := value(a.Value, e.vars).(bool)
			v = b
		}
		if d.Name == "skip" && v {
			return false
		}
		if d.Name == "include" && !v {
			return false
		}
	}
	return true
}

// fail records an error of the field at path.
func (e *executor) fail(f *ast.Field, path []any, msg string, c string) {
	ge := &Error{Message: msg, Path: append([]any(nil), path...), Extensions: code(c)}
	if f != nil && f.Position != nil {
		ge.Locations = []Location{{Line: f.Position.Line, Column: f.Position.Column}}
	}
	e.errs = append(e.errs, ge)
}

// failErr records err: store errors by their message and name, deadline as a
// timeout, anything else as an internal error (its cause goes to OnError).
func (e *executor) failErr(f *ast.Field, path []any, err error) {
	var ue *userError
	var wl *writeTooLarge
	if errors.Is(err, query.ErrAnswerTooLarge) {
		e.fail(f, path, fmt.Sprintf("the answer would be larger than %d bytes; select fewer fields or page through finds with limit and offset", e.svc.cfg.MaxAnswerBytes), "ANSWER_TOO_LARGE")
		return
	}
	if se, ok := store.AsError(err); ok {
		ge := &Error{Message: se.Message, Path: append([]any(nil), path...), Extensions: map[string]any{"code": se.Name}}
		if f != nil && f.Position != nil {
			ge.Locations = []Location{{Line: f.Position.Line, Column: f.Position.Column}}
		}
		e.errs = append(e.errs, ge)
		return
	}
	switch {
	case errors.As(err, &ue):
		e.fail(f, path, ue.msg, "BAD_USER_INPUT")
	case errors.As(err, &wl):
		e.fail(f, path, wl.msg, "WRITE_TOO_LARGE")
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(e.ctx.Err(), context.DeadlineExceeded):
		e.fail(f, path, fmt.Sprintf("the request took longer than %s and was stopped", e.svc.cfg.Timeout), "TIMEOUT")
	case errors.Is(err, context.Canceled):
		e.fail(f, path, "the request was cancelled", "CANCELLED")
	default:
		if e.svc.cfg.OnError != nil {
			e.svc.cfg.OnError(e.ctx, err)
		}
		e.fail(f, path, "internal error", "INTERNAL_SERVER_ERROR")
	}
}

// userError is a mistake in the request found while executing it.
type userError struct{ msg string }

func (u *userError) Error() string { return u.msg }

func userErrorf(format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...)}
}

// operation runs the operation and returns its data.
func (e *executor) operation(op *ast.OperationDefinition) *omap {
	root := "Query"
	if op.Operation == ast.Mutation {
		root = "Mutation"
	}
	fields := e.collect(op.SelectionSet, root, nil, map[string]bool{})
	data := newOmap(len(fields))
	for _, c := range fields {
		if e.ctx.Err() != nil {
			e.failErr(c.first(), []any{c.key}, e.ctx.Err())
			data.set(c.key, nil)
			continue
		}
		if e.answer.Over() {
			e.failErr(c.first(), []any{c.key}, e.answer.Err())
			data.set(c.key, nil)
			continue
		}
		path := []any{c.key}
		var v any
		switch {
		case c.name == "__typename":
			v = root
		case c.name == "__schema" || c.name == "__type":
			v = e.introspect(c, path)
		case op.Operation == ast.Mutation:
			v = e.mutationGroup(c, path)
		case c.name == "me":
			if m := e.me(c); m != nil {
				v = m
			}
		default:
			o := e.sch.finds[c.name]
			if o == nil {
				e.fail(c.first(), path, "unknown field "+c.name, "GRAPHQL_VALIDATION_FAILED")
				break
			}
			rows, err := e.find(o, c, path)
			if err != nil {
				e.failErr(c.first(), path, err)
				break
			}
			v = rows
		}
		spent := v
		if op.Operation == ast.Mutation {
			spent = nil // a group's actions are counted as they run
		}
		if err := e.spend(c.key, spent); err != nil {
			e.failErr(c.first(), []any{c.key}, err)
			v = nil
		}
		data.set(c.key, v)
	}
	return data
}

func (e *executor) me(c *cfield) *omap {
	return objectOf(e.sub(c, tMe), tMe, func(f *cfield) any {
		switch f.name {
		case "email":
			return e.viewer.Email
		case "notifications":
			list, err := e.notifications(f)
			if err != nil {
				e.failErr(f.first(), []any{c.key, f.key}, err)
				return nil
			}
			return list
		}
		return nil
	})
}

// idKey is the result key of the id every entity object reads (for
// comments); GraphQL keys never start with '#'.
const idKey = "#id"

// secretKey is the key of a document's secret under a rich-text object.
const secretKey = "s"

// find runs find<Databases>: one compiled query.
func (e *executor) find(o *object, c *cfield, path []any) ([]any, error) {
	f := c.first()
	q := &query.Query{From: o.st.Name}
	fields := e.sub(c, o.name)
	sel, err := e.selects(o, fields)
	if err != nil {
		return nil, err
	}
	q.Select = sel
	where, order, limit, offset, err := e.listArgs(o, f, true)
	if err != nil {
		return nil, err
	}
	q.Where, q.Order, q.Limit, q.Offset = where, order, limit, offset
	if limit == 0 {
		return []any{}, nil
	}
	rows, err := e.answerRows(e.st.DB(), q)
	if err != nil {
		return nil, err
	}
	return e.shape(o, fields, rows, path)
}

// shape turns query rows into the answer's objects, loading what the rows
// point at (documents, comments) first.
func (e *executor) shape(o *object, fields []*cfield, rows []map[string]any, path []any) ([]any, error) {
	ld := e.answerLoader()
	for _, r := range rows {
		e.need(o, fields, r, ld)
	}
	if err := ld.load(e.ctx, e.svc); err != nil {
		return nil, err
	}
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = e.entity(o, fields, r, append(path, i), ld)
	}
	return out, nil
}

// selects builds the select list of an object's selection.
func (e *executor) selects(o *object, fields []*cfield) ([]query.Select, error) {
	out := make([]query.Select, 0, len(fields)+1)
	for _, c := range fields {
		if !o.option && (c.name == "comments" || c.name == "files" || c.name == "assignees") {
			// What the API keeps by entity id is read after the query.
			out = append(out, query.Select{Kind: query.SelectField, Key: idKey, Field: "platform/id"})
			break
		}
	}
	for _, c := range fields {
		f := o.byName[c.name]
		if f == nil {
			continue // __typename, comments
		}
		switch f.kind {
		case kID, kScalar, kJSON, kRange:
			out = append(out, query.Select{Kind: query.SelectField, Key: c.key, Field: f.store})
		case kRich:
			out = append(out, query.Select{Kind: query.SelectObject, Key: c.key, Field: f.store,
				Sub: []query.Select{{Kind: query.SelectField, Key: secretKey, Field: store.DocumentSecret}}})
		case kToOne:
			sub, err := e.selects(f.target, e.sub(c, f.target.name))
			if err != nil {
				return nil, err
			}
			out = append(out, query.Select{Kind: query.SelectObject, Key: c.key, Field: f.store, Sub: sub})
		case kList:
			sub, err := e.selects(f.target, e.sub(c, f.target.name))
			if err != nil {
				return nil, err
			}
			where, order, limit, _, err := e.listArgs(f.target, c.first(), false)
			if err != nil {
				return nil, err
			}
			if limit < 0 { // limit: 0 — no items
				limit = 0
				where = &query.Filter{Op: query.OpIsNull, Path: query.Path{Fields: []string{"platform/id"}}}
			}
			out = append(out, query.Select{Kind: query.SelectCollection, Key: c.key, Field: f.store, Sub: sub, Where: where, Order: order, Limit: limit})
		}
	}
	if len(out) == 0 { // only __typename: the query model needs a column
		out = append(out, query.Select{Kind: query.SelectField, Key: idKey, Field: "platform/id"})
	}
	return out, nil
}

// listArgs reads the filter, orderBy, limit and offset arguments of a find
// (top) or an inner list. An inner list without limit returns all items
// (limit 0).
func (e *executor) listArgs(o *object, f *ast.Field, top bool) (*query.Filter, []query.Order, int, int, error) {
	var conds []*query.Filter
	var order []query.Order
	limit, offset := 0, 0
	if top {
		limit = DefaultLimit
	}
	for _, a := range f.Arguments {
		v := value(a.Value, e.vars)
		if depth(v) > MaxInputDepth {
			return nil, nil, 0, 0, userErrorf("argument %s nests deeper than %d levels", a.Name, MaxInputDepth)
		}
		if _, skip := v.(absent); skip {
			if a.Name == "limit" && top {
				limit = DefaultLimit
			}
			continue
		}
		switch a.Name {
		case "limit":
			if v == nil {
				if !top {
					limit = 0
				}
				continue
			}
			n, _ := v.(int64)
			if n < 0 {
				return nil, nil, 0, 0, userErrorf("limit must not be negative")
			}
			if n > query.MaxResultRows {
				return nil, nil, 0, 0, userErrorf("limit must be at most %d", query.MaxResultRows)
			}
			limit = int(n)
			if !top && n == 0 {
				limit = -1 // an inner list of no items
			}
		case "offset":
			n, _ := v.(int64)
			if n < 0 {
				return nil, nil, 0, 0, userErrorf("offset must not be negative")
			}
			if n > 1<<31 {
				return nil, nil, 0, 0, userErrorf("offset is too large")
			}
			offset = int(n)
		case "orderBy":
			ord, err := orderBy(o, v, nil)
			if err != nil {
				return nil, nil, 0, 0, err
			}
			order = ord
		default:
			fd := o.byName[a.Name]
			if fd == nil {
				return nil, nil, 0, 0, userErrorf("unknown argument %s", a.Name)
			}
			c, err := fieldFilter(fd, v, nil)
			if err != nil {
				return nil, nil, 0, 0, err
			}
			if c != nil {
				conds = append(conds, c)
			}
		}
	}
	return and(conds), order, limit, offset, nil
}

// MaxInputDepth bounds the nesting of one argument's value (filters through
// relations and inner lists nest SQL sub-queries).
const MaxInputDepth = 24

// depth is the nesting of an input value: 0 for a scalar.
func depth(v any) int {
	d := 0
	switch x := v.(type) {
	case *inputObj:
		for _, e := range x.vals {
			d = max(d, depth(e))
		}
		return d + 1
	case []any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

func and(conds []*query.Filter) *query.Filter { return join(query.OpAnd, conds) }

func or(conds []*query.Filter) *query.Filter { return join(query.OpOr, conds) }

// join combines conds with op: nil for none, the one condition alone.
func join(op query.Op, conds []*query.Filter) *query.Filter {
	switch len(conds) {
	case 0:
		return nil
	case 1:
		return conds[0]
	}
	return &query.Filter{Op: op, Sub: conds}
}

func extend(prefix []string, name string) []string {
	out := make([]string, len(prefix)+1)
	copy(out, prefix)
	out[len(prefix)] = name
	return out
}

// objectFilter is the filter of an input object of conditions on o's fields.
func objectFilter(o *object, v any, prefix []string) (*query.Filter, error) {
	obj, ok := v.(*inputObj)
	if !ok {
		return nil, nil
	}
	var conds []*query.Filter
	for i, k := range obj.keys {
		fd := o.byName[k]
		if fd == nil {
			continue // orderBy and limit of a selector
		}
		c, err := fieldFilter(fd, obj.vals[i], prefix)
		if err != nil {
			return nil, err
		}
		if c != nil {
			conds = append(conds, c)
		}
	}
	return and(conds), nil
}

// scalarOps maps the operators of scalar filters to the query model's.
var scalarOps = map[string]query.Op{
	"is": query.OpEq, "isNot": query.OpNe, "contains": query.OpContains, "notContains": query.OpNotContains,
	"greater": query.OpGt, "greaterOrEquals": query.OpGe, "less": query.OpLt, "lessOrEquals": query.OpLe,
	"in": query.OpIn, "notIn": query.OpNotIn,
}

// fieldFilter is the condition on one field.
func fieldFilter(fd *field, v any, prefix []string) (*query.Filter, error) {
	if v == nil {
		return nil, nil
	}
	obj, ok := v.(*inputObj)
	if !ok {
		return nil, nil
	}
	path := extend(prefix, fd.store)
	switch fd.kind {
	case kID, kScalar:
		return scalarFilter(obj, query.Path{Fields: path}, fd)
	case kRange:
		var conds []*query.Filter
		for i, k := range obj.keys {
			switch k {
			case "start", "end":
				inner, ok := obj.vals[i].(*inputObj)
				if !ok {
					continue
				}
				part := query.PartStart
				if k == "end" {
					part = query.PartEnd
				}
				c, err := scalarFilter(inner, query.Path{Fields: path, Part: part}, fd)
				if err != nil {
					return nil, err
				}
				if c != nil {
					conds = append(conds, c)
				}
			case "isNull":
				if b, ok := obj.vals[i].(bool); ok {
					conds = append(conds, isNull(path, b))
				}
			}
		}
		return and(conds), nil
	case kToOne:
		return objectFilter(fd.target, obj, path)
	case kList:
		var conds []*query.Filter
		for i, k := range obj.keys {
			val := obj.vals[i]
			if val == nil {
				continue
			}
			if k == "isEmpty" {
				if b, ok := val.(bool); ok {
					conds = append(conds, isNull(path, b))
				}
				continue
			}
			var items []*query.Filter
			for _, it := range listOf(val) {
				sub, err := objectFilter(fd.target, it, nil)
				if err != nil {
					return nil, err
				}
				items = append(items, sub)
			}
			if len(items) == 0 {
				continue
			}
			some := func(sub *query.Filter, none bool) *query.Filter {
				if sub == nil { // any item at all
					return isNull(path, none)
				}
				op := query.OpSome
				if none {
					op = query.OpNone
				}
				return &query.Filter{Op: op, Path: query.Path{Fields: path}, Sub: []*query.Filter{sub}}
			}
			var parts []*query.Filter
			switch k {
			case "contains": // every condition is met by some item
				for _, it := range items {
					parts = append(parts, some(it, false))
				}
				conds = append(conds, and(parts))
			case "containsAny": // some condition is met by some item
				for _, it := range items {
					parts = append(parts, some(it, false))
				}
				conds = append(conds, or(parts))
			case "notContains": // not (every condition met) = some condition met by no item
				for _, it := range items {
					parts = append(parts, some(it, true))
				}
				conds = append(conds, or(parts))
			case "notContainsAny": // no condition met by any item
				for _, it := range items {
					parts = append(parts, some(it, true))
				}
				conds = append(conds, and(parts))
			}
		}
		return and(conds), nil
	}
	return nil, nil
}

func isNull(path []string, null bool) *query.Filter {
	op := query.OpIsNotNull
	if null {
		op = query.OpIsNull
	}
	return &query.Filter{Op: op, Path: query.Path{Fields: path}}
}

// scalarFilter is the conditions of a String/Int/Float/Boolean/ID filter.
func scalarFilter(obj *inputObj, path query.Path, fd *field) (*query.Filter, error) {
	var conds []*query.Filter
	for i, k := range obj.keys {
		v := obj.vals[i]
		if k == "isNull" {
			if b, ok := v.(bool); ok {
				conds = append(conds, &query.Filter{Op: map[bool]query.Op{true: query.OpIsNull, false: query.OpIsNotNull}[b], Path: path})
			}
			continue
		}
		op, ok := scalarOps[k]
		if !ok {
			return nil, userErrorf("unknown operator %s", k)
		}
		if v == nil && op != query.OpEq && op != query.OpNe {
			continue // no condition
		}
		if op == query.OpIn || op == query.OpNotIn {
			l := listOf(v)
			if l == nil {
				l = []any{}
			}
			v = l
		}
		conds = append(conds, &query.Filter{Op: op, Path: path, Value: query.Value{Literal: literal(fd, v)}})
	}
	return and(conds), nil
}

// literal adapts a GraphQL input value to what the store expects for the
// field (decimals as exact text).
func literal(fd *field, v any) any {
	if arr, ok := v.([]any); ok {
		out := make([]any, len(arr))
		for i, e := range arr {
			out[i] = literal(fd, e)
		}
		return out
	}
	if fd.prim == store.TDecimal {
		switch x := v.(type) {
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64)
		case int64:
			return strconv.FormatInt(x, 10)
		}
	}
	return v
}

// orderBy reads an orderBy value: one object or a list of objects of
// field → direction (or, for one-to-one fields, a nested object).
func orderBy(o *object, v any, prefix []string) ([]query.Order, error) {
	var out []query.Order
	for _, item := range listOf(v) {
		obj, ok := item.(*inputObj)
		if !ok {
			continue
		}
		keys := obj.keys
		vals := obj.vals
		if obj.fromVar {
			keys, vals = schemaOrder(o, obj)
		}
		for i, k := range keys {
			fd := o.byName[k]
			if fd == nil || vals[i] == nil {
				continue
			}
			path := extend(prefix, fd.store)
			switch fd.kind {
			case kToOne:
				sub, err := orderBy(fd.target, vals[i], path)
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
			default:
				dir, _ := vals[i].(string)
				p := query.Path{Fields: path}
				if fd.kind == kRange {
					p.Part = query.PartStart
				}
				out = append(out, query.Order{Path: p, Desc: dir == "DESC"})
			}
		}
	}
	return out, nil
}

// schemaOrder sorts the keys of an object from a variable by the order of
// o's fields.
func schemaOrder(o *object, obj *inputObj) ([]string, []any) {
	var keys []string
	var vals []any
	for _, f := range o.fields {
		for i, k := range obj.keys {
			if k == f.name {
				keys = append(keys, k)
				vals = append(vals, obj.vals[i])
			}
		}
	}
	return keys, vals
}

// need records the documents and comments the rows point at.
func (e *executor) need(o *object, fields []*cfield, row map[string]any, ld *loader) {
	if row == nil {
		return
	}
	for _, c := range fields {
		if (c.name == "comments" || c.name == "files" || c.name == "assignees") && !o.option {
			if id, ok := row[idKey].(string); ok {
				ld.wantEntity(id)
			}
			continue
		}
		f := o.byName[c.name]
		if f == nil {
			continue
		}
		switch f.kind {
		case kRich:
			if m, ok := row[c.key].(map[string]any); ok {
				if s, ok := m[secretKey].(string); ok {
					ld.wantDoc(s)
				}
			}
		case kToOne:
			if m, ok := row[c.key].(map[string]any); ok {
				e.need(f.target, e.sub(c, f.target.name), m, ld)
			}
		case kList:
			if arr, ok := row[c.key].([]any); ok {
				sub := e.sub(c, f.target.name)
				for _, it := range arr {
					if m, ok := it.(map[string]any); ok {
						e.need(f.target, sub, m, ld)
					}
				}
			}
		}
	}
}

// entity writes one entity of the answer.
func (e *executor) entity(o *object, fields []*cfield, row map[string]any, path []any, ld *loader) *omap {
	m := newOmap(len(fields))
	for _, c := range fields {
		if c.name == "__typename" {
			m.set(c.key, o.name)
			continue
		}
		if c.name == "comments" && !o.option {
			id, _ := row[idKey].(string)
			m.set(c.key, e.comments(c, ld.comments[id], extend2(path, c.key)))
			continue
		}
		if c.name == "files" && !o.option {
			id, _ := row[idKey].(string)
			m.set(c.key, e.fileList(c, ld.files[id]))
			continue
		}
		if c.name == "assignees" && !o.option {
			id, _ := row[idKey].(string)
			list := make([]any, 0, len(ld.assignees[id]))
			for _, a := range ld.assignees[id] {
				list = append(list, a)
			}
			m.set(c.key, list)
			continue
		}
		f := o.byName[c.name]
		if f == nil {
			m.set(c.key, nil)
			continue
		}
		v := row[c.key]
		switch f.kind {
		case kID, kScalar:
			if f.prim == store.TDecimal {
				if s, ok := v.(string); ok {
					v = rawNumber(s)
				}
			}
			m.set(c.key, v)
		case kJSON:
			if raw, ok := v.([]byte); ok {
				v = string(raw)
			}
			if raw, ok := v.(interface{ MarshalJSON() ([]byte, error) }); ok && v != nil {
				b, _ := raw.MarshalJSON()
				v = string(b)
			}
			m.set(c.key, v)
		case kRange:
			rm, _ := v.(map[string]any)
			if rm == nil {
				m.set(c.key, nil)
				continue
			}
			m.set(c.key, objectOf(e.sub(c, tDateRange), tDateRange, func(s *cfield) any { return rm[s.name] }))
		case kRich:
			rm, _ := v.(map[string]any)
			secret, _ := rm[secretKey].(string)
			if rm == nil || secret == "" {
				m.set(c.key, nil)
				continue
			}
			m.set(c.key, e.rich(c, tRichText, ld.docs[strings.ToLower(secret)], nil, extend2(path, c.key)))
		case kToOne:
			rm, _ := v.(map[string]any)
			if rm == nil {
				m.set(c.key, nil)
				continue
			}
			m.set(c.key, e.entity(f.target, e.sub(c, f.target.name), rm, extend2(path, c.key), ld))
		case kList:
			arr, _ := v.([]any)
			sub := e.sub(c, f.target.name)
			items := make([]any, 0, len(arr))
			for i, it := range arr {
				im, _ := it.(map[string]any)
				items = append(items, e.entity(f.target, sub, im, append(extend2(path, c.key), i), ld))
			}
			m.set(c.key, items)
		}
	}
	return m
}

func extend2(path []any, k any) []any {
	out := make([]any, len(path)+1)
	copy(out, path)
	out[len(path)] = k
	return out
}
