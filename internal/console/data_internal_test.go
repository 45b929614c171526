package console

import (
	"context"
	"strings"
	"testing"
)

// A cell's text is cut on a character boundary, never inside one.
func TestCutText(t *testing.T) {
	t.Parallel()
	s := "ab" + strings.Repeat("é", 10) // é is 2 bytes
	for n := 0; n <= len(s)+1; n++ {
		got, cut := cutText(s, n)
		if len(got) > n || !strings.HasPrefix(s, got) || cut != (len(got) < len(s)) || len(got) < n-1 && len(got) < len(s) {
			t.Errorf("cutText(%d) = %q, %v", n, got, cut)
		}
	}
}

// Rich text is rendered with the context it is given: once the request
// is gone, a cell shows its Markdown as text and converts nothing; a cell
// shows no more than its room, rendered when that fits.
func TestRichCell(t *testing.T) {
	t.Parallel()
	md := strings.Repeat("Some **bold** text.\n\n", 100)
	live := richCell(context.Background(), md, 1000)
	if live.HTML == "" || !live.Cut || len(live.HTML) > 1000 || !strings.HasPrefix(string(live.HTML), "<p>Some <strong>bold</strong> text.</p>") {
		t.Errorf("a live request's cell: %+v", live)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gone := richCell(ctx, md, 1000)
	if gone.HTML != "" || !gone.Cut || !strings.HasPrefix(gone.Text, "Some **bold**") || len(gone.Text) > 1000 {
		t.Errorf("a cancelled request's cell: %+v", gone)
	}
	whole := richCell(context.Background(), "short *one*", 1000)
	if whole.Cut || string(whole.HTML) != "<p>short <em>one</em></p>\n" {
		t.Errorf("a short value's cell: %+v", whole)
	}
}
