package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// Bounds of a table page: whatever the store holds, a page shows at most
// pageSize rows of maxColumns columns, each cell at most maxCell bytes of
// its value and each row at most maxRowCells bytes (so the cells of a page
// stay within 1 MiB), counted as the page writes them, escaped (a quote
// is five bytes; see cell.size); a cell cut or left out links to its whole
// value, shown on a page of its own.
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

// tableView is the table page's content: the query of its address
// (Type, Page, Sort, Desc, Filter) and what it shows.
type tableView struct {
	tableQuery
	Space    string
	GraphQL  string
	Columns  []column
	Rows     [][]cell
	Prev     string
	Next     string
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
	if f.IsTitle() {
		return -1
	}
	if n, ok := f.Order(); ok {
		return n
	}
	return 1e9
}

func label(f *store.Field) string {
	s := f.Label()
	if s == "" {
		_, s = spaceOf(f.Name)
	}
	if s, cut := cutText(s, maxLabel); cut {
		return s + "…"
	}
	return s
}

// titleField is the field of t marked ui/title?, else its first text field.
func titleField(t *store.Type) string {
	if f := t.TitleField(); f != nil {
		return f.Name
	}
	for _, f := range t.Fields {
		if f.Role == store.RolePrimitive && f.Prim == store.TText {
			return f.Name
		}
	}
	return "platform/id"
}

// tablePage shows one page of a database as a table: its address read
// (parseTableQuery), the query planned on the catalog (planTable), the
// rows loaded (queryTable) and the cells made within the page's bounds
// (newTableView).
func (c *Console) tablePage(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("type")
	cat, t, err := c.data.domainType(r.Context(), name)
	if err != nil {
		return err
	}
	tq, err := parseTableQuery(name, r.URL.Query())
	if err != nil {
		return err
	}
	plan, err := planTable(cat, t, tq)
	if err != nil {
		return err
	}
	rows, more, err := c.data.queryTable(r.Context(), plan.query)
	if err != nil {
		return err
	}
	d := c.newTableView(r.Context(), tq, plan, rows, more)
	return tableScreen.show(c, w, r, http.StatusOK, layout{Title: name, Nav: "data"}, d)
}

// dataSource is what the data screens read: the store's databases and
// the documents of their rich-text fields (nil shows them empty).
type dataSource struct {
	store *store.Store
	docs  *documents.Store
}

// domainType returns the catalog and its database (domain type) name.
func (s dataSource) domainType(ctx context.Context, name string) (*store.Catalog, *store.Type, error) {
	cat, err := s.store.Catalog(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("console: catalog: %w", err)
	}
	t := cat.Type(name)
	if t == nil || t.Kind != store.KindDomain {
		return nil, nil, &pageError{Status: http.StatusNotFound, Title: "No such database", Message: fmt.Sprintf("The store has no database %q.", name)}
	}
	return cat, t, nil
}

// maxPage bounds a table's page number.
const maxPage = 1_000_000

// tableQuery is what a table page's address asks for:
// /data/{type}?page=N&sort=FIELD&desc=1&field=FIELD&op=contains|eq&value=V.
type tableQuery struct {
	Type string
	// Page counts from 1.
	Page int
	// Sort is the field sorted by ("" for the store's order), descending
	// when Desc.
	Sort string
	Desc bool
	// Filter is the filter asked for (its Op "contains" unless "eq").
	Filter tableFilter
}

// parseTableQuery reads a table page's address (the fields it names are
// checked against the database by planTable).
func parseTableQuery(typ string, q url.Values) (tableQuery, error) {
	tq := tableQuery{Type: typ, Page: 1, Sort: q.Get("sort"), Desc: q.Get("desc") == "1",
		Filter: tableFilter{Field: q.Get("field"), Op: q.Get("op"), Value: q.Get("value")}}
	if tq.Filter.Op == "" {
		tq.Filter.Op = "contains"
	}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > maxPage {
			return tq, &pageError{Status: http.StatusBadRequest, Title: "Bad page", Message: "The page is a number from 1."}
		}
		tq.Page = n
	}
	return tq, nil
}

// filtered reports whether the query filters the rows (a field and a
// value given).
func (tq tableQuery) filtered() bool { return tq.Filter.Field != "" && tq.Filter.Value != "" }

// where is the query's filter on the database t (nil for none).
func (tq tableQuery) where(t *store.Type) (*query.Filter, error) {
	if !tq.filtered() {
		return nil, nil
	}
	fl := tq.Filter
	f := t.Field(fl.Field)
	if f == nil {
		return nil, &pageError{Status: http.StatusBadRequest, Title: "Bad filter", Message: fmt.Sprintf("The database has no field %q.", fl.Field)}
	}
	op := query.OpContains
	if fl.Op == "eq" || f.Role == store.RoleRelation {
		op = query.OpEq
	}
	var v any = fl.Value
	if f.Role == store.RolePrimitive && (f.Prim == store.TInt || f.Prim == store.TDecimal) {
		n, err := strconv.ParseFloat(fl.Value, 64)
		if err != nil {
			return nil, &pageError{Status: http.StatusBadRequest, Title: "Bad filter", Message: fmt.Sprintf("%s holds numbers: %q is not one.", label(f), fl.Value)}
		}
		v, op = n, query.OpEq
	}
	return &query.Filter{Op: op, Path: query.Path{Fields: []string{f.Name}}, Value: query.Value{Literal: v}}, nil
}

// order is the query's sort on the database t (nil for none): by one
// primitive field.
func (tq tableQuery) order(t *store.Type) ([]query.Order, error) {
	if tq.Sort == "" {
		return nil, nil
	}
	if f := t.Field(tq.Sort); f == nil || f.Role != store.RolePrimitive {
		return nil, &pageError{Status: http.StatusBadRequest, Title: "Bad sort", Message: fmt.Sprintf("The database cannot be sorted by %q.", tq.Sort)}
	}
	return []query.Order{{Path: query.Path{Fields: []string{tq.Sort}}, Desc: tq.Desc}}, nil
}

// link is the address of another page of the same table, with the
// query's filter.
func (tq tableQuery) link(page int, sortBy string, desc bool) string {
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
	if tq.filtered() {
		v.Set("field", tq.Filter.Field)
		v.Set("op", tq.Filter.Op)
		v.Set("value", tq.Filter.Value)
	}
	s := "/data/" + tq.Type
	if len(v) > 0 {
		s += "?" + v.Encode()
	}
	return s
}

// tablePlan is a table page's query and the columns it shows.
type tablePlan struct {
	query   *query.Query
	columns []column
	// moreColumns counts the fields not shown (beyond maxColumns).
	moreColumns int
}

// planTable is the query of tq on the database t: its first maxColumns
// columns, the filter and the sort, and one page of pageSize rows (and one
// more, to know whether another page follows).
func planTable(cat *store.Catalog, t *store.Type, tq tableQuery) (tablePlan, error) {
	cols, sel, more := tableColumns(cat, t)
	where, err := tq.where(t)
	if err != nil {
		return tablePlan{}, err
	}
	order, err := tq.order(t)
	if err != nil {
		return tablePlan{}, err
	}
	qu := &query.Query{From: tq.Type, Select: sel, Where: where, Order: order, Limit: pageSize + 1, Offset: (tq.Page - 1) * pageSize}
	return tablePlan{query: qu, columns: cols, moreColumns: more}, nil
}

// tableColumns are the columns of the database t in their ui/order, at
// most maxColumns (more counts the others), and what the query selects
// for them (the entity's id first).
func tableColumns(cat *store.Catalog, t *store.Type) (cols []column, sel []query.Select, more int) {
	fields := append([]*store.Field(nil), t.Fields...)
	sort.SliceStable(fields, func(i, j int) bool { return uiOrder(fields[i]) < uiOrder(fields[j]) })
	sel = []query.Select{{Kind: query.SelectField, Key: "platform/id", Field: "platform/id"}}
	for _, f := range fields {
		if f.Hidden() || f.Role == store.RoleID || f.Role == store.RolePublicID || f.Role == store.RoleCreated || f.Role == store.RoleModified {
			continue
		}
		col, s, ok := columnOf(cat, f)
		switch {
		case !ok:
			continue
		case len(cols) == maxColumns:
			more++
			continue
		}
		sel = append(sel, s...)
		cols = append(cols, col)
	}
	return cols, sel, more
}

// queryTable loads a page's rows, at most pageSize, and whether more
// follow.
func (s dataSource) queryTable(ctx context.Context, qu *query.Query) (rows []map[string]any, more bool, err error) {
	rows, err = s.execQuery(ctx, qu)
	if err != nil {
		return nil, false, err
	}
	if len(rows) > pageSize {
		return rows[:pageSize], true, nil
	}
	return rows, false, nil
}

// execQuery runs a query of a table or value page; the store's refusal
// of it (a *store.Error) is the user's: 400, "Query refused".
func (s dataSource) execQuery(ctx context.Context, qu *query.Query) ([]map[string]any, error) {
	rows, err := query.Exec(ctx, s.store, qu, nil)
	if err != nil {
		var qe *store.Error
		if errors.As(err, &qe) {
			return nil, &pageError{Status: http.StatusBadRequest, Title: "Query refused", Message: err.Error()}
		}
		return nil, fmt.Errorf("console: query of %s: %w", qu.From, err)
	}
	return rows, nil
}

// newTableView is the table page of tq: the plan's columns with their
// sort links, the rows' cells (within the page's bounds, see tableRows)
// and the links to the pages before and after.
func (c *Console) newTableView(ctx context.Context, tq tableQuery, plan tablePlan, rows []map[string]any, more bool) *tableView {
	d := &tableView{tableQuery: tq, Columns: plan.columns, MoreColumns: plan.moreColumns, Filtered: tq.filtered()}
	d.Space, _ = spaceOf(tq.Type)
	d.GraphQL = c.graphQLLink(d.Space)
	if d.Page > 1 {
		d.Prev = tq.link(d.Page-1, d.Sort, d.Desc)
	}
	if more {
		d.Next = tq.link(d.Page+1, d.Sort, d.Desc)
	}
	for _, col := range d.Columns {
		link := ""
		if col.Sortable {
			link = tq.link(1, col.Field.Name, d.Sort == col.Field.Name && !d.Desc)
		}
		d.SortLinks = append(d.SortLinks, link)
	}
	d.Rows = c.data.tableRows(ctx, tq.Type, d.Columns, rows)
	return d
}

// tableRows makes the cells of a page's rows within the page's bounds:
// each cell shows at most maxCell bytes of its value, the cells of a row
// together at most maxRowCells; rich text is converted with the request's
// context and, for the page's conversions together, at most the
// documents' conversion timeout (a conversion stopped shows its Markdown
// as text).
func (s dataSource) tableRows(ctx context.Context, typ string, cols []column, rows []map[string]any) [][]cell {
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
			ce := s.cellOf(ctx, cctx, col, id, v, min(maxCell, room))
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
		return col, []query.Select{richSelect(f.Name, f.Name)}, true
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

// richSelect selects a rich-text field as key: its document's secret, by
// which the documents store finds its Markdown.
func richSelect(key, field string) query.Select {
	return query.Select{Kind: query.SelectObject, Key: key, Field: field,
		Sub: []query.Select{{Kind: query.SelectField, Key: "secret", Field: store.DocumentSecret}}}
}

// filterLink is the address of the rows of typ whose field is value.
func filterLink(typ, field, value string) string {
	return "/data/" + typ + "?" + url.Values{"field": {field}, "op": {"eq"}, "value": {value}}.Encode()
}
