package console

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"

	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// valueView is the whole-value page's content.
type valueView struct {
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
func (c *Console) valuePage(w http.ResponseWriter, r *http.Request) error {
	name, q := r.PathValue("type"), r.URL.Query()
	id, fieldName := q.Get("id"), q.Get("field")
	cat, err := c.cfg.Store.Catalog(r.Context())
	if err != nil {
		return fmt.Errorf("console: catalog: %w", err)
	}
	t := cat.Type(name)
	if t == nil || t.Kind != store.KindDomain {
		return &pageError{Status: http.StatusNotFound, Title: "No such database", Message: fmt.Sprintf("The store has no database %q.", name)}
	}
	f := t.Field(fieldName)
	rich := f != nil && cat.IsRichText(f)
	if f == nil || !(rich || f.Role == store.RolePrimitive) {
		return &pageError{Status: http.StatusNotFound, Title: "No such field", Message: fmt.Sprintf("The database has no field %q with values to show.", fieldName)}
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
			return &pageError{Status: http.StatusBadRequest, Title: "Query refused", Message: err.Error()}
		}
		return fmt.Errorf("console: value of %s: %w", name, err)
	}
	if len(rows) == 0 {
		return &pageError{Status: http.StatusNotFound, Title: "No such entity", Message: fmt.Sprintf("The database has no entity %q.", id)}
	}
	d := &valueView{Type: name, Label: label(f), ID: id, Field: f.Name, Back: "/data/" + name}
	if rich {
		obj, _ := rows[0]["v"].(map[string]any)
		if secret, _ := obj["secret"].(string); secret != "" && c.cfg.Documents != nil {
			md, _, err := c.cfg.Documents.Get(r.Context(), secret)
			if err != nil {
				return fmt.Errorf("console: document: %w", err)
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
	return valueScreen.show(c, w, r, http.StatusOK, layout{Title: d.Label + " of " + id, Nav: "data"}, d)
}
