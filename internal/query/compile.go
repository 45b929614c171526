package query

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/appkitgo/appkit/internal/store"
)

// MaxArgs bounds the values one query binds (both engines cap placeholders).
const MaxArgs = 30000

// Bounds of one query's result (see the package documentation).
const (
	// MaxResultRows is the most objects one result holds: its rows plus
	// the items of every collection sub-select at every depth.
	MaxResultRows = 100000
	// MaxResultBytes is the largest result, measured as its JSON encoding.
	MaxResultBytes = 32 << 20
	// MaxAnswerBytes is the largest answer of one request of the host's
	// APIs (a command API request, a GraphQL request), measured as its JSON
	// encoding: the bound on everything the results of one request add up
	// to, where MaxResultBytes bounds one query.
	MaxAnswerBytes = 32 << 20
)

// NameTooLarge names the refusal of a query whose result would cross
// MaxResultRows or MaxResultBytes (or the lower bounds a Plan was given).
const NameTooLarge = "query.error/too-large"

// ErrTooLarge matches (errors.Is) every refusal named NameTooLarge.
var ErrTooLarge = &store.Error{Name: NameTooLarge}

// Plan is a compiled query: one SQL statement, its bound arguments and the
// shape that turns rows into result objects.
type Plan struct {
	// SQL is the statement for the store's dialect.
	SQL string
	// Args are the bound values, in placeholder order.
	Args []any
	// MaxRows and MaxBytes bound the result Run returns (rows plus
	// collection items, and its JSON size). Compile sets them to
	// MaxResultRows and MaxResultBytes; a caller may lower them. Zero or
	// less means the default.
	MaxRows, MaxBytes int
	// CountSQL, when set, counts the objects of the result (rows plus
	// collection items) without building it; Run runs it first so that a
	// query whose collections nest inside collections is refused before the
	// database builds the result. CountArgs are its bound values.
	CountSQL  string
	CountArgs []any
	// steps are counting statements of the result cut at growing depths of
	// collections (the first counts the rows and the outermost collections'
	// items, the next one level more, ...), run before CountSQL: each one
	// enumerates only what the one before it found within the bound, so
	// counting a result that multiplies costs at most its depth times the
	// bound instead of the whole product.
	steps  []countStep
	shapes []shape
	ncols  int
}

type shapeKind int

const (
	shScalar shapeKind = iota
	shRange
	shRef
	shObject
	shCollection
	shAggregate
)

type shape struct {
	key   string
	kind  shapeKind
	prim  string
	jkey  string // key inside a JSON object (nested mode); range: jkey+"s", jkey+"e"
	sub   []shape
	ncols int // columns at top level
}

type compiler struct {
	cat    *store.Catalog
	d      store.Dialect
	params map[string]any
	n      int
	// colls is the depth of collection sub-selects being compiled; fanOut
	// records a collection inside a collection (results that multiply).
	colls  int
	fanOut bool
}

// scope is one table alias of a type with the join list it adds to.
type scope struct {
	ty    *store.Type
	alias string
	joins *[]string
	seen  map[string]*scope
}

// sqlPart is SQL text with its arguments.
type sqlPart struct {
	strings.Builder
	args []any
}

func (p *sqlPart) arg(v any) {
	p.WriteString("?")
	p.args = append(p.args, v)
}

func (p *sqlPart) add(o *sqlPart) {
	p.WriteString(o.String())
	p.args = append(p.args, o.args...)
}

// wrap adds o as rewritten by f, a [store.Dialect] method that writes its
// argument once, so o's placeholders keep their order.
func (p *sqlPart) wrap(o *sqlPart, f func(string) string) {
	p.WriteString(f(o.String()))
	p.args = append(p.args, o.args...)
}

// from writes the FROM clause of the top-level scope base: its table, the
// joins its fields added, and the WHERE clause of where unless it is nil.
func (p *sqlPart) from(base *scope, where *sqlPart) {
	p.WriteString(" FROM " + base.ty.Table + " " + base.alias)
	p.joins(base)
	if where != nil {
		p.WriteString(" WHERE ")
		p.add(where)
	}
}

// joins writes the joins the fields of scope s added.
func (p *sqlPart) joins(s *scope) {
	for _, j := range *s.joins {
		p.WriteString(" " + j)
	}
}

// itemsWhere writes the joins of the items' scope t and their WHERE clause:
// the correlation corr with their owner and, unless nil, their filter where.
func (p *sqlPart) itemsWhere(t *scope, corr string, where *sqlPart) {
	p.joins(t)
	p.WriteString(" WHERE " + corr)
	if where != nil {
		p.WriteString(" AND (")
		p.add(where)
		p.WriteString(")")
	}
}

// checkArgs fails a statement that binds more than MaxArgs values.
func (p *sqlPart) checkArgs() error {
	if len(p.args) > MaxArgs {
		return store.Errorf(store.NameInvalidParam, nil, "the query binds %d values; at most %d", len(p.args), MaxArgs)
	}
	return nil
}

func qerr(format string, args ...any) error {
	return store.Errorf(store.NameQueryInvalid, nil, format, args...)
}

// Compile checks q against the catalog and compiles it into one SQL statement
// for dialect d. params holds the values of $parameters by name (without "$").
func Compile(cat *store.Catalog, d store.Dialect, q *Query, params map[string]any) (*Plan, error) {
	c := &compiler{cat: cat, d: d, params: params}
	ty := cat.Type(q.From)
	if ty == nil {
		return nil, store.Errorf(store.NameTypeNotFound, map[string]any{"type": q.From}, "type %s not found", q.From)
	}
	if len(q.Select) == 0 {
		return nil, qerr("empty select list")
	}
	if err := checkShape(q); err != nil {
		return nil, err
	}
	var joins []string
	base := c.newScope(ty, &joins)
	var sel sqlPart
	shapes, ncols, err := c.columns(base, q.Select, &sel)
	if err != nil {
		return nil, err
	}
	where, order, err := c.filterOrder(base, q.Where, q.Order)
	if err != nil {
		return nil, err
	}
	var out sqlPart
	out.WriteString("SELECT ")
	out.add(&sel)
	out.from(base, where)
	out.WriteString(" ORDER BY " + order)
	c.limit(q, &out)
	if err := out.checkArgs(); err != nil {
		return nil, err
	}
	plan := &Plan{SQL: d.Rebind(out.String()), Args: out.args, MaxRows: MaxResultRows, MaxBytes: MaxResultBytes, shapes: shapes, ncols: ncols}
	if c.fanOut {
		depth := collectionDepth(q.Select)
		for k := 1; k <= depth; k++ {
			cut := *q
			cut.Select = cutCollections(q.Select, k)
			cq, err := compileCount(cat, d, &cut, params)
			if err != nil {
				return nil, err
			}
			plan.steps = append(plan.steps, countStep{sql: d.Rebind(cq.String()), args: cq.args})
		}
		cq, err := compileCount(cat, d, q, params)
		if err != nil {
			return nil, err
		}
		plan.CountSQL, plan.CountArgs = d.Rebind(cq.String()), cq.args
		if n := len(plan.steps); n > 0 && plan.steps[n-1].sql == plan.CountSQL {
			plan.steps = plan.steps[: n-1 : n-1]
		}
	}
	return plan, nil
}

// countStep is one counting statement of Plan.steps.
type countStep struct {
	sql  string
	args []any
}

// collectionDepth is how deep collection sub-selects nest in items.
func collectionDepth(items []Select) int {
	d := 0
	for _, it := range items {
		switch it.Kind {
		case SelectObject:
			d = max(d, collectionDepth(it.Sub))
		case SelectCollection:
			d = max(d, 1+collectionDepth(it.Sub))
		}
	}
	return d
}

// cutCollections is items without the collections nested more than k deep
// (and, at the cut, without the fields that could be collections of ids).
func cutCollections(items []Select, k int) []Select {
	var out []Select
	for _, it := range items {
		switch it.Kind {
		case SelectObject:
			it.Sub = cutCollections(it.Sub, k)
			out = append(out, it)
		case SelectCollection:
			if k > 0 {
				it.Sub = cutCollections(it.Sub, k-1)
				out = append(out, it)
			}
		case SelectField:
			if k > 0 {
				out = append(out, it)
			}
		}
	}
	return out
}

// limit writes the LIMIT and OFFSET of the top-level query.
func (c *compiler) limit(q *Query, out *sqlPart) {
	switch {
	case q.NoLimit:
		if q.Offset > 0 {
			out.WriteString(c.d.OffsetWithoutLimit())
			out.arg(int64(q.Offset))
		}
	default:
		limit := q.Limit
		if limit == 0 {
			limit = DefaultLimit
		}
		if limit < 0 {
			limit = 0
		}
		out.WriteString(" LIMIT ")
		out.arg(int64(limit))
		if q.Offset > 0 {
			out.WriteString(" OFFSET ")
			out.arg(int64(q.Offset))
		}
	}
}

// compileCount compiles the statement counting the objects of q's result:
// its rows (with q's filter, order, limit and offset) plus the items of
// every collection sub-select at every depth, with their filters and limits.
func compileCount(cat *store.Catalog, d store.Dialect, q *Query, params map[string]any) (*sqlPart, error) {
	c := &compiler{cat: cat, d: d, params: params}
	var joins []string
	base := c.newScope(cat.Type(q.From), &joins)
	var n sqlPart
	if err := c.countItems(base, q.Select, &n); err != nil {
		return nil, err
	}
	where, order, err := c.filterOrder(base, q.Where, q.Order)
	if err != nil {
		return nil, err
	}
	out := &sqlPart{}
	out.WriteString("SELECT " + c.d.BigInt("COALESCE(SUM(1 + r.n), 0)"))
	out.WriteString(" FROM (SELECT ")
	out.add(&n)
	out.WriteString(" AS n")
	out.from(base, where)
	if !q.NoLimit || q.Offset > 0 {
		out.WriteString(" ORDER BY " + order)
	}
	c.limit(q, out)
	out.WriteString(") r")
	if err := out.checkArgs(); err != nil {
		return nil, err
	}
	return out, nil
}

// where compiles the filter f in scope s: nil without one.
func (c *compiler) where(s *scope, f *Filter) (*sqlPart, error) {
	if f == nil {
		return nil, nil
	}
	var w sqlPart
	if err := c.filter(s, f, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// filterOrder compiles the filter f (nil without one) and the ORDER BY list
// of o in scope s.
func (c *compiler) filterOrder(s *scope, f *Filter, o []Order) (where *sqlPart, order string, err error) {
	if where, err = c.where(s, f); err != nil {
		return nil, "", err
	}
	order, err = c.order(s, o)
	return where, order, err
}

// countItems writes the expression counting the collection items that the
// select list reads for one object of scope s ("0" when it reads none).
func (c *compiler) countItems(s *scope, items []Select, out *sqlPart) error {
	terms := 0
	term := func() {
		if terms > 0 {
			out.WriteString(" + ")
		}
		terms++
	}
	for _, it := range items {
		f, err := c.field(s, it.Field)
		if err != nil {
			return err
		}
		switch {
		case it.Kind == SelectObject && f.IsToOne():
			var sub sqlPart
			if err := c.countItems(c.join(s, f), it.Sub, &sub); err != nil {
				return err
			}
			if sub.String() != "0" {
				term()
				out.add(&sub)
			}
		case it.Kind == SelectCollection && f.IsCollection(),
			it.Kind == SelectField && f.Role == store.RoleRelation && f.Collection:
			var sub sqlPart
			if err := c.countCollection(s, f, it, &sub); err != nil {
				return err
			}
			term()
			out.add(&sub)
		}
	}
	if terms == 0 {
		out.WriteString("0")
	}
	return nil
}

// countCollection writes a scalar sub-query counting the items of collection
// f of one object of scope s, plus the items of the collections they read.
func (c *compiler) countCollection(s *scope, f *store.Field, it Select, out *sqlPart) error {
	t, from, corr := c.collectionFrom(s, f)
	var inner sqlPart
	if it.Kind == SelectCollection {
		if err := c.countItems(t, it.Sub, &inner); err != nil {
			return err
		}
	} else {
		inner.WriteString("0")
	}
	where, err := c.where(t, it.Where)
	if err != nil {
		return err
	}
	limited := it.Kind == SelectCollection && it.Limit > 0
	order := ""
	if limited {
		if order, err = c.order(t, it.Order); err != nil {
			return err
		}
	}
	if limited && inner.String() != "0" {
		// The limit picks the items first; their own items are counted for
		// the picked ones only (counted in the limited derived table, the
		// database would count them for every item before it sorts).
		out.WriteString("(SELECT COALESCE(SUM(1 + (SELECT ")
		out.add(&inner)
		out.WriteString(" FROM " + t.ty.Table + " " + t.alias)
		out.joins(t)
		out.WriteString(" WHERE " + t.alias + ".id = s.id)), 0) FROM (SELECT " + t.alias + ".id AS id FROM " + from)
	} else {
		out.WriteString("(SELECT COALESCE(SUM(1 + s.n), 0) FROM (SELECT ")
		out.add(&inner)
		out.WriteString(" AS n FROM " + from)
	}
	out.itemsWhere(t, corr, where)
	if limited {
		out.WriteString(" ORDER BY " + order + " LIMIT ")
		out.arg(int64(it.Limit))
	}
	out.WriteString(") s)")
	return nil
}

func (c *compiler) newScope(ty *store.Type, joins *[]string) *scope {
	c.n++
	return &scope{ty: ty, alias: "a" + strconv.Itoa(c.n), joins: joins, seen: map[string]*scope{}}
}

func (c *compiler) field(s *scope, name string) (*store.Field, error) {
	f := s.ty.Field(name)
	if f == nil {
		return nil, store.Errorf(store.NameFieldNotFound, map[string]any{"type": s.ty.Name, "field": name}, "field %s not found on %s", name, s.ty.Name)
	}
	return f, nil
}

// join returns the scope of the target of to-one field f, adding a LEFT JOIN once.
func (c *compiler) join(s *scope, f *store.Field) *scope {
	if t, ok := s.seen[f.ID]; ok {
		return t
	}
	target := c.cat.Target(f)
	t := c.newScope(target, s.joins)
	switch f.Storage {
	case store.StoreReverse:
		p := c.cat.FieldByID(f.PartnerID)
		*s.joins = append(*s.joins, fmt.Sprintf("LEFT JOIN %s %s ON %s.%s = %s.id", target.Table, t.alias, t.alias, p.Col, s.alias))
	default:
		*s.joins = append(*s.joins, fmt.Sprintf("LEFT JOIN %s %s ON %s.id = %s.%s", target.Table, t.alias, t.alias, s.alias, f.Col))
	}
	s.seen[f.ID] = t
	return t
}

// refExpr is the expression of a to-one field's target id.
func (c *compiler) refExpr(s *scope, f *store.Field) string {
	if f.Storage == store.StoreColumn {
		return s.alias + "." + f.Col
	}
	return c.join(s, f).alias + ".id"
}

// colExpr reads a primitive or built-in field for output.
func (c *compiler) colExpr(s *scope, f *store.Field) string {
	return store.ColumnExpr(c.d, f.Prim, s.alias, f.Column())
}

// columns compiles a top-level select list into columns.
func (c *compiler) columns(s *scope, items []Select, out *sqlPart) ([]shape, int, error) {
	var shapes []shape
	n := 0
	sep := func() {
		if out.Len() > 0 {
			out.WriteString(", ")
		}
	}
	for _, it := range items {
		f, err := c.field(s, it.Field)
		if err != nil {
			return nil, 0, err
		}
		switch it.Kind {
		case SelectField:
			switch {
			case f.Role == store.RoleRelation && f.Collection:
				sh, err := c.collectionColumn(s, f, Select{Kind: SelectCollection, Key: it.Key, Field: it.Field, Sub: c.idSelect(f)}, out, sep)
				if err != nil {
					return nil, 0, err
				}
				shapes = append(shapes, sh)
				n++
			case f.Role == store.RoleRelation:
				sep()
				out.WriteString(c.refExpr(s, f))
				shapes = append(shapes, shape{key: it.Key, kind: shRef, ncols: 1})
				n++
			case store.IsRange(f.Prim):
				a, b := f.RangeColumns()
				sep()
				out.WriteString(s.alias + "." + a + ", " + s.alias + "." + b)
				shapes = append(shapes, shape{key: it.Key, kind: shRange, prim: f.Prim, ncols: 2})
				n += 2
			default:
				sep()
				out.WriteString(c.colExpr(s, f))
				shapes = append(shapes, shape{key: it.Key, kind: shScalar, prim: f.Prim, ncols: 1})
				n++
			}
		case SelectObject:
			if !f.IsToOne() {
				return nil, 0, qerr("%s is not an entity or single-select field; select a collection with {%q: {\"q/select\": [...]}}", f.Name, f.Name)
			}
			t := c.join(s, f)
			sep()
			out.WriteString(t.alias + ".id")
			var sub sqlPart
			subShapes, subN, err := c.columns(t, it.Sub, &sub)
			if err != nil {
				return nil, 0, err
			}
			out.WriteString(", ")
			out.add(&sub)
			shapes = append(shapes, shape{key: it.Key, kind: shObject, sub: subShapes, ncols: subN + 1})
			n += subN + 1
		case SelectCollection:
			if !f.IsCollection() {
				return nil, 0, qerr("%s is not a collection field", f.Name)
			}
			sh, err := c.collectionColumn(s, f, it, out, sep)
			if err != nil {
				return nil, 0, err
			}
			shapes = append(shapes, sh)
			n++
		case SelectAggregate:
			var agg sqlPart
			sh, err := c.aggregate(s, f, it, &agg)
			if err != nil {
				return nil, 0, err
			}
			sep()
			out.add(&agg)
			sh.ncols = 1
			shapes = append(shapes, sh)
			n++
		default:
			return nil, 0, qerr("unknown select kind")
		}
	}
	return shapes, n, nil
}

func (c *compiler) idSelect(f *store.Field) []Select {
	target := c.cat.Target(f)
	idf := target.FieldByRole(store.RoleID)
	return []Select{{Kind: SelectField, Key: idf.Name, Field: idf.Name}}
}

func (c *compiler) collectionColumn(s *scope, f *store.Field, it Select, out *sqlPart, sep func()) (shape, error) {
	var sub sqlPart
	sh, err := c.collection(s, f, it, &sub)
	if err != nil {
		return shape{}, err
	}
	sep()
	out.wrap(&sub, c.d.JSONText)
	sh.ncols = 1
	return sh, nil
}

// collectionFrom is collectionKeys with the correlation of an item with its
// owner in scope s ("<owner key> = <s>.id") in place of the owner key; the
// caller appends joins and conditions.
func (c *compiler) collectionFrom(s *scope, f *store.Field) (*scope, string, string) {
	t, from, key := c.collectionKeys(s, f)
	return t, from, key + " = " + s.alias + ".id"
}

// collectionKeys is collectionFrom for a filter: the item scope, its FROM,
// and the expression of the item's owner id (the collection's holder) in it.
func (c *compiler) collectionKeys(s *scope, f *store.Field) (*scope, string, string) {
	target := c.cat.Target(f)
	var joins []string
	t := c.newScope(target, &joins)
	switch f.Storage {
	case store.StoreReverse:
		p := c.cat.FieldByID(f.PartnerID)
		return t, target.Table + " " + t.alias, t.alias + "." + p.Col
	default: // link
		self, other := f.LinkSide, "b"
		if self == "b" {
			other = "a"
		}
		c.n++
		lk := "l" + strconv.Itoa(c.n)
		return t, fmt.Sprintf("%s %s JOIN %s %s ON %s.id = %s.%s", f.Link, lk, target.Table, t.alias, t.alias, lk, other), lk + "." + self
	}
}

// inItems writes the test that an object of scope s has an item (scope t,
// from, owner key) meeting cond, negated with neg: "[NOT ](s.id IS NOT NULL
// AND s.id IN (SELECT key FROM ... WHERE key IS NOT NULL AND cond))". The
// sub-query does not depend on s, so the database evaluates it once per
// statement instead of once per object (a correlated EXISTS through several
// collections costs the product of their sizes); NOT in front of it keeps
// NOT EXISTS's meaning, for an absent s (a to-one path that leads nowhere)
// too.
func (c *compiler) inItems(s, t *scope, from, key string, neg bool, cond, out *sqlPart) {
	if neg {
		out.WriteString("NOT ")
	}
	out.WriteString("(" + s.alias + ".id IS NOT NULL AND " + s.alias + ".id IN (SELECT " + key + " FROM " + from)
	out.joins(t)
	out.WriteString(" WHERE " + key + " IS NOT NULL AND ")
	out.add(cond)
	out.WriteString("))")
}

// collection compiles a collection sub-select into a scalar sub-query giving
// a JSON array.
func (c *compiler) collection(s *scope, f *store.Field, it Select, out *sqlPart) (shape, error) {
	c.colls++
	defer func() { c.colls-- }()
	if c.colls > 1 {
		c.fanOut = true
	}
	t, from, corr := c.collectionFrom(s, f)
	var obj sqlPart
	shapes, err := c.jsonObject(t, it.Sub, &obj)
	if err != nil {
		return shape{}, err
	}
	where, order, err := c.filterOrder(t, it.Where, it.Order)
	if err != nil {
		return shape{}, err
	}
	if it.Limit > 0 {
		// Limited: pick and number the items in a derived table, build the
		// objects of the picked ones only (built in the derived table, the
		// database would build every item's object before it sorts), and
		// aggregate them in that order.
		out.WriteString("SELECT " + c.d.JSONArrayAgg(c.d.JSONValue("s.j"), "s.rn"))
		out.WriteString(" FROM (SELECT (SELECT ")
		out.add(&obj)
		out.WriteString(" FROM " + t.ty.Table + " " + t.alias)
		out.joins(t)
		out.WriteString(" WHERE " + t.alias + ".id = p.id) AS j, p.rn FROM (SELECT " + t.alias + ".id AS id, ROW_NUMBER() OVER (ORDER BY " + order + ") AS rn")
	} else {
		out.WriteString("SELECT ")
		out.wrap(&obj, func(o string) string { return c.d.JSONArrayAgg(o, order) })
	}
	out.WriteString(" FROM " + from)
	out.itemsWhere(t, corr, where)
	if it.Limit > 0 {
		out.WriteString(" ORDER BY " + order + " LIMIT ")
		out.arg(int64(it.Limit))
		out.WriteString(") p) s")
	}
	// Wrap as a scalar sub-query.
	inner := out.String()
	args := out.args
	out.Reset()
	out.args = nil
	out.WriteString("(" + inner + ")")
	out.args = args
	return shape{key: it.Key, kind: shCollection, sub: shapes}, nil
}

// jsonObject compiles a select list into a JSON object expression with
// generated keys.
func (c *compiler) jsonObject(s *scope, items []Select, out *sqlPart) ([]shape, error) {
	var shapes []shape
	members := &sqlPart{} // key, value, ...: wrapped in the object at the end
	k := 0
	first := true
	key := func() string {
		k++
		if !first {
			members.WriteString(", ")
		}
		first = false
		j := "k" + strconv.Itoa(k)
		members.WriteString("'" + j + "', ")
		return j
	}
	for _, it := range items {
		f, err := c.field(s, it.Field)
		if err != nil {
			return nil, err
		}
		switch it.Kind {
		case SelectField:
			switch {
			case f.Role == store.RoleRelation && f.Collection:
				j := key()
				var sub sqlPart
				sh, err := c.collection(s, f, Select{Kind: SelectCollection, Key: it.Key, Field: it.Field, Sub: c.idSelect(f)}, &sub)
				if err != nil {
					return nil, err
				}
				c.wrapJSON(members, &sub)
				sh.jkey = j
				shapes = append(shapes, sh)
			case f.Role == store.RoleRelation:
				j := key()
				members.WriteString(c.refExpr(s, f))
				shapes = append(shapes, shape{key: it.Key, kind: shRef, jkey: j})
			case store.IsRange(f.Prim):
				j := key()
				a, b := f.RangeColumns()
				members.WriteString(s.alias + "." + a + ", '" + j + "e', " + s.alias + "." + b)
				shapes = append(shapes, shape{key: it.Key, kind: shRange, prim: f.Prim, jkey: j})
			default:
				j := key()
				members.WriteString(c.colExpr(s, f))
				shapes = append(shapes, shape{key: it.Key, kind: shScalar, prim: f.Prim, jkey: j})
			}
		case SelectObject:
			if !f.IsToOne() {
				return nil, qerr("%s is not an entity or single-select field", f.Name)
			}
			j := key()
			t := c.join(s, f)
			var sub sqlPart
			subShapes, err := c.jsonObject(t, it.Sub, &sub)
			if err != nil {
				return nil, err
			}
			var cs sqlPart
			cs.WriteString("CASE WHEN " + t.alias + ".id IS NULL THEN NULL ELSE ")
			cs.add(&sub)
			cs.WriteString(" END")
			c.wrapJSON(members, &cs)
			shapes = append(shapes, shape{key: it.Key, kind: shObject, sub: subShapes, jkey: j})
		case SelectCollection:
			if !f.IsCollection() {
				return nil, qerr("%s is not a collection field", f.Name)
			}
			j := key()
			var sub sqlPart
			sh, err := c.collection(s, f, it, &sub)
			if err != nil {
				return nil, err
			}
			c.wrapJSON(members, &sub)
			sh.jkey = j
			shapes = append(shapes, sh)
		case SelectAggregate:
			j := key()
			var sub sqlPart
			sh, err := c.aggregate(s, f, it, &sub)
			if err != nil {
				return nil, err
			}
			members.add(&sub)
			sh.jkey = j
			shapes = append(shapes, sh)
		}
	}
	out.wrap(members, c.d.JSONObject)
	return shapes, nil
}

// wrapJSON keeps nested JSON values JSON (not text) inside a JSON object.
func (c *compiler) wrapJSON(out *sqlPart, sub *sqlPart) {
	out.wrap(sub, c.d.JSONValue)
}

// aggregate compiles {alias: [q/<agg>, [collection, field]]}.
func (c *compiler) aggregate(s *scope, f *store.Field, it Select, out *sqlPart) (shape, error) {
	if !f.IsCollection() {
		return shape{}, qerr("aggregate %s: %s is not a collection field", it.Key, f.Name)
	}
	t, from, corr := c.collectionFrom(s, f)
	tf, err := c.field(t, it.AggField)
	if err != nil {
		return shape{}, err
	}
	var expr, prim string
	switch {
	case tf.Role == store.RoleRelation && !tf.Collection:
		expr, prim = c.refExpr(t, tf), store.TUUID
	case tf.Role == store.RoleRelation, store.IsRange(tf.Prim):
		return shape{}, qerr("aggregate %s: cannot aggregate field %s", it.Key, tf.Name)
	default:
		expr, prim = t.alias+"."+tf.Column(), tf.Prim
	}
	numeric := prim == store.TInt || prim == store.TRank || prim == store.TDecimal
	var sel string
	outPrim := prim
	switch it.Agg {
	case AggCount:
		sel, outPrim = "COUNT("+expr+")", store.TInt
	case AggSum, AggAvg:
		if !numeric {
			return shape{}, qerr("aggregate %s: q/%s needs a number field, %s is %s", it.Key, it.Agg, tf.Name, prim)
		}
		fn := strings.ToUpper(it.Agg)
		switch {
		case prim == store.TDecimal:
			sel = c.d.DecimalAggregate(fn, expr)
		case it.Agg == AggAvg:
			sel, outPrim = c.d.Float("AVG("+expr+")"), "float"
		default:
			sel = c.d.BigInt("SUM(" + expr + ")")
		}
		if it.Agg == AggSum {
			zero := "0"
			if prim == store.TDecimal {
				zero = c.d.DecimalZero()
			}
			sel = "COALESCE(" + sel + ", " + zero + ")"
		}
	case AggMin, AggMax:
		fn := strings.ToUpper(it.Agg)
		switch {
		case prim == store.TDecimal:
			sel = c.d.DecimalAggregate(fn, expr)
		case prim == store.TBool && !c.d.AggregatesBool():
			return shape{}, qerr("aggregate %s: q/%s of a boolean", it.Key, it.Agg)
		default:
			sel = fn + "(" + expr + ")"
		}
	default:
		return shape{}, qerr("unknown aggregate %q", it.Agg)
	}
	out.WriteString("(SELECT " + sel + " FROM " + from)
	out.joins(t)
	out.WriteString(" WHERE " + corr + ")")
	return shape{key: it.Key, kind: shAggregate, prim: outPrim}, nil
}

// order compiles sort keys (default: creation date, then id) and always ends
// with the id as a tie-breaker.
func (c *compiler) order(s *scope, keys []Order) (string, error) {
	if len(keys) == 0 {
		return s.alias + ".created ASC, " + s.alias + ".id ASC", nil
	}
	var parts []string
	lastID := false
	for _, k := range keys {
		expr, f, err := c.orderExpr(s, k.Path)
		if err != nil {
			return "", err
		}
		lastID = f.Role == store.RoleID && len(k.Path.Fields) == 1
		if f.Role == store.RoleID || f.Role == store.RoleCreated || f.Role == store.RoleModified || f.Role == store.RolePublicID {
			// Never empty: no NULLS clause, so indexes serve the order.
			if k.Desc {
				parts = append(parts, expr+" DESC")
			} else {
				parts = append(parts, expr+" ASC")
			}
			continue
		}
		if k.Desc {
			parts = append(parts, expr+" DESC NULLS LAST")
		} else {
			parts = append(parts, expr+" ASC NULLS FIRST")
		}
	}
	if !lastID {
		parts = append(parts, s.alias+".id ASC")
	}
	return strings.Join(parts, ", "), nil
}

func (c *compiler) orderExpr(s *scope, p Path) (string, *store.Field, error) {
	cur := s
	for i, name := range p.Fields {
		f, err := c.field(cur, name)
		if err != nil {
			return "", nil, err
		}
		last := i == len(p.Fields)-1
		if f.Role == store.RoleRelation {
			if f.Collection {
				return "", nil, qerr("cannot sort by collection field %s", f.Name)
			}
			if last {
				return c.refExpr(cur, f), f, nil
			}
			cur = c.join(cur, f)
			continue
		}
		if !last {
			return "", nil, qerr("%s is not an entity field; it cannot be followed by %s", f.Name, p.Fields[i+1])
		}
		return c.cmpExpr(cur, f, p.Part), f, nil
	}
	return "", nil, qerr("empty sort path")
}

// cmpExpr is the expression used to compare and sort a primitive field.
func (c *compiler) cmpExpr(s *scope, f *store.Field, part Part) string {
	col := f.Column()
	if store.IsRange(f.Prim) {
		a, b := f.RangeColumns()
		col = a
		if part == PartEnd {
			col = b
		}
	}
	e := s.alias + "." + col
	if f.Prim == store.TDecimal {
		return c.d.DecimalColumn(e)
	}
	return e
}

// param resolves a filter value.
func (c *compiler) param(v Value) (any, error) {
	if !v.IsParam {
		return v.Literal, nil
	}
	val, ok := c.params[v.Param]
	if !ok {
		return nil, store.Errorf(store.NameUnknownParam, map[string]any{"param": "$" + v.Param}, "parameter $%s is not in params", v.Param)
	}
	return val, nil
}

func paramErr(v Value, err error) error {
	msg := err.Error()
	if e, ok := store.AsError(err); ok {
		msg = e.Message
	}
	name := "value"
	if v.IsParam {
		name = "$" + v.Param
	}
	return store.Errorf(store.NameInvalidParam, map[string]any{"param": name}, "%s: %s", name, msg)
}

// filter compiles a filter expression in scope s.
func (c *compiler) filter(s *scope, f *Filter, out *sqlPart) error {
	switch f.Op {
	case OpAnd, OpOr:
		if len(f.Sub) == 0 {
			return qerr("%s needs at least one clause", f.Op)
		}
		sep := " AND "
		if f.Op == OpOr {
			sep = " OR "
		}
		out.WriteString("(")
		for i, sub := range f.Sub {
			if i > 0 {
				out.WriteString(sep)
			}
			if err := c.filter(s, sub, out); err != nil {
				return err
			}
		}
		out.WriteString(")")
		return nil
	case OpSome, OpNone:
		return c.some(s, f, out)
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpContains, OpNotContains, OpIn, OpNotIn, OpIsNull, OpIsNotNull:
	default:
		return qerr("unknown filter operator %q", f.Op)
	}
	if len(f.Path.Fields) == 0 {
		return qerr("%s needs a path", f.Op)
	}
	return c.comparePath(s, f, f.Path.Fields, out)
}

func negative(op Op) (Op, bool) {
	switch op {
	case OpNe:
		return OpEq, true
	case OpNotContains:
		return OpContains, true
	case OpNotIn:
		return OpIn, true
	case OpIsNotNull:
		return OpIsNull, true
	}
	return op, false
}

func (c *compiler) comparePath(s *scope, f *Filter, fields []string, out *sqlPart) error {
	fd, err := c.field(s, fields[0])
	if err != nil {
		return err
	}
	rest := fields[1:]
	if fd.Role != store.RoleRelation {
		if len(rest) > 0 {
			return qerr("%s is not an entity field; it cannot be followed by %s", fd.Name, rest[0])
		}
		return c.compare(s, fd, f, out)
	}
	if fd.Collection {
		// Some item matches (negative operators: no item matches the positive form).
		op, neg := negative(f.Op)
		if len(rest) == 0 && f.Op == OpIsNull {
			op, neg = OpIsNotNull, true // empty: no item
		} else if len(rest) == 0 && f.Op == OpIsNotNull {
			op, neg = OpIsNotNull, false // not empty: some item
		}
		t, from, key := c.collectionKeys(s, fd)
		var cond sqlPart
		inner := *f
		inner.Op = op
		if len(rest) == 0 {
			idf := t.ty.FieldByRole(store.RoleID)
			rest = []string{idf.Name}
		}
		if err := c.comparePath(t, &inner, rest, &cond); err != nil {
			return err
		}
		c.inItems(s, t, from, key, neg, &cond, out)
		return nil
	}
	if len(rest) == 0 {
		return c.compareRef(s, fd, f, out)
	}
	return c.comparePath(c.join(s, fd), f, rest, out)
}

// compareRef compares a to-one field's target id.
func (c *compiler) compareRef(s *scope, fd *store.Field, f *Filter, out *sqlPart) error {
	expr := c.refExpr(s, fd)
	conv := func(v any) (any, error) {
		if v == nil {
			return nil, nil
		}
		m, isMap := v.(map[string]any)
		if isMap {
			v = m["platform/id"]
		}
		return store.ScalarArg(fd.Name, store.TUUID, v)
	}
	return c.emit(expr, store.TUUID, f, conv, out)
}

func (c *compiler) compare(s *scope, fd *store.Field, f *Filter, out *sqlPart) error {
	if store.IsRange(fd.Prim) && f.Path.Part == PartWhole {
		if f.Op != OpEq && f.Op != OpNe && f.Op != OpIsNull && f.Op != OpIsNotNull {
			return qerr("compare a range field with [q/start, [...]] or [q/end, [...]], not %s", f.Op)
		}
		a, b := fd.RangeColumns()
		if f.Op == OpIsNull || f.Op == OpIsNotNull {
			neg := f.Op == OpIsNotNull
			if neg {
				out.WriteString("NOT ")
			}
			out.WriteString("(" + s.alias + "." + a + " IS NULL AND " + s.alias + "." + b + " IS NULL)")
			return nil
		}
		v, err := c.param(f.Value)
		if err != nil {
			return err
		}
		sv, ev, err := store.RangeArgs(fd.Name, fd.Prim, v)
		if err != nil {
			return paramErr(f.Value, err)
		}
		if v == nil {
			if f.Op == OpEq {
				out.WriteString("(" + s.alias + "." + a + " IS NULL AND " + s.alias + "." + b + " IS NULL)")
			} else {
				out.WriteString("(" + s.alias + "." + a + " IS NOT NULL OR " + s.alias + "." + b + " IS NOT NULL)")
			}
			return nil
		}
		if f.Op == OpNe {
			out.WriteString("NOT ")
		}
		out.WriteString("(" + s.alias + "." + a + " IS NOT NULL AND " + s.alias + "." + a + " = ")
		out.arg(sv)
		out.WriteString(" AND " + s.alias + "." + b + " IS NOT NULL AND " + s.alias + "." + b + " = ")
		out.arg(ev)
		out.WriteString(")")
		return nil
	}
	if !store.IsRange(fd.Prim) && f.Path.Part != PartWhole {
		return qerr("q/start and q/end apply to range fields; %s is %s", fd.Name, fd.Prim)
	}
	prim := fd.Prim
	if store.IsRange(prim) {
		prim = store.TDate
		if fd.Prim == store.TDateTimeRange {
			prim = store.TDateTime
		}
	}
	expr := c.cmpExpr(s, fd, f.Path.Part)
	conv := func(v any) (any, error) { return store.ScalarArg(fd.Name, prim, v) }
	return c.emit(expr, prim, f, conv, out)
}

// placeholder writes one bound value, cast so both engines compare it by the
// field's type.
func (c *compiler) placeholder(prim string, v any, out *sqlPart) {
	if prim == store.TDecimal {
		out.WriteString(c.d.CastDecimal("?"))
		out.args = append(out.args, v)
		return
	}
	out.arg(v)
}

func (c *compiler) emit(expr, prim string, f *Filter, conv func(any) (any, error), out *sqlPart) error {
	switch f.Op {
	case OpIsNull:
		out.WriteString(expr + " IS NULL")
		return nil
	case OpIsNotNull:
		out.WriteString(expr + " IS NOT NULL")
		return nil
	}
	raw, err := c.param(f.Value)
	if err != nil {
		return err
	}
	switch f.Op {
	case OpIn, OpNotIn:
		arr, ok := raw.([]any)
		if !ok {
			return store.Errorf(store.NameInvalidParam, map[string]any{"param": "$" + f.Value.Param}, "%s needs an array value", f.Op)
		}
		if len(arr) > 10000 {
			return store.Errorf(store.NameInvalidParam, map[string]any{"param": "$" + f.Value.Param}, "at most 10000 values in %s", f.Op)
		}
		var vals []any
		hasNull := false
		for _, e := range arr {
			v, err := conv(e)
			if err != nil {
				return paramErr(f.Value, err)
			}
			if v == nil {
				hasNull = true
				continue
			}
			vals = append(vals, v)
		}
		var in sqlPart
		if len(vals) == 0 {
			in.WriteString("1 = 0")
		} else {
			in.WriteString(expr + " IN (")
			for i, v := range vals {
				if i > 0 {
					in.WriteString(", ")
				}
				c.placeholder(prim, v, &in)
			}
			in.WriteString(")")
		}
		if hasNull {
			in.WriteString(" OR " + expr + " IS NULL")
		}
		if f.Op == OpIn {
			out.WriteString("(")
			out.add(&in)
			out.WriteString(")")
		} else {
			out.WriteString("(NOT (")
			out.add(&in)
			if hasNull {
				out.WriteString("))")
			} else {
				out.WriteString(") OR " + expr + " IS NULL)")
			}
		}
		return nil
	case OpContains, OpNotContains:
		s, ok := raw.(string)
		if !ok {
			return store.Errorf(store.NameInvalidParam, map[string]any{"param": "$" + f.Value.Param}, "%s needs a string value", f.Op)
		}
		if err := store.CheckText("$"+f.Value.Param, s); err != nil {
			// A NUL or invalid UTF-8 would reach the engine (PostgreSQL
			// refuses it with an internal error): refuse it by name.
			return store.Errorf(store.NameInvalidParam, map[string]any{"param": "$" + f.Value.Param}, "%v", err)
		}
		switch prim {
		case store.TText, store.TEmail, store.TEmoji, store.TUUID, store.TDate, store.TJSON:
		default:
			return qerr("%s applies to text fields, not %s", f.Op, prim)
		}
		// The needle is the one placeholder.
		pos := c.d.TextPosition("lower("+expr+")", "lower(?)")
		if f.Op == OpContains {
			out.WriteString(pos + " > 0")
		} else {
			out.WriteString("(" + expr + " IS NULL OR " + pos + " = 0)")
		}
		out.args = append(out.args, s)
		return nil
	}
	v, err := conv(raw)
	if err != nil {
		return paramErr(f.Value, err)
	}
	if v == nil {
		switch f.Op {
		case OpEq:
			out.WriteString(expr + " IS NULL")
		case OpNe:
			out.WriteString(expr + " IS NOT NULL")
		default:
			return store.Errorf(store.NameInvalidParam, map[string]any{"param": "$" + f.Value.Param}, "%s cannot compare with null", f.Op)
		}
		return nil
	}
	switch f.Op {
	case OpNe:
		out.WriteString("(" + expr + " <> ")
		c.placeholder(prim, v, out)
		out.WriteString(" OR " + expr + " IS NULL)")
	default:
		op := string(f.Op)
		out.WriteString(expr + " " + op + " ")
		c.placeholder(prim, v, out)
	}
	return nil
}

// some compiles OpSome / OpNone: EXISTS (or NOT EXISTS) an item of the
// collection at f.Path matching f.Sub[0].
func (c *compiler) some(s *scope, f *Filter, out *sqlPart) error {
	if len(f.Sub) != 1 || len(f.Path.Fields) == 0 {
		return qerr("%s takes a collection path and one filter", f.Op)
	}
	cur := s
	var coll *store.Field
	for i, name := range f.Path.Fields {
		fd, err := c.field(cur, name)
		if err != nil {
			return err
		}
		last := i == len(f.Path.Fields)-1
		switch {
		case last && fd.IsCollection():
			coll = fd
		case !last && fd.IsToOne():
			cur = c.join(cur, fd)
		default:
			return qerr("%s needs a path of entity fields ending at a collection; %s does not fit", f.Op, fd.Name)
		}
	}
	t, from, key := c.collectionKeys(cur, coll)
	var cond sqlPart
	cond.WriteString("(")
	if err := c.filter(t, f.Sub[0], &cond); err != nil {
		return err
	}
	cond.WriteString(")")
	c.inItems(cur, t, from, key, f.Op == OpNone, &cond, out)
	return nil
}
