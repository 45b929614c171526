package documents

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// Format is a representation of a document at the documents endpoint.
type Format string

// The formats of GET and PUT /api/documents/<secret>?format=...
const (
	// FormatMarkdown is CommonMark with the GitHub extensions (tables,
	// strikethrough, autolinks, task lists). It is the default and the
	// form the content is stored in.
	FormatMarkdown Format = "md"
	// FormatHTML is an HTML fragment. Reading renders the stored markdown
	// (raw HTML in it is omitted, dangerous link targets are dropped);
	// writing converts the HTML to markdown.
	FormatHTML Format = "html"
	// FormatJSON is the document tree described by [Node], serialized as
	// JSON text.
	FormatJSON Format = "json"
)

// ErrFormat reports an unknown format name.
var ErrFormat = errors.New("documents: unknown format (want md, html or json)")

// ParseFormat turns the value of the format query parameter into a Format;
// the empty string means markdown.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", FormatMarkdown:
		return FormatMarkdown, nil
	case FormatHTML, FormatJSON:
		return Format(s), nil
	}
	return "", fmt.Errorf("%w: %q", ErrFormat, s)
}

// md is the one markdown parser and renderer; goldmark instances are safe
// for concurrent use.
var md = goldmark.New(goldmark.WithExtensions(
	extension.Table, extension.Strikethrough, extension.Linkify, extension.TaskList,
))

// htmlConv is the one HTML to markdown converter; it is safe for concurrent
// use.
var htmlConv = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(),
	commonmark.NewCommonmarkPlugin(
		commonmark.WithHeadingStyle(commonmark.HeadingStyleATX),
		commonmark.WithBulletListMarker("-"),
		commonmark.WithCodeBlockFence("```"),
		commonmark.WithHorizontalRule("---"),
		commonmark.WithListEndComment(false),
	),
	table.NewTablePlugin(),
	strikethrough.NewStrikethroughPlugin(),
))

// MarkdownToHTML renders markdown as an HTML fragment. Raw HTML in the
// markdown is not passed through.
func MarkdownToHTML(src string) (string, error) {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return "", fmt.Errorf("documents: render markdown: %w", err)
	}
	return buf.String(), nil
}

// HTMLToMarkdown converts an HTML fragment (or page) to markdown, keeping
// tables and strikethrough.
func HTMLToMarkdown(src string) (string, error) {
	out, err := htmlConv.ConvertString(src)
	if err != nil {
		return "", fmt.Errorf("documents: convert html: %w", err)
	}
	return canonical(out), nil
}

// canonical is the stored form of markdown: unix line ends and exactly one
// trailing newline (none for an empty document).
func canonical(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimRight(s, "\n\t ")
	if s == "" {
		return ""
	}
	return s + "\n"
}

// Encode renders stored markdown in the requested format.
func Encode(markdown string, f Format) (string, error) {
	switch f {
	case "", FormatMarkdown:
		return markdown, nil
	case FormatHTML:
		return MarkdownToHTML(markdown)
	case FormatJSON:
		tree := MarkdownToTree(markdown)
		b, err := marshalTree(tree)
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	return "", fmt.Errorf("%w: %q", ErrFormat, f)
}

// Decode turns content in the given format into the stored markdown.
func Decode(content string, f Format) (string, error) {
	switch f {
	case "", FormatMarkdown:
		return canonical(content), nil
	case FormatHTML:
		return HTMLToMarkdown(content)
	case FormatJSON:
		tree, err := UnmarshalTree([]byte(content))
		if err != nil {
			return "", err
		}
		return TreeToMarkdown(tree)
	}
	return "", fmt.Errorf("%w: %q", ErrFormat, f)
}
