package console

import (
	"context"
	"encoding/json"
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

type tableView struct {
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

func (c *Console) tablePage(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("type")
	q := r.URL.Query()
	cat, err := c.cfg.Store.Catalog(r.Context())
	if err != nil {
		return fmt.Errorf("console: catalog: %w", err)
	}
	t := cat.Type(name)
	if t == nil || t.Kind != store.KindDomain {
		return &pageError{Status: http.StatusNotFound, Title: "No such database", Message: fmt.Sprintf("The store has no database %q.", name)}
	}
	d := &tableView{Type: name, Sort: q.Get("sort"), Desc: q.Get("desc") == "1"}
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
			return &pageError{Status: http.StatusBadRequest, Title: "Bad filter", Message: fmt.Sprintf("The database has no field %q.", fl.Field)}
		}
		op := query.OpContains
		if fl.Op == "eq" {
			op = query.OpEq
		}
		var v any = fl.Value
		if f.Role == store.RolePrimitive && (f.Prim == store.TInt || f.Prim == store.TDecimal) {
			n, err := strconv.ParseFloat(fl.Value, 64)
			if err != nil {
				return &pageError{Status: http.StatusBadRequest, Title: "Bad filter", Message: fmt.Sprintf("%s holds numbers: %q is not one.", label(f), fl.Value)}
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
			return &pageError{Status: http.StatusBadRequest, Title: "Bad sort", Message: fmt.Sprintf("The database cannot be sorted by %q.", d.Sort)}
		}
		qu.Order = []query.Order{{Path: query.Path{Fields: []string{d.Sort}}, Desc: d.Desc}}
	}
	d.Page = 1
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 1_000_000 {
			return &pageError{Status: http.StatusBadRequest, Title: "Bad page", Message: "The page is a number from 1."}
		}
		d.Page = n
	}
	qu.Offset = (d.Page - 1) * pageSize
	rows, err := query.Exec(r.Context(), c.cfg.Store, qu, nil)
	if err != nil {
		var qe *store.Error
		if errors.As(err, &qe) {
			return &pageError{Status: http.StatusBadRequest, Title: "Query refused", Message: err.Error()}
		}
		return fmt.Errorf("console: table %s: %w", name, err)
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
	return tableScreen.show(c, w, r, http.StatusOK, layout{Title: name, Nav: "data"}, d)
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
