package console

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/store"
)

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

// size is what the cell adds to its page: its texts as the page writes
// them (escaped, see shownLen), its rendered rich text.
func (c cell) size() int {
	n := shownLen(c.Text) + len(c.HTML) + shownLen(c.Link) + shownLen(c.Raw) + len(c.When)
	if c.Many != nil {
		n += shownLen(c.Many.MoreLink)
		for _, l := range c.Many.Links {
			n += shownLen(l.Text) + shownLen(l.Link)
		}
	}
	return n
}

// escapedSize is what one byte of a cell's text takes on the page, as
// html/template escapes it in a text node or an attribute: "&#34;" for a
// quote, "&lt;" for <, U+FFFD for NUL.
func escapedSize(b byte) int {
	switch b {
	case '"', '\'', '+', '&':
		return 5
	case '<', '>':
		return 4
	case 0:
		return 3
	}
	return 1
}

// shownLen is the bytes s takes on the page, escaped.
func shownLen(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n += escapedSize(s[i])
	}
	return n
}

// cutShown returns the start of s that takes at most n bytes on the page,
// escaped (see shownLen), ending on a character boundary, and whether
// anything was left out.
func cutShown(s string, n int) (string, bool) {
	used := 0
	for i := 0; i < len(s); i++ {
		if used += escapedSize(s[i]); used > n {
			return cutText(s, i)
		}
	}
	return s, false
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

// cellOf is the cell of value v in column col of entity id, showing at
// most room bytes of the value (none when room is 0 or less); rich text is
// read with ctx and converted with convert.
func (s dataSource) cellOf(ctx, convert context.Context, col column, id string, v any, room int) cell {
	switch col.Kind {
	case "collection":
		return cell{Text: "show", Link: filterLink(col.Target, col.Partner, id)}
	case "many":
		mv, _ := v.(manyValue)
		return manyCellOf(col, id, mv, room)
	case "relation", "select":
		return relationCell(col, v, room)
	case "rich":
		return s.richCellOf(ctx, convert, v, room)
	}
	return textCell(col, v, room)
}

// relationCell is the cell of a to-one relation or a single-select: the
// related entity's title (else its id), linking to it for a relation.
func relationCell(col column, v any, room int) cell {
	obj, _ := v.(map[string]any)
	if obj == nil {
		return cell{}
	}
	title := fmt.Sprint(obj["title"])
	if obj["title"] == nil {
		title = fmt.Sprint(obj["platform/id"])
	}
	title, cut := cutShown(title, room)
	if cut {
		title += "…"
	}
	if col.Kind == "select" {
		return cell{Text: title, Cut: cut}
	}
	return cell{Text: title, Cut: cut, Link: filterLink(col.Target, "platform/id", fmt.Sprint(obj["platform/id"]))}
}

// richCellOf is the cell of a rich-text value (its richSelect selection):
// its document's Markdown read with ctx and shown by richCell.
func (s dataSource) richCellOf(ctx, convert context.Context, v any, room int) cell {
	secret := docSecret(v)
	if secret == "" || s.docs == nil {
		return cell{}
	}
	if room <= 0 {
		return cell{Omitted: true}
	}
	md, found, err := s.docs.Get(ctx, secret)
	if err != nil || !found {
		return cell{}
	}
	return richCell(convert, md, room)
}

// docSecret is the document secret of a rich-text value's selection
// (richSelect); "" for none.
func docSecret(v any) string {
	obj, _ := v.(map[string]any)
	secret, _ := obj["secret"].(string)
	return secret
}

// textCell is the cell of a primitive value: a date-time made readable
// (when it fits), anything else as text cut to room bytes on the page.
func textCell(col column, v any, room int) cell {
	text, ok := valueText(v)
	if !ok {
		return cell{}
	}
	if col.Field != nil && col.Field.Prim == store.TDateTime && room > 0 {
		if ce, ok := dateTimeCell(v, text); ok && ce.size() <= room {
			return ce
		}
	}
	if room <= 0 && text != "" {
		return cell{Omitted: true}
	}
	text, cut := cutShown(text, room)
	if cut && text == "" {
		return cell{Omitted: true}
	}
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
		n := shownLen(l.Text) + shownLen(l.Link)
		if n > room {
			break
		}
		room -= n
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
	part, cut := cutShown(md, room)
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
