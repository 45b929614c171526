package console

import (
	"bytes"
	"html/template"
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
	tpl, err := template.New("action").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", "templates/action.html")
	if err != nil {
		t.Fatal(err)
	}
	d := &actionView{App: &apps.App{ID: "a", Name: "A"}, Action: &protocol.Action{Action: "post", Name: "Post", Args: []protocol.ActionArg{
		{ID: "body", Name: "Body", Type: "textarea"}, {ID: "note", Name: "Note", Type: "TEXTAREA"}, {ID: "title", Name: "Title", Type: "text"}}}}
	var b bytes.Buffer
	if err := tpl.ExecuteTemplate(&b, "layout", &page[*actionView]{layout: layout{Title: "Post", Form: url.Values{}}, Data: d}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`<textarea id="arg.body"`, `<textarea id="arg.note"`, `<input id="arg.title"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
}
