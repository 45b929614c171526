package documents

import (
	"bytes"
	"context"
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
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
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
// for concurrent use. The cancel parsers run first at every line and
// delimiter and stop a parse whose context ended.
var md = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify, extension.TaskList),
	goldmark.WithParserOptions(
		parser.WithBlockParsers(util.Prioritized(cancelBlockParser{}, 0)),
		parser.WithInlineParsers(util.Prioritized(cancelInlineParser{}, 0)),
	),
)

// htmlConv is the one HTML to markdown converter; it is safe for concurrent
// use.
var htmlConv = func() *converter.Converter {
	c := converter.NewConverter(converter.WithPlugins(
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
	c.Register.UnEscaper(escapeBracket, converter.PriorityEarly)
	return c
}()

// MarkdownToHTML renders markdown as an HTML fragment. Raw HTML in the
// markdown is not passed through. Markdown over the input limits (see
// [MaxContainersPerLine]) is refused with [ErrTooComplex].
func MarkdownToHTML(src string) (string, error) {
	return markdownToHTML(context.Background(), src)
}

func markdownToHTML(ctx context.Context, src string) (out string, err error) {
	if err := checkMarkdown(src); err != nil {
		return "", err
	}
	defer recoverCancel(ctx, &err)
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf, parser.WithContext(parserContext(ctx))); err != nil {
		return "", fmt.Errorf("documents: render markdown: %w", err)
	}
	return buf.String(), nil
}

// HTMLToMarkdown converts an HTML fragment (or page) to markdown, keeping
// tables and strikethrough.
func HTMLToMarkdown(src string) (string, error) {
	return htmlToMarkdown(context.Background(), src)
}

// htmlToMarkdown is HTMLToMarkdown stopped (with ErrTooComplex) when ctx
// ends while the HTML is parsed; rendering the parsed HTML is linear.
func htmlToMarkdown(ctx context.Context, src string) (out string, err error) {
	b, err := htmlConv.ConvertReader(ctxReader{ctx: ctx, r: strings.NewReader(src)}, converter.WithContext(ctx))
	if err != nil {
		if errors.Is(err, ErrTooComplex) {
			return "", err
		}
		return "", fmt.Errorf("documents: convert html: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("%w: %w", ErrTooComplex, err)
	}
	return canonical(string(b)), nil
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
	return encode(context.Background(), markdown, f)
}

// encode is Encode stopped (with ErrTooComplex) when ctx ends.
func encode(ctx context.Context, markdown string, f Format) (string, error) {
	switch f {
	case "", FormatMarkdown:
		return markdown, nil
	case FormatHTML:
		return markdownToHTML(ctx, markdown)
	case FormatJSON:
		tree, err := markdownToTree(ctx, markdown)
		if err != nil {
			return "", err
		}
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
	return decode(context.Background(), content, f)
}

// decode is Decode stopped (with ErrTooComplex) when ctx ends. The markdown
// it returns is known to parse within the input limits.
func decode(ctx context.Context, content string, f Format) (string, error) {
	if strings.IndexByte(content, 0) >= 0 {
		return "", ErrNUL
	}
	var md string
	var err error
	switch f {
	case "", FormatMarkdown:
		md = canonical(content)
	case FormatHTML:
		md, err = htmlToMarkdown(ctx, content)
	case FormatJSON:
		var tree *Node
		tree, err = UnmarshalTree([]byte(content))
		if err == nil {
			md, err = treeToMarkdown(ctx, tree)
		}
	default:
		return "", fmt.Errorf("%w: %q", ErrFormat, f)
	}
	if err != nil {
		return "", err
	}
	if strings.IndexByte(md, 0) >= 0 {
		return "", ErrNUL
	}
	if _, err := markdownToTree(ctx, md); err != nil {
		return "", err
	}
	return md, nil
}

// ErrNUL reports content holding a NUL character (U+0000), which documents
// never keep.
var ErrNUL = errors.New("documents: the content contains a NUL character (U+0000)")
