package console

import (
	"context"
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
	cat, t, err := c.data.domainType(r.Context(), name)
	if err != nil {
		return err
	}
	f := t.Field(fieldName)
	rich := f != nil && cat.IsRichText(f)
	if f == nil || !(rich || f.Role == store.RolePrimitive) {
		return &pageError{Status: http.StatusNotFound, Title: "No such field", Message: fmt.Sprintf("The database has no field %q with values to show.", fieldName)}
	}
	sel := query.Select{Kind: query.SelectField, Key: "v", Field: f.Name}
	if rich {
		sel = richSelect("v", f.Name)
	}
	rows, err := c.data.execQuery(r.Context(), &query.Query{From: name, Select: []query.Select{sel}, Limit: 1,
		Where: &query.Filter{Op: query.OpEq, Path: query.Path{Fields: []string{"platform/id"}}, Value: query.Value{Literal: id}}})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return &pageError{Status: http.StatusNotFound, Title: "No such entity", Message: fmt.Sprintf("The database has no entity %q.", id)}
	}
	d := &valueView{Type: name, Label: label(f), ID: id, Field: f.Name, Back: "/data/" + name}
	if !rich {
		d.Text, _ = valueText(rows[0]["v"])
	} else if err := c.data.wholeRichText(r.Context(), d, rows[0]["v"]); err != nil {
		return err
	}
	return valueScreen.show(c, w, r, http.StatusOK, layout{Title: d.Label + " of " + id, Nav: "data"}, d)
}

// wholeRichText sets the value of d from a rich-text field's selection
// (richSelect): its Markdown rendered when at most maxWholeHTML bytes and
// rendered within the documents' conversion timeout, else its Markdown.
func (s dataSource) wholeRichText(ctx context.Context, d *valueView, v any) error {
	secret := docSecret(v)
	if secret == "" || s.docs == nil {
		return nil
	}
	md, _, err := s.docs.Get(ctx, secret)
	if err != nil {
		return fmt.Errorf("console: document: %w", err)
	}
	d.Text = md
	if len(md) > maxWholeHTML {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, documents.DefaultConvertTimeout)
	defer cancel()
	if h, err := documents.MarkdownToHTMLContext(ctx, md); err == nil {
		d.HTML, d.Text = template.HTML(h), "" //nolint:gosec // rendered without raw HTML by package documents
	}
	return nil
}
