package documents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Node is one node of the json format of a document: a tree whose root has
// type "doc". The node types and the fields each one uses:
//
//	doc                          children: blocks
//	heading        level (1-6)   children: inlines
//	paragraph                    children: inlines
//	blockquote                   children: blocks
//	list           ordered, start (ordered lists only)   children: list_item
//	list_item      checked (task list items only)        children: blocks
//	code_block     language, text
//	thematic_break
//	table                        children: table_row (the first one has header: true)
//	table_row      header        children: table_cell
//	table_cell     align ("left", "center", "right" or absent)  children: inlines
//	html_block     text (raw HTML, kept in markdown, never rendered)
//	text           text
//	emphasis, strong, strikethrough   children: inlines
//	code           text (inline code)
//	link           url, title    children: inlines
//	image          url, title, alt
//	html_inline    text
//	soft_break, hard_break
//
// Reading a document as json gives this tree; writing json accepts it back
// (an unknown type, a missing required field or a tree deeper than
// [MaxTreeDepth] is an error). Task-list check boxes are read but written
// back as plain text.
type Node struct {
	Type     string  `json:"type"`
	Text     string  `json:"text,omitempty"`
	Level    int     `json:"level,omitempty"`
	Ordered  bool    `json:"ordered,omitempty"`
	Start    int     `json:"start,omitempty"`
	Checked  *bool   `json:"checked,omitempty"`
	Language string  `json:"language,omitempty"`
	URL      string  `json:"url,omitempty"`
	Title    string  `json:"title,omitempty"`
	Alt      string  `json:"alt,omitempty"`
	Header   bool    `json:"header,omitempty"`
	Align    string  `json:"align,omitempty"`
	Children []*Node `json:"children,omitempty"`
}

// Limits of a json document accepted by [UnmarshalTree].
const (
	MaxTreeDepth = 64
	MaxTreeNodes = 200000
)

// ErrTree reports a json document tree that cannot be written.
var ErrTree = errors.New("documents: invalid document tree")

// MarkdownToTree parses markdown into the document tree. Markdown over the
// input limits (see [MaxContainersPerLine]) gives a doc node holding its
// whole text as one paragraph.
func MarkdownToTree(markdown string) *Node {
	n, err := markdownToTree(context.Background(), markdown)
	if err != nil {
		return &Node{Type: "doc", Children: []*Node{{Type: "paragraph", Children: []*Node{{Type: "text", Text: markdown}}}}}
	}
	return n
}

// markdownToTree parses markdown into the document tree; it refuses
// markdown over the input limits and stops when ctx ends (ErrTooComplex).
func markdownToTree(ctx context.Context, markdown string) (n *Node, err error) {
	if err := checkMarkdown(markdown); err != nil {
		return nil, err
	}
	defer recoverCancel(ctx, &err)
	src := []byte(markdown)
	root := md.Parser().Parse(text.NewReader(src), parser.WithContext(parserContext(ctx)))
	b := treeBuilder{src: src}
	return b.node(root), nil
}

type treeBuilder struct{ src []byte }

// inlineText resolves backslash escapes and character references of a text
// segment, as the HTML renderer does.
func inlineText(v []byte) string {
	v = util.UnescapePunctuations(v)
	v = util.ResolveNumericReferences(v)
	v = util.ResolveEntityNames(v)
	return string(v)
}

func (b *treeBuilder) lines(n ast.Node) string {
	var sb strings.Builder
	l := n.Lines()
	for i := 0; i < l.Len(); i++ {
		seg := l.At(i)
		sb.Write(seg.Value(b.src))
	}
	return sb.String()
}

func (b *treeBuilder) children(n ast.Node) []*Node {
	var out []*Node
	// goldmark splits text at delimiters it tried; join the pieces (with a
	// builder: a run of pieces can be long).
	var run strings.Builder
	inRun := false
	flush := func() {
		if inRun {
			out = append(out, &Node{Type: "text", Text: run.String()})
			run.Reset()
			inRun = false
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		for _, nd := range b.expand(c) {
			if nd.Type == "text" {
				run.WriteString(nd.Text)
				inRun = true
				continue
			}
			flush()
			out = append(out, nd)
		}
	}
	flush()
	return out
}

// expand converts one AST node; a text node with a trailing line break
// becomes two tree nodes, a tight list's text block its children.
func (b *treeBuilder) expand(n ast.Node) []*Node {
	switch n := n.(type) {
	case *ast.Text:
		var out []*Node
		var v string
		if n.IsRaw() {
			v = string(n.Value(b.src))
		} else {
			v = inlineText(n.Value(b.src))
		}
		if v != "" {
			out = append(out, &Node{Type: "text", Text: v})
		}
		switch {
		case n.HardLineBreak():
			out = append(out, &Node{Type: "hard_break"})
		case n.SoftLineBreak():
			out = append(out, &Node{Type: "soft_break"})
		}
		return out
	case *ast.String:
		return []*Node{{Type: "text", Text: string(n.Value)}}
	case *east.TaskCheckBox:
		return nil // carried by the list item
	}
	if nd := b.node(n); nd != nil {
		return []*Node{nd}
	}
	// A node of no known kind: keep its content.
	if n.Type() == ast.TypeBlock && n.HasChildren() {
		return []*Node{{Type: "paragraph", Children: b.children(n)}}
	}
	return b.children(n)
}

func (b *treeBuilder) node(n ast.Node) *Node {
	switch n := n.(type) {
	case *ast.Document:
		return &Node{Type: "doc", Children: b.children(n)}
	case *ast.Heading:
		return &Node{Type: "heading", Level: n.Level, Children: b.children(n)}
	case *ast.Paragraph, *ast.TextBlock:
		return &Node{Type: "paragraph", Children: b.children(n)}
	case *ast.Blockquote:
		return &Node{Type: "blockquote", Children: b.children(n)}
	case *ast.List:
		l := &Node{Type: "list", Ordered: n.IsOrdered(), Children: b.children(n)}
		if n.IsOrdered() {
			l.Start = n.Start
		}
		return l
	case *ast.ListItem:
		li := &Node{Type: "list_item", Children: b.children(n)}
		if fc := n.FirstChild(); fc != nil {
			if cb, ok := fc.FirstChild().(*east.TaskCheckBox); ok {
				checked := cb.IsChecked
				li.Checked = &checked
			}
		}
		return li
	case *ast.FencedCodeBlock:
		return &Node{Type: "code_block", Language: string(n.Language(b.src)), Text: b.lines(n)}
	case *ast.CodeBlock:
		return &Node{Type: "code_block", Text: b.lines(n)}
	case *ast.ThematicBreak:
		return &Node{Type: "thematic_break"}
	case *ast.HTMLBlock:
		t := b.lines(n)
		if n.HasClosure() {
			t += string(n.ClosureLine.Value(b.src))
		}
		return &Node{Type: "html_block", Text: t}
	case *east.Table:
		return &Node{Type: "table", Children: b.children(n)}
	case *east.TableHeader:
		return &Node{Type: "table_row", Header: true, Children: b.children(n)}
	case *east.TableRow:
		return &Node{Type: "table_row", Children: b.children(n)}
	case *east.TableCell:
		c := &Node{Type: "table_cell", Children: b.children(n)}
		if n.Alignment != east.AlignNone {
			c.Align = n.Alignment.String()
		}
		return c
	case *ast.Emphasis:
		if n.Level >= 2 {
			return &Node{Type: "strong", Children: b.children(n)}
		}
		return &Node{Type: "emphasis", Children: b.children(n)}
	case *east.Strikethrough:
		return &Node{Type: "strikethrough", Children: b.children(n)}
	case *ast.CodeSpan:
		var sb strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch t := c.(type) {
			case *ast.Text:
				sb.Write(t.Value(b.src))
			case *ast.String:
				sb.Write(t.Value)
			}
		}
		return &Node{Type: "code", Text: sb.String()}
	case *ast.Link:
		return &Node{Type: "link", URL: string(n.Destination), Title: string(n.Title), Children: b.children(n)}
	case *ast.AutoLink:
		u := string(n.URL(b.src))
		return &Node{Type: "link", URL: u, Children: []*Node{{Type: "text", Text: string(n.Label(b.src))}}}
	case *ast.Image:
		return &Node{Type: "image", URL: string(n.Destination), Title: string(n.Title), Alt: plainText(b.children(n))}
	case *ast.RawHTML:
		var sb strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			sb.Write(seg.Value(b.src))
		}
		return &Node{Type: "html_inline", Text: sb.String()}
	}
	return nil
}

func plainText(ns []*Node) string {
	var sb strings.Builder
	var walk func([]*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			switch n.Type {
			case "text", "code":
				sb.WriteString(n.Text)
			case "soft_break", "hard_break":
				sb.WriteByte(' ')
			default:
				walk(n.Children)
			}
		}
	}
	walk(ns)
	return sb.String()
}

func marshalTree(n *Node) ([]byte, error) {
	b, err := json.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("documents: encode tree: %w", err)
	}
	return b, nil
}

// UnmarshalTree decodes and checks a json document tree.
func UnmarshalTree(data []byte) (*Node, error) {
	var n Node
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&n); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTree, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the tree", ErrTree)
	}
	if n.Type != "doc" {
		return nil, fmt.Errorf("%w: the root must have type \"doc\", not %q", ErrTree, n.Type)
	}
	count := 0
	if err := checkTree(&n, 1, &count); err != nil {
		return nil, err
	}
	return &n, nil
}

var blockTypes = map[string]bool{
	"heading": true, "paragraph": true, "blockquote": true, "list": true, "code_block": true,
	"thematic_break": true, "table": true, "html_block": true,
}

var inlineTypes = map[string]bool{
	"text": true, "emphasis": true, "strong": true, "strikethrough": true, "code": true,
	"link": true, "image": true, "html_inline": true, "soft_break": true, "hard_break": true,
}

// allowedChildren tells which child types a node of each type accepts.
func allowedChildren(parent string) func(string) bool {
	switch parent {
	case "doc", "blockquote", "list_item":
		return func(t string) bool { return blockTypes[t] }
	case "list":
		return func(t string) bool { return t == "list_item" }
	case "table":
		return func(t string) bool { return t == "table_row" }
	case "table_row":
		return func(t string) bool { return t == "table_cell" }
	case "heading", "paragraph", "table_cell", "emphasis", "strong", "strikethrough":
		return func(t string) bool { return inlineTypes[t] }
	case "link":
		return func(t string) bool { return inlineTypes[t] && t != "link" }
	}
	return func(string) bool { return false }
}

func checkTree(n *Node, depth int, count *int) error {
	if n == nil {
		return fmt.Errorf("%w: null node", ErrTree)
	}
	*count++
	if *count > MaxTreeNodes {
		return fmt.Errorf("%w: more than %d nodes", ErrTree, MaxTreeNodes)
	}
	if depth > MaxTreeDepth {
		return fmt.Errorf("%w: deeper than %d levels", ErrTree, MaxTreeDepth)
	}
	for _, v := range []string{n.Text, n.URL, n.Title, n.Alt, n.Language} {
		if strings.IndexByte(v, 0) >= 0 {
			return ErrNUL
		}
	}
	switch n.Type {
	case "heading":
		if n.Level < 1 || n.Level > 6 {
			return fmt.Errorf("%w: heading level %d (want 1-6)", ErrTree, n.Level)
		}
	case "list":
		if n.Start < 0 || n.Start > 999999999 {
			return fmt.Errorf("%w: list start %d", ErrTree, n.Start)
		}
	case "table_cell":
		switch n.Align {
		case "", "left", "center", "right":
		default:
			return fmt.Errorf("%w: table cell align %q", ErrTree, n.Align)
		}
	}
	ok := allowedChildren(n.Type)
	for _, c := range n.Children {
		if c == nil {
			return fmt.Errorf("%w: null node in %s", ErrTree, n.Type)
		}
		if !ok(c.Type) {
			return fmt.Errorf("%w: a %q node cannot hold a %q node", ErrTree, n.Type, c.Type)
		}
		if err := checkTree(c, depth+1, count); err != nil {
			return err
		}
	}
	return nil
}

// TreeToMarkdown writes a checked document tree (see [UnmarshalTree]) as
// markdown. It renders the tree as HTML with every text escaped and converts
// that HTML, so markdown syntax inside text nodes stays text.
func TreeToMarkdown(n *Node) (string, error) {
	return treeToMarkdown(context.Background(), n)
}

func treeToMarkdown(ctx context.Context, n *Node) (string, error) {
	var sb strings.Builder
	if err := writeHTML(&sb, n); err != nil {
		return "", err
	}
	return htmlToMarkdown(ctx, sb.String())
}

// TreeToHTML renders a document tree as an HTML fragment.
func TreeToHTML(n *Node) (string, error) {
	var sb strings.Builder
	if err := writeHTML(&sb, n); err != nil {
		return "", err
	}
	return sb.String(), nil
}

var simpleTags = map[string]string{
	"paragraph": "p", "blockquote": "blockquote", "list_item": "li", "table_cell": "td",
	"emphasis": "em", "strong": "strong", "strikethrough": "del", "table_row": "tr",
}

func writeChildren(sb *strings.Builder, n *Node) error {
	for _, c := range n.Children {
		if err := writeHTML(sb, c); err != nil {
			return err
		}
	}
	return nil
}

func writeHTML(sb *strings.Builder, n *Node) error {
	esc := html.EscapeString
	switch n.Type {
	case "doc":
		return writeChildren(sb, n)
	case "heading":
		lv := strconv.Itoa(n.Level)
		sb.WriteString("<h" + lv + ">")
		if err := writeChildren(sb, n); err != nil {
			return err
		}
		sb.WriteString("</h" + lv + ">\n")
	case "list":
		tag := "ul"
		attr := ""
		if n.Ordered {
			tag = "ol"
			if n.Start != 0 && n.Start != 1 {
				attr = ` start="` + strconv.Itoa(n.Start) + `"`
			}
		}
		sb.WriteString("<" + tag + attr + ">\n")
		if err := writeChildren(sb, n); err != nil {
			return err
		}
		sb.WriteString("</" + tag + ">\n")
	case "table":
		sb.WriteString("<table>\n")
		if err := writeChildren(sb, n); err != nil {
			return err
		}
		sb.WriteString("</table>\n")
	case "table_row":
		sb.WriteString("<tr>")
		for _, c := range n.Children {
			tag := "td"
			if n.Header {
				tag = "th"
			}
			attr := ""
			if c.Align != "" {
				attr = ` align="` + c.Align + `"`
			}
			sb.WriteString("<" + tag + attr + ">")
			if err := writeChildren(sb, c); err != nil {
				return err
			}
			sb.WriteString("</" + tag + ">")
		}
		sb.WriteString("</tr>\n")
	case "code_block":
		attr := ""
		if n.Language != "" {
			attr = ` class="language-` + esc(n.Language) + `"`
		}
		sb.WriteString("<pre><code" + attr + ">" + esc(n.Text) + "</code></pre>\n")
	case "thematic_break":
		sb.WriteString("<hr>\n")
	case "html_block":
		sb.WriteString(n.Text)
	case "html_inline":
		sb.WriteString(n.Text)
	case "text":
		sb.WriteString(esc(n.Text))
	case "code":
		sb.WriteString("<code>" + esc(n.Text) + "</code>")
	case "link":
		sb.WriteString(`<a href="` + esc(n.URL) + `"`)
		if n.Title != "" {
			sb.WriteString(` title="` + esc(n.Title) + `"`)
		}
		sb.WriteString(">")
		if err := writeChildren(sb, n); err != nil {
			return err
		}
		sb.WriteString("</a>")
	case "image":
		sb.WriteString(`<img src="` + esc(n.URL) + `" alt="` + esc(n.Alt) + `"`)
		if n.Title != "" {
			sb.WriteString(` title="` + esc(n.Title) + `"`)
		}
		sb.WriteString(">")
	case "soft_break":
		sb.WriteString("\n")
	case "hard_break":
		sb.WriteString("<br>\n")
	default:
		tag, ok := simpleTags[n.Type]
		if !ok {
			return fmt.Errorf("%w: unknown node type %q", ErrTree, n.Type)
		}
		sb.WriteString("<" + tag + ">")
		if err := writeChildren(sb, n); err != nil {
			return err
		}
		sb.WriteString("</" + tag + ">")
		if tag == "p" || tag == "blockquote" || tag == "li" {
			sb.WriteString("\n")
		}
	}
	return nil
}
