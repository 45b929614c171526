package documents

import "context"

// MarkdownToHTMLContext is [MarkdownToHTML] stopped when ctx ends: the
// parser checks ctx at every line, every container opened on a line and
// every inline delimiter, and answers [ErrTooComplex] (wrapping ctx's
// cause) once it has ended. Callers pass the context of the request the
// conversion serves, so that it stops when the request does.
func MarkdownToHTMLContext(ctx context.Context, src string) (string, error) {
	return markdownToHTML(ctx, src)
}
