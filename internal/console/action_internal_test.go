package console

import (
	"net/url"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
)

// An action argument typed "textarea" (as real apps ship the protocol's
// "textArea") gets a text area, as conform reads the type regardless of
// case; "text" gets a one-line input.
func TestActionFormArgTypeAnyCase(t *testing.T) {
	t.Parallel()
	d := &actionView{App: &apps.App{ID: "a", Name: "A"}, Action: &protocol.Action{Action: "post", Name: "Post", Args: []protocol.ActionArg{
		{ID: "body", Name: "Body", Type: "textarea"}, {ID: "note", Name: "Note", Type: "TEXTAREA"}, {ID: "title", Name: "Title", Type: "text"}}}}
	out := renderPage(t, actionScreen, layout{Title: "Post", Form: url.Values{}}, d)
	for _, want := range []string{`<textarea id="arg.body"`, `<textarea id="arg.note"`, `<input id="arg.title"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
}
