package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// Bounds of a table page: whatever the store holds, a page shows at most
// pageSize rows of maxColumns columns, each cell at most maxCell bytes of
// its value and each row at most maxRowCells bytes (so the cells of a page
// stay within 1 MiB); a cell cut or left out links to its whole value,
// shown on a page of its own.
const (
	// pageSize is the rows of a table page.
	pageSize = 25
	// maxColumns is the columns of a table page (the fields first in
	// their ui/order).
	maxColumns = 50
	// maxCell is how much of one value a cell shows: the first 16 KiB of
	// its text (of a rich-text value, of its Markdown, rendered when that
	// fits the row's room), as a run's exchanges keep 16 KiB of a body.
	maxCell = 16 << 10
	// maxRowCells bounds the cells of one row together: once it is spent,
	// the row's further cells show only the link to their value.
	maxRowCells = (1 << 20) / pageSize
	// maxLabel bounds a column's label.
	maxLabel = 200
	// maxWholeHTML is the largest rich-text value the whole-value page
	// renders as HTML; a larger one is shown as its Markdown.
	maxWholeHTML = 1 << 20
	// maxManyLinks is the related entities a many-to-many cell links to
	// (the first by title); it counts the others ("+N more").
	maxManyLinks = 10
)

// space is a space of the store with its databases (domain types).
type space struct {
	Name    string
	Types   []dbType
	GraphQL string
}

type dbType struct {
	Name  string // store name, "tracker/task"
	Label string // "task"
}

// spaceOf splits a store type name "space/type".
func spaceOf(name string) (string, string) {
	i := strings.LastIndex(name, "/")
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}

func (c *Console) dataPage(w http.ResponseWriter, r *http.Request) {
	cat, err := c.cfg.Store.Catalog(r.Context())
	if err != nil {
		c.internal(w, r, err)
		return
	}
	bySpace := map[string]*space{}
	var names []string
	for _, t := range cat.Types {
		if t.Kind != store.KindDomain {
			continue
		}
		sp, label := spaceOf(t.Name)
		s := bySpace[sp]
		if s == nil {
			s = &space{Name: sp}
			if c.cfg.GraphQLPath != "" {
				s.GraphQL = c.cfg.GraphQLPath + url.PathEscape(sp)
			}
			bySpace[sp] = s
			names = append(names, sp)
		}
		s.Types = append(s.Types, dbType{Name: t.Name, Label: label})
	}
	sort.Strings(names)
	list := make([]*space, 0, len(names))
	for _, n := range names {
		sort.Slice(bySpace[n].Types, func(i, j int) bool { return bySpace[n].Types[i].Name < bySpace[n].Types[j].Name })
		list = append(list, bySpace[n])
	}
	c.render(w, r, http.StatusOK, "data", &page{Title: "Data", Nav: "data", Data: list})
}

// column is a column of a table page.
type column struct {
	Field *store.Field
	Label string
	// Kind is text, relation (to-one link), select (a single-select's
	// name), rich (rich text), collection (a link to the related rows),
	// many (links to the first related entities of a many-to-many
	// relation, or of a collection without a partner field).
	Kind string
	// Title is the related type's title field (relation, select, many).
	Title string
	// Target is the related type's name; Partner the field of the target
	// pointing back (collection, many; none for a collection without
	// one).
	Target  string
	Partner string
	// Sortable columns get a sort link.
	Sortable bool
}

// cell is one value of a row.
type cell struct {
	Text string
	// Link, when set, makes the cell a link.
	Link string
	// HTML is rendered rich text.
	HTML template.HTML
	// Cut is true when the cell shows only the start of its value;
	// Omitted when it shows none of it (its row's room was spent).
	Cut, Omitted bool
	// Whole links to the whole value of a cut or omitted cell.
	Whole string
	// When is a date-time's instant (RFC 3339, UTC) and Raw its value as
	// stored, for a cell whose Text is the date-time made readable.
	When, Raw string
	// Many is the cell of a many column (a pointer: cells compare).
	Many *manyCell
}

// manyCell is the related entities of a many column: links to the first
// of them by title, and how many more there are.
type manyCell struct {
	Links []cellLink
	// More counts the related entities not linked; MoreLink, when set,
	// lists them all (the target's rows filtered by the partner field).
	More     int
	MoreLink string
}

// cellLink is one link of a cell.
type cellLink struct {
	Text, Link string
}

// size is what the cell adds to its page.
func (c cell) size() int {
	n := len(c.Text) + len(c.HTML) + len(c.Link)
	if c.Many != nil {
		n += len(c.Many.MoreLink)
		for _, l := range c.Many.Links {
			n += len(l.Text) + len(l.Link)
		}
	}
	return n
}

// cutText returns the first n bytes of s at most, ending on a character
// boundary, and whether anything was left out.
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// valueLink is the address of the page of one entity's whole value.
func valueLink(typ, id, field string) string {
	return "/value/" + typ + "?" + url.Values{"id": {id}, "field": {field}}.Encode()
}

type tableData struct {
	Type     string
	Space    string
	GraphQL  string
	Columns  []column
	Rows     [][]cell
	Page     int
	Prev     string
	Next     string
	Sort     string
	Desc     bool
	Filter   tableFilter
	Filtered bool
	// MoreColumns counts the fields not shown (beyond maxColumns).
	MoreColumns int
	// SortLinks are the header links by column index.
	SortLinks []string
}

// tableFilter is the filter of a table page: one field, an operator
// (contains, eq) and a value.
type tableFilter struct {
	Field, Op, Value string
}

// uiOrder reads a field's ui/order.
func uiOrder(f *store.Field) float64 {
	if b, _ := f.Meta["ui/title?"].(bool); b {
		return -1
	}
	switch n := f.Meta["ui/order"].(type) {
	case float64:
		return n
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case json.Number:
		if v, err := n.Float64(); err == nil {
			return v
		}
	}
	return 1e9
}

func label(f *store.Field) string {
	s, ok := f.Meta["ui/label"].(string)
	if !ok || s == "" {
		_, s = spaceOf(f.Name)
	}
	if s, cut := cutText(s, maxLabel); cut {
		return s + "…"
	}
	return s
}

// titleField is the field of t marked ui/title?, else its first text field.
func titleField(t *store.Type) string {
	for _, f := range t.Fields {
		if b, _ := f.Meta["ui/title?"].(bool); b {
			return f.Name
		}
	}
	for _, f := range t.Fields {
		if f.Role == store.RolePrimitive && f.Prim == store.TText {
			return f.Name
		}
	}
	return "platform/id"
}

func (c *Console) tablePage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("type")
	q := r.URL.Query()
	cat, err := c.cfg.Store.Catalog(r.Context())
	if err != nil {
		c.internal(w, r, err)
		return
	}
	t := cat.Type(name)
	if t == nil || t.Kind != store.KindDomain {
		c.render(w, r, http.StatusNotFound, "error", &page{Title: "No such database", Error: fmt.Sprintf("The store has no database %q.", name)})
		return
	}
	d := &tableData{Type: name, Sort: q.Get("sort"), Desc: q.Get("desc") == "1"}
	d.Space, _ = spaceOf(name)
	if c.cfg.GraphQLPath != "" {
		d.GraphQL = c.cfg.GraphQLPath + url.PathEscape(d.Space)
	}
	fields := append([]*store.Field(nil), t.Fields...)
	sort.SliceStable(fields, func(i, j int) bool { return uiOrder(fields[i]) < uiOrder(fields[j]) })
	sel := []query.Select{{Kind: query.SelectField, Key: "platform/id", Field: "platform/id"}}
	for _, f := range fields {
		if hidden, _ := f.Meta["ui/hidden?"].(bool); hidden || f.Role == store.RoleID || f.Role == store.RolePublicID || f.Role == store.RoleCreated || f.Role == store.RoleModified {
			continue
		}
		col, s, ok := columnOf(cat, f)
		switch {
		case !ok:
			continue
		case len(d.Columns) == maxColumns:
			d.MoreColumns++
			continue
		}
		sel = append(sel, s...)
		d.Columns = append(d.Columns, col)
	}
	qu := &query.Query{From: name, Select: sel, Limit: pageSize + 1}
	// Filter: one column, contains or equals.
	fl := tableFilter{Field: q.Get("field"), Op: q.Get("op"), Value: q.Get("value")}
	if fl.Op == "" {
		fl.Op = "contains"
	}
	d.Filter = fl
	if fl.Field != "" && fl.Value != "" {
		f := t.Field(fl.Field)
		if f == nil {
			c.render(w, r, http.StatusBadRequest, "error", &page{Title: "Bad filter", Error: fmt.Sprintf("The database has no field %q.", fl.Field)})
			return
		}
		op := query.OpContains
		if fl.Op == "eq" {
			op = query.OpEq
		}
		var v any = fl.Value
		if f.Role == store.RolePrimitive && (f.Prim == store.TInt || f.Prim == store.TDecimal) {
			n, err := strconv.ParseFloat(fl.Value, 64)
			if err != nil {
				c.render(w, r, http.StatusBadRequest, "error", &page{Title: "Bad filter", Error: fmt.Sprintf("%s holds numbers: %q is not one.", label(f), fl.Value)})
				return
			}
			v, op = n, query.OpEq
		}
		if f.Role == store.RoleRelation {
			op = query.OpEq
		}
		qu.Where = &query.Filter{Op: op, Path: query.Path{Fields: []string{f.Name}}, Value: query.Value{Literal: v}}
		d.Filtered = true
	}
	if d.Sort != "" {
		f := t.Field(d.Sort)
		if f == nil || f.Role != store.RolePrimitive {
			c.render(w, r, http.StatusBadRequest, "error", &page{Title: "Bad sort", Error: fmt.Sprintf("The database cannot be sorted by %q.", d.Sort)})
			return
		}
		qu.Order = []query.Order{{Path: query.Path{Fields: []string{d.Sort}}, Desc: d.Desc}}
	}
	d.Page = 1
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 1_000_000 {
			c.render(w, r, http.StatusBadRequest, "error", &page{Title: "Bad page", Error: "The page is a number from 1."})
			return
		}
		d.Page = n
	}
	qu.Offset = (d.Page - 1) * pageSize
	rows, err := query.Exec(r.Context(), c.cfg.Store, qu, nil)
	if err != nil {
		var qe *store.Error
		if errors.As(err, &qe) {
			c.render(w, r, http.StatusBadRequest, "error", &page{Title: "Query refused", Error: err.Error()})
			return
		}
		c.internal(w, r, err)
		return
	}
	more := len(rows) > pageSize
	if more {
		rows = rows[:pageSize]
	}
	link := func(page int, sortBy string, desc bool) string {
		v := url.Values{}
		if page > 1 {
			v.Set("page", strconv.Itoa(page))
		}
		if sortBy != "" {
			v.Set("sort", sortBy)
			if desc {
				v.Set("desc", "1")
			}
		}
		if d.Filtered {
			v.Set("field", fl.Field)
			v.Set("op", fl.Op)
			v.Set("value", fl.Value)
		}
		s := "/data/" + name
		if len(v) > 0 {
			s += "?" + v.Encode()
		}
		return s
	}
	if d.Page > 1 {
		d.Prev = link(d.Page-1, d.Sort, d.Desc)
	}
	if more {
		d.Next = link(d.Page+1, d.Sort, d.Desc)
	}
	for _, col := range d.Columns {
		if !col.Sortable {
			d.SortLinks = append(d.SortLinks, "")
			continue
		}
		d.SortLinks = append(d.SortLinks, link(1, col.Field.Name, d.Sort == col.Field.Name && !d.Desc))
	}
	d.Rows = c.tableRows(r.Context(), name, d.Columns, rows)
	c.render(w, r, http.StatusOK, "table", &page{Title: name, Nav: "data", Data: d})
}

// tableRows makes the cells of a page's rows within the page's bounds:
// each cell shows at most maxCell bytes of its value, the cells of a row
// together at most maxRowCells; rich text is converted with the request's
// context and, for the page's conversions together, at most the
// documents' conversion timeout (a conversion stopped shows its Markdown
// as text).
func (c *Console) tableRows(ctx context.Context, typ string, cols []column, rows []map[string]any) [][]cell {
	cctx, cancel := context.WithTimeout(ctx, documents.DefaultConvertTimeout)
	defer cancel()
	out := make([][]cell, 0, len(rows))
	for _, row := range rows {
		id, _ := row["platform/id"].(string)
		cells := make([]cell, 0, len(cols))
		room := maxRowCells
		for _, col := range cols {
			v := row[col.Field.Name]
			if col.Kind == "many" {
				v = manyValue{Items: row[col.Field.Name], Count: row[countKey(col.Field)]}
			}
			ce := c.cellOf(ctx, cctx, col, id, v, min(maxCell, room))
			room -= ce.size()
			if (ce.Cut || ce.Omitted) && col.Kind != "relation" && col.Kind != "select" && col.Kind != "many" {
				ce.Whole = valueLink(typ, id, col.Field.Name)
			}
			cells = append(cells, ce)
		}
		out = append(out, cells)
	}
	return out
}

// manyValue is what a many column's cell is made of: the first related
// entities (objects of platform/id and title) and their count.
type manyValue struct {
	Items, Count any
}

// countKey is the result key of the count of a many column's entities.
func countKey(f *store.Field) string { return f.Name + "#count" }

// columnOf is the column of field f and what the page's query selects for
// it (nothing for a collection with a to-one partner: its cell links to
// the related rows); false for a field the table does not show.
func columnOf(cat *store.Catalog, f *store.Field) (column, []query.Select, bool) {
	col := column{Field: f, Label: label(f), Kind: "text"}
	switch {
	case f.Role == store.RolePrimitive:
		col.Sortable = f.Prim != store.TJSON
		return col, []query.Select{{Kind: query.SelectField, Key: f.Name, Field: f.Name}}, true
	case cat.IsRichText(f):
		col.Kind = "rich"
		return col, []query.Select{{Kind: query.SelectObject, Key: f.Name, Field: f.Name,
			Sub: []query.Select{{Kind: query.SelectField, Key: "secret", Field: store.DocumentSecret}}}}, true
	case f.Role == store.RoleRelation && !f.Collection:
		target := cat.Target(f)
		if target == nil {
			return col, nil, false
		}
		col.Kind, col.Target, col.Title = "relation", target.Name, titleField(target)
		if target.Kind == store.KindEnum {
			col.Kind = "select"
		}
		return col, []query.Select{{Kind: query.SelectObject, Key: f.Name, Field: f.Name,
			Sub: []query.Select{{Kind: query.SelectField, Key: "platform/id", Field: "platform/id"}, {Kind: query.SelectField, Key: "title", Field: col.Title}}}}, true
	case f.Role == store.RoleRelation && f.Collection:
		target, partner := cat.Target(f), cat.Partner(f)
		if target == nil || target.Kind != store.KindDomain {
			return col, nil, false
		}
		col.Target = target.Name
		if partner != nil && !partner.Collection {
			col.Kind, col.Partner = "collection", partner.Name
			return col, nil, true
		}
		// Many-to-many (or no partner): the first maxManyLinks related
		// entities by title, as GraphQL selects an inner list, and their
		// count.
		col.Kind, col.Title = "many", titleField(target)
		if partner != nil {
			col.Partner = partner.Name
		}
		var order []query.Order
		if tf := target.Field(col.Title); tf != nil && tf.Role == store.RolePrimitive {
			order = []query.Order{{Path: query.Path{Fields: []string{col.Title}}}}
		}
		return col, []query.Select{
			{Kind: query.SelectCollection, Key: f.Name, Field: f.Name, Limit: maxManyLinks, Order: order,
				Sub: []query.Select{{Kind: query.SelectField, Key: "platform/id", Field: "platform/id"}, {Kind: query.SelectField, Key: "title", Field: col.Title}}},
			{Kind: query.SelectAggregate, Key: countKey(f), Field: f.Name, Agg: query.AggCount, AggField: "platform/id"},
		}, true
	}
	return col, nil, false
}

// filterLink is the address of the rows of typ whose field is value.
func filterLink(typ, field, value string) string {
	return "/data/" + typ + "?" + url.Values{"field": {field}, "op": {"eq"}, "value": {value}}.Encode()
}

// cellOf is the cell of value v in column col of entity id, showing at
// most room bytes of the value (none when room is 0 or less); rich text is
// read with ctx and converted with convert.
func (c *Console) cellOf(ctx, convert context.Context, col column, id string, v any, room int) cell {
	switch col.Kind {
	case "collection":
		return cell{Text: "show", Link: filterLink(col.Target, col.Partner, id)}
	case "many":
		mv, _ := v.(manyValue)
		return manyCellOf(col, id, mv, room)
	case "relation", "select":
		obj, _ := v.(map[string]any)
		if obj == nil {
			return cell{}
		}
		title := fmt.Sprint(obj["title"])
		if obj["title"] == nil {
			title = fmt.Sprint(obj["platform/id"])
		}
		title, cut := cutText(title, room)
		if cut {
			title += "…"
		}
		if col.Kind == "select" {
			return cell{Text: title, Cut: cut}
		}
		return cell{Text: title, Cut: cut, Link: filterLink(col.Target, "platform/id", fmt.Sprint(obj["platform/id"]))}
	case "rich":
		obj, _ := v.(map[string]any)
		secret, _ := obj["secret"].(string)
		if secret == "" || c.cfg.Documents == nil {
			return cell{}
		}
		if room <= 0 {
			return cell{Omitted: true}
		}
		md, found, err := c.cfg.Documents.Get(ctx, secret)
		if err != nil || !found {
			return cell{}
		}
		return richCell(convert, md, room)
	}
	text, ok := valueText(v)
	if !ok {
		return cell{}
	}
	if col.Field != nil && col.Field.Prim == store.TDateTime && room > 0 {
		if ce, ok := dateTimeCell(v, text); ok {
			return ce
		}
	}
	if room <= 0 && text != "" {
		return cell{Omitted: true}
	}
	text, cut := cutText(text, room)
	return cell{Text: text, Cut: cut}
}

// manyCellOf is the cell of a many column: links to the related entities
// of mv by title, as many of the first maxManyLinks as fit in room bytes,
// and "+N more" for the others (linking to them all when the relation has
// a partner field).
func manyCellOf(col column, id string, mv manyValue, room int) cell {
	items, _ := mv.Items.([]any)
	total, ok := count(mv.Count)
	if !ok || total < len(items) {
		total = len(items)
	}
	if total == 0 {
		return cell{}
	}
	m := &manyCell{}
	for _, it := range items {
		obj, _ := it.(map[string]any)
		eid := fmt.Sprint(obj["platform/id"])
		title := fmt.Sprint(obj["title"])
		if obj["title"] == nil {
			title = eid
		}
		if t, cut := cutText(title, maxLabel); cut {
			title = t + "…"
		}
		l := cellLink{Text: title, Link: filterLink(col.Target, "platform/id", eid)}
		if len(l.Text)+len(l.Link) > room {
			break
		}
		room -= len(l.Text) + len(l.Link)
		m.Links = append(m.Links, l)
	}
	m.More = total - len(m.Links)
	if m.More > 0 && col.Partner != "" {
		m.MoreLink = filterLink(col.Target, col.Partner, id)
	}
	return cell{Many: m}
}

// count reads an aggregate count.
func count(v any) (int, bool) {
	switch x := v.(type) {
	case int64:
		return int(x), true
	case int:
		return x, true
	case float64:
		return int(x), true
	case json.Number:
		n, err := x.Int64()
		return int(n), err == nil
	}
	return 0, false
}

// dateTimeLayouts are the forms a date-time value is read in.
var dateTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"}

// dateTimeCell shows a date-time readably, to the minute in UTC
// ("2006-01-02 15:04 UTC"), its stored value text kept in Raw; false when v
// is not a date-time.
func dateTimeCell(v any, text string) (cell, bool) {
	t, ok := v.(time.Time)
	if ok {
		text = t.Format(time.RFC3339Nano)
	}
	for _, l := range dateTimeLayouts {
		if ok {
			break
		}
		var err error
		t, err = time.Parse(l, strings.TrimSpace(text))
		ok = err == nil
	}
	if !ok {
		return cell{}, false
	}
	t = t.UTC()
	return cell{Text: t.Format("2006-01-02 15:04 UTC"), When: t.Format(time.RFC3339Nano), Raw: text}, true
}

// richCell shows at most room bytes of the Markdown md: its start
// rendered, cut so that the HTML fits (tried at room, then at half of it),
// else the Markdown's start as text (a conversion stopped by ctx too).
func richCell(ctx context.Context, md string, room int) cell {
	for _, n := range []int{room, room / 2} {
		part, cut := cutText(md, n)
		h, err := documents.MarkdownToHTMLContext(ctx, part)
		if err != nil {
			break
		}
		if len(h) <= room {
			return cell{HTML: template.HTML(h), Cut: cut} //nolint:gosec // rendered without raw HTML by package documents
		}
	}
	part, cut := cutText(md, room)
	return cell{Text: part, Cut: cut}
}

// valueText is a primitive value as a cell shows it; false for none.
func valueText(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case json.RawMessage:
		var list []string
		if json.Unmarshal(x, &list) == nil {
			return strings.Join(list, ", "), true
		}
		return string(x), true
	case []any:
		parts := make([]string, 0, len(x))
		for _, p := range x {
			parts = append(parts, fmt.Sprint(p))
		}
		return strings.Join(parts, ", "), true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v), true
	}
	return string(b), true
}

// valueData is the whole-value page's content.
type valueData struct {
	Type, Label, ID, Field string
	// Back is the table's address.
	Back string
	// HTML is a rich-text value rendered; Text any other value, or a
	// rich-text value too large (or too complex) to render.
	HTML template.HTML
	Text string
}

// valuePage shows one entity's whole value of one field (?id=&field=):
// the page a cut table cell links to.
func (c *Console) valuePage(w http.ResponseWriter, r *http.Request) {
	name, q := r.PathValue("type"), r.URL.Query()
	id, fieldName := q.Get("id"), q.Get("field")
	cat, err := c.cfg.Store.Catalog(r.Context())
	if err != nil {
		c.internal(w, r, err)
		return
	}
	t := cat.Type(name)
	if t == nil || t.Kind != store.KindDomain {
		c.render(w, r, http.StatusNotFound, "error", &page{Title: "No such database", Error: fmt.Sprintf("The store has no database %q.", name)})
		return
	}
	f := t.Field(fieldName)
	rich := f != nil && cat.IsRichText(f)
	if f == nil || !(rich || f.Role == store.RolePrimitive) {
		c.render(w, r, http.StatusNotFound, "error", &page{Title: "No such field", Error: fmt.Sprintf("The database has no field %q with values to show.", fieldName)})
		return
	}
	sel := query.Select{Kind: query.SelectField, Key: "v", Field: f.Name}
	if rich {
		sel = query.Select{Kind: query.SelectObject, Key: "v", Field: f.Name,
			Sub: []query.Select{{Kind: query.SelectField, Key: "secret", Field: store.DocumentSecret}}}
	}
	rows, err := query.Exec(r.Context(), c.cfg.Store, &query.Query{From: name, Select: []query.Select{sel}, Limit: 1,
		Where: &query.Filter{Op: query.OpEq, Path: query.Path{Fields: []string{"platform/id"}}, Value: query.Value{Literal: id}}}, nil)
	if err != nil {
		var qe *store.Error
		if errors.As(err, &qe) {
			c.render(w, r, http.StatusBadRequest, "error", &page{Title: "Query refused", Error: err.Error()})
			return
		}
		c.internal(w, r, err)
		return
	}
	if len(rows) == 0 {
		c.render(w, r, http.StatusNotFound, "error", &page{Title: "No such entity", Error: fmt.Sprintf("The database has no entity %q.", id)})
		return
	}
	d := &valueData{Type: name, Label: label(f), ID: id, Field: f.Name, Back: "/data/" + name}
	if rich {
		obj, _ := rows[0]["v"].(map[string]any)
		if secret, _ := obj["secret"].(string); secret != "" && c.cfg.Documents != nil {
			md, _, err := c.cfg.Documents.Get(r.Context(), secret)
			if err != nil {
				c.internal(w, r, err)
				return
			}
			d.Text = md
			if len(md) <= maxWholeHTML {
				ctx, cancel := context.WithTimeout(r.Context(), documents.DefaultConvertTimeout)
				h, err := documents.MarkdownToHTMLContext(ctx, md)
				cancel()
				if err == nil {
					d.HTML, d.Text = template.HTML(h), "" //nolint:gosec // rendered without raw HTML by package documents
				}
			}
		}
	} else {
		d.Text, _ = valueText(rows[0]["v"])
	}
	c.render(w, r, http.StatusOK, "value", &page{Title: d.Label + " of " + id, Nav: "data", Data: d})
}
