package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/htmlpage"
)

// handler is a screen's handler: it writes its answer, or returns the
// error that serve shows instead (having written nothing).
type handler func(w http.ResponseWriter, r *http.Request) error

// serve adapts a handler to net/http: the one place where a handler's
// error becomes the error page (see respond).
func (c *Console) serve(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { c.respond(w, r, h(w, r)) }
}

// respond shows a handler's error: a *pageError on the error page with its
// status and words; any other error with the status and the message
// apps.HTTPStatus gives it (the JSON API's mapping too), except one it
// maps to 500 (an internal error), which is logged and answered 500
// without its cause. A nil error was answered by the handler.
func (c *Console) respond(w http.ResponseWriter, r *http.Request, err error) {
	if err == nil {
		return
	}
	var pe *pageError
	if !errors.As(err, &pe) {
		msg, status, ok := serviceMessage(r.Context(), err)
		if !ok {
			c.internal(w, r, err)
			return
		}
		pe = &pageError{Status: status, Title: "Not done", Message: msg}
	}
	if err := errorScreen.show(c, w, r, pe.Status, layout{Title: pe.Title, Error: pe.Message}, noView{}); err != nil {
		c.internal(w, r, err)
	}
}

// pageError is what the user reads on the error page: a title, a message
// and the answer's status.
type pageError struct {
	Status         int
	Title, Message string
}

func (e *pageError) Error() string { return e.Title + ": " + e.Message }

// serviceMessage words an error of the apps service for a page, with the
// status of apps.HTTPStatus (the API's too), and tells whether it is the
// user's (or the app's) rather than an internal one.
func serviceMessage(ctx context.Context, err error) (string, int, bool) {
	status, msg := apps.HTTPStatus(ctx, err)
	if status == http.StatusInternalServerError {
		return "", 0, false
	}
	if r, size := utf8.DecodeRuneInString(msg); r != utf8.RuneError {
		msg = string(unicode.ToUpper(r)) + msg[size:]
	}
	return msg, status, true
}

// onForm shows a service error with show (the page or form the request
// came from, given the message and its status); an internal error is
// returned as it is, for the internal error page.
func onForm(ctx context.Context, err error, show func(status int, msg string) error) error {
	msg, status, ok := serviceMessage(ctx, err)
	if !ok {
		return err
	}
	return show(status, msg)
}

// layout is what the layout of every page reads: the title, the
// signed-in user, the messages and the values of the form sent back.
type layout struct {
	Title string
	// User and CSRF are set on signed-in pages.
	User auth.User
	CSRF string
	// Nav names the section of the navigation that is current.
	Nav string
	// Error and Notice are the page's messages; FieldErrors those of the
	// form's fields by name; Form the values the user sent back.
	Error       string
	Notice      string
	FieldErrors map[string]string
	Form        url.Values
	// Next is where the sign-in form leads.
	Next string
	// LoginCSRF is the sign-in form's token.
	LoginCSRF string
}

// page is what a screen's template receives: the layout's part and the
// screen's own view, typed.
type page[V any] struct {
	layout
	Data V
}

// screen is a template and the type of the view it shows: a handler can
// give a screen only its own view.
type screen[V any] struct{ name string }

// noView is the view of the screens that show only the layout's part
// (the error and not-found pages, the sign-in form).
type noView struct{}

// The screens, one per template.
var (
	signinScreen   = screen[noView]{"signin"}
	errorScreen    = screen[noView]{"error"}
	notFoundScreen = screen[noView]{"notfound"}
	tokensScreen   = screen[*tokensView]{"tokens"}
	appsScreen     = screen[*appsView]{"apps"}
	appScreen      = screen[*appView]{"app"}
	accountScreen  = screen[*accountView]{"account"}
	syncFormScreen = screen[*syncFormView]{"syncform"}
	syncScreen     = screen[*syncView]{"sync"}
	runsFragment   = screen[*syncView]{"runs_fragment"}
	runScreen      = screen[*runView]{"run"}
	testReadScreen = screen[*testReadView]{"testread"}
	datalistFrag   = screen[*datalistView]{"datalist_fragment"}
	rangeFragment  = screen[*rangeView]{"range_fragment"}
	highlightFrag  = screen[*highlightView]{"highlight_fragment"}
	actionScreen   = screen[*actionView]{"action"}
	dataScreen     = screen[*dataView]{"data"}
	tableScreen    = screen[*tableView]{"table"}
	valueScreen    = screen[*valueView]{"value"}
)

// show writes the screen with l and v (a fragment alone for a template
// ending in _fragment, else within the layout); an error, with nothing
// written, when the template fails.
func (s screen[V]) show(c *Console, w http.ResponseWriter, r *http.Request, status int, l layout, v V) error {
	if ss := sessionFrom(r.Context()); ss != nil {
		l.User, l.CSRF = ss.user, ss.csrf
	}
	return c.execute(w, status, s.name, &page[V]{layout: l, Data: v})
}

// execute writes the template name with p, once it rendered whole.
func (c *Console) execute(w http.ResponseWriter, status int, name string, p any) error {
	t := c.pages[name]
	if t == nil {
		return fmt.Errorf("console: no template %q", name)
	}
	var buf bytes.Buffer
	entry := "layout"
	if strings.HasSuffix(name, "_fragment") {
		entry = "fragment"
	}
	if err := t.ExecuteTemplate(&buf, entry, p); err != nil {
		return fmt.Errorf("console: render %s: %w", name, err)
	}
	htmlpage.Set(w, htmlpage.HTML, pagePolicy)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// pagePolicy is the console pages' headers: the console's own script (htmx)
// and styles, images from anywhere (app icons), forms that may post to an
// app's OAuth page, and no framing.
var pagePolicy = htmlpage.Policy{
	CSP: []string{
		"default-src 'none'",
		"script-src 'self'",
		"style-src 'self'",
		"img-src 'self' http: https: data:",
		"connect-src 'self'",
		"form-action 'self' http: https:",
		"frame-ancestors 'none'",
		"base-uri 'none'",
	},
	Cache:    "no-store",
	Referrer: "same-origin",
}

// internal logs err and shows a page without its cause.
func (c *Console) internal(w http.ResponseWriter, r *http.Request, err error) {
	c.cfg.OnError(r, err)
	htmlpage.Set(w, htmlpage.HTML, pagePolicy)
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprint(w, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Internal error</title></head><body><main><h1>Internal error</h1><p>The error was logged. <a href=\"/\">Back to the console</a></p></main></body></html>\n")
}

// redirect answers a POST with 303 See Other.
func redirect(w http.ResponseWriter, r *http.Request, to string) error {
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// systemField are the keys the host stores among an account's fields for
// itself: not shown as the account's fields.
var systemField = map[string]bool{"auth": true}

// byteSize words a size in bytes as a person reads it: "512 B", "1.5 KiB",
// "3.0 MiB"; "—" for none.
func byteSize(n int64) string {
	const unit = 1024
	switch {
	case n <= 0:
		return "—"
	case n < unit:
		return fmt.Sprintf("%d B", n)
	case n < unit*unit:
		return fmt.Sprintf("%.1f KiB", float64(n)/unit)
	case n < unit*unit*unit:
		return fmt.Sprintf("%.1f MiB", float64(n)/(unit*unit))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(unit*unit*unit))
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"when": func(t *time.Time) string {
		if t == nil {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"ms":          func(d int64) string { return (time.Duration(d) * time.Millisecond).String() },
	"size":        byteSize,
	"join":        strings.Join,
	"pathEscape":  url.PathEscape,
	"queryEscape": url.QueryEscape,
	"has":         slices.Contains[[]string],
	// userFields is an account's field keys without the host's own
	// ("auth", the authentication id it stores with them).
	"userFields": func(keys []string) []string {
		out := make([]string, 0, len(keys))
		for _, k := range keys {
			if !systemField[k] {
				out = append(out, k)
			}
		}
		return out
	},
	// initial is a name's first letter, upper-cased ("?" for none): an
	// app's placeholder logo.
	"initial": func(name string) string {
		for _, r := range strings.TrimSpace(name) {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return strings.ToUpper(string(r))
			}
		}
		return "?"
	},
	"domID": domID,
	// sameWord compares words regardless of case (an action argument's
	// type: real apps ship "textarea" for "textArea").
	"sameWord": strings.EqualFold,
}
