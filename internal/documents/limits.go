package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Input limits of the converters. The markdown parser takes time quadratic
// in two shapes of input, measured with goldmark: many container blocks
// opened on one line ("- - - - … x", "> > > … x": each one rescans the rest
// of the line), and unclosed link brackets, each of which scans ahead
// through the rest of its paragraph for a link destination ("[a](" repeated,
// "[" followed by a long word). Everything else (deep nesting spread over
// lines, emphasis runs, tables, references) measured linear. Markdown is
// refused as too complex before it is parsed when it crosses either limit:
const (
	// MaxContainersPerLine bounds the block quote and list markers that open
	// nested containers at the start of one line ("- - > 1. x" opens four).
	// Nesting spread over several lines (by indentation) is not limited.
	MaxContainersPerLine = 32
	// MaxBracketWork bounds, for each paragraph-like run of non-blank
	// lines, the number of unescaped '[' in it times its length in bytes:
	// 1,000 links in 64 KB pass, as do 16 in 4 MB.
	MaxBracketWork = 1 << 26
)

// ErrTooComplex reports a document that crosses the input limits of the
// converters, or whose conversion ran out of time.
var ErrTooComplex = errors.New("documents: the document is too complex to convert")

// errCancelled is the panic value that stops a conversion whose context
// ended; convert functions recover it.
type errCancelled struct{}

// checkMarkdown refuses markdown over the input limits.
func checkMarkdown(src string) error {
	brackets, runLen := 0, 0
	flush := func() error {
		if brackets > 0 && brackets*runLen > MaxBracketWork {
			return fmt.Errorf("%w: %d link brackets in a paragraph of %d bytes", ErrTooComplex, brackets, runLen)
		}
		brackets, runLen = 0, 0
		return nil
	}
	for len(src) > 0 {
		line := src
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = ""
		}
		if strings.TrimSpace(line) == "" {
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		if n := containerMarkers(line); n > MaxContainersPerLine {
			return fmt.Errorf("%w: a line opens %d nested blocks (at most %d)", ErrTooComplex, n, MaxContainersPerLine)
		}
		runLen += len(line) + 1
		backslashes := 0
		for i := 0; i < len(line); i++ {
			switch line[i] {
			case '\\':
				backslashes++
				continue
			case '[':
				if backslashes%2 == 0 {
					brackets++
				}
			}
			backslashes = 0
		}
	}
	return flush()
}

// containerMarkers counts the block quote and list markers at the start of
// a line; a line of nothing but markers (a thematic break such as "- - -",
// or empty items) counts 0.
func containerMarkers(line string) int {
	n, i := 0, 0
	for {
		sp := 0
		for i < len(line) && line[i] == ' ' && sp < 4 {
			i++
			sp++
		}
		if i >= len(line) {
			return 0
		}
		switch c := line[i]; {
		case c == '>':
			i++
		case c == '-' || c == '+' || c == '*':
			if i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
				return n
			}
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j >= len(line) || (line[j] != '.' && line[j] != ')') {
				return n
			}
			if j+1 < len(line) && line[j+1] != ' ' && line[j+1] != '\t' {
				return n
			}
			i = j + 1
		default:
			return n
		}
		n++
		for i < len(line) && line[i] == '\t' {
			i++
		}
	}
}

// cancelKey holds the conversion's context in goldmark's parser context.
var cancelKey = parser.NewContextKey()

// checkCancel stops the parse (by a panic that the convert functions
// recover) once the conversion's context has ended.
func checkCancel(pc parser.Context) {
	if ctx, ok := pc.Get(cancelKey).(context.Context); ok && ctx.Err() != nil {
		panic(errCancelled{})
	}
}

// cancelBlockParser opens no block: it is tried first at the start of every
// line and of every container opened on a line, and stops a cancelled parse.
type cancelBlockParser struct{}

var allBytes = func() []byte {
	b := make([]byte, 0, 255)
	for c := 0; c < 256; c++ {
		if c != '\n' {
			b = append(b, byte(c))
		}
	}
	return b
}()

func (cancelBlockParser) Trigger() []byte { return allBytes }
func (cancelBlockParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	checkCancel(pc)
	return nil, parser.NoChildren
}
func (cancelBlockParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	return parser.Close
}
func (cancelBlockParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {}
func (cancelBlockParser) CanInterruptParagraph() bool                                { return true }
func (cancelBlockParser) CanAcceptIndentedLine() bool                                { return true }

// cancelInlineParser parses nothing: it is tried first at every delimiter
// (where the costly inline parsers start) and stops a cancelled parse.
type cancelInlineParser struct{}

func (cancelInlineParser) Trigger() []byte { return []byte("[]!<*_`~") }
func (cancelInlineParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	checkCancel(pc)
	return nil
}

// parserContext is a goldmark parser context carrying ctx for the hooks.
func parserContext(ctx context.Context) parser.Context {
	pc := parser.NewContext()
	pc.Set(cancelKey, ctx)
	return pc
}

// recoverCancel turns the cancellation panic into ErrTooComplex (with the
// context's error); other panics go on.
func recoverCancel(ctx context.Context, err *error) {
	if p := recover(); p != nil {
		if _, ok := p.(errCancelled); !ok {
			panic(p)
		}
		*err = fmt.Errorf("%w: %w", ErrTooComplex, context.Cause(ctx))
	}
}

// ctxReader feeds the HTML parser in small pieces and fails once ctx ended,
// so that parsing stops with it.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrTooComplex, err)
	}
	if len(p) > 4096 {
		p = p[:4096]
	}
	return c.r.Read(p)
}

// escapeBracket always escapes a literal '[' in converted text. The
// converter's own rule escapes it only when a ']' follows on the line, and
// looks for one from every '[': quadratic in a line of brackets. "\[" is
// plain text in every position, so the result reads the same.
func escapeBracket(chars []byte, index int) int {
	if chars[index] == '[' {
		return 1
	}
	return -1
}
