package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// pageSize is the rows of a table page.
const pageSize = 25

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
	// name), rich (rich text), collection (a link to the related rows).
	Kind string
	// Title is the related type's title field (relation, select).
	Title string
	// Target is the related type's name; Partner the field of the target
	// pointing back (collection).
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
	if s, ok := f.Meta["ui/label"].(string); ok && s != "" {
		return s
	}
	_, n := spaceOf(f.Name)
	return n
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
		col := column{Field: f, Label: label(f), Kind: "text"}
		switch {
		case f.Role == store.RolePrimitive:
			col.Sortable = f.Prim != store.TJSON
			sel = append(sel, query.Select{Kind: query.SelectField, Key: f.Name, Field: f.Name})
		case cat.IsRichText(f):
			col.Kind = "rich"
			sel = append(sel, query.Select{Kind: query.SelectObject, Key: f.Name, Field: f.Name,
				Sub: []query.Select{{Kind: query.SelectField, Key: "secret", Field: store.DocumentSecret}}})
		case f.Role == store.RoleRelation && !f.Collection:
			target := cat.Target(f)
			if target == nil {
				continue
			}
			col.Kind, col.Target, col.Title = "relation", target.Name, titleField(target)
			if target.Kind == store.KindEnum {
				col.Kind = "select"
			}
			sel = append(sel, query.Select{Kind: query.SelectObject, Key: f.Name, Field: f.Name,
				Sub: []query.Select{{Kind: query.SelectField, Key: "platform/id", Field: "platform/id"}, {Kind: query.SelectField, Key: "title", Field: col.Title}}})
		case f.Role == store.RoleRelation && f.Collection:
			target, partner := cat.Target(f), cat.Partner(f)
			if target == nil || partner == nil || partner.Collection || target.Kind != store.KindDomain {
				continue
			}
			col.Kind, col.Target, col.Partner = "collection", target.Name, partner.Name
		default:
			continue
		}
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
	for _, row := range rows {
		id, _ := row["platform/id"].(string)
		cells := make([]cell, 0, len(d.Columns))
		for _, col := range d.Columns {
			cells = append(cells, c.cellOf(r, col, id, row[col.Field.Name]))
		}
		d.Rows = append(d.Rows, cells)
	}
	c.render(w, r, http.StatusOK, "table", &page{Title: name, Nav: "data", Data: d})
}

// filterLink is the address of the rows of typ whose field is value.
func filterLink(typ, field, value string) string {
	return "/data/" + typ + "?" + url.Values{"field": {field}, "op": {"eq"}, "value": {value}}.Encode()
}

func (c *Console) cellOf(r *http.Request, col column, id string, v any) cell {
	switch col.Kind {
	case "collection":
		return cell{Text: "show", Link: filterLink(col.Target, col.Partner, id)}
	case "relation", "select":
		obj, _ := v.(map[string]any)
		if obj == nil {
			return cell{}
		}
		title := fmt.Sprint(obj["title"])
		if obj["title"] == nil {
			title = fmt.Sprint(obj["platform/id"])
		}
		if col.Kind == "select" {
			return cell{Text: title}
		}
		return cell{Text: title, Link: filterLink(col.Target, "platform/id", fmt.Sprint(obj["platform/id"]))}
	case "rich":
		obj, _ := v.(map[string]any)
		secret, _ := obj["secret"].(string)
		if secret == "" || c.cfg.Documents == nil {
			return cell{}
		}
		md, found, err := c.cfg.Documents.Get(r.Context(), secret)
		if err != nil || !found {
			return cell{}
		}
		h, err := documents.MarkdownToHTML(md)
		if err != nil {
			return cell{Text: md}
		}
		return cell{HTML: template.HTML(h)} //nolint:gosec // rendered without raw HTML by package documents
	}
	switch x := v.(type) {
	case nil:
		return cell{}
	case string:
		return cell{Text: x}
	case json.RawMessage:
		var list []string
		if json.Unmarshal(x, &list) == nil {
			return cell{Text: strings.Join(list, ", ")}
		}
		return cell{Text: string(x)}
	case []any:
		parts := make([]string, 0, len(x))
		for _, p := range x {
			parts = append(parts, fmt.Sprint(p))
		}
		return cell{Text: strings.Join(parts, ", ")}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return cell{Text: fmt.Sprint(v)}
	}
	return cell{Text: string(b)}
}
