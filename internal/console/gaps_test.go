package console_test

import (
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

// Every page links the console's icon, and the browser's own request for
// /favicon.ico is answered with it (signed in or not), not with a 404.
func TestFavicon(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	b := e.browser()
	if r := b.get("/"); !strings.Contains(r.body, `<link rel="icon" href="/favicon.svg"`) {
		t.Errorf("the layout links no icon:\n%s", r.body)
	}
	for _, p := range []string{"/favicon.svg", "/favicon.ico"} {
		r := b.get(p)
		if r.code != http.StatusOK || r.header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(r.body, "<svg") {
			t.Errorf("GET %s: %d %q\n%s", p, r.code, r.header.Get("Content-Type"), r.body)
		}
	}
	b.signIn()
	if r := b.get("/favicon.ico"); r.code != http.StatusOK {
		t.Errorf("GET /favicon.ico signed in: %d", r.code)
	}
}

// An app's logo has a placeholder: the app's initial, shown by the
// stylesheet over the image when it does not load (an app without a logo
// answers 204).
func TestLogoPlaceholder(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	b := e.browser()
	tok := b.signIn()
	page := b.get(b.register(tok, trackerURL(t, 1)))
	if !strings.Contains(page.body, `<span class="logo" aria-hidden="true"><img src="`) || !strings.Contains(page.body, `data-initial="T"`) {
		t.Errorf("the app page has no logo placeholder:\n%s", page.body)
	}
	css := b.get("/static/console.css")
	if !strings.Contains(css.body, ".logo img::after { content: attr(data-initial);") {
		t.Errorf("the stylesheet does not show the placeholder")
	}
}

// An account's fields are listed without the host's own key "auth".
func TestAccountFieldsHideSystemKeys(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	b := e.browser()
	tok := b.signIn()
	appPath := b.register(tok, trackerURL(t, 1))
	r := b.post(appPath+"/accounts", url.Values{"auth": {"token"}, "f.token": {tracker.DemoToken}, "csrf": {tok}})
	if r.code != http.StatusOK {
		t.Fatalf("account: %d\n%.3000s", r.code, r.body)
	}
	page := b.get(appPath)
	if !strings.Contains(page.body, "<td>token</td>") || strings.Contains(page.body, "auth, token") || strings.Contains(page.body, "token, auth") {
		t.Errorf("the account's fields show a system key:\n%s", page.body)
	}
}

// A run's schema changes have their own "Changes" column in the runs
// table, no longer among its warnings and errors.
func TestRunsSchemaChangesColumn(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	b := e.browser()
	b.signIn()
	sy := e.newSync(trackerURL(t, 3), map[string]any{"token": tracker.DemoToken})
	run := e.waitRun(sy.ID)
	if run.Report == nil || len(run.Report.SchemaChanges) == 0 {
		t.Fatalf("the first run changed no schema: %+v", run)
	}
	page := b.get("/syncs/" + sy.ID)
	if !strings.Contains(page.body, `<th scope="col">Changes</th><th scope="col">Warnings and errors</th>`) {
		t.Errorf("the runs table has no Changes column:\n%s", page.body)
	}
	cells := regexp.MustCompile(`(?s)<td class="changes">(.*?)</td>\s*<td>(.*?)</td>`).FindStringSubmatch(page.body)
	if cells == nil {
		t.Fatalf("no changes cell:\n%s", page.body)
	}
	change := template.HTMLEscapeString(run.Report.SchemaChanges[0])
	if !strings.Contains(cells[1], "<li>"+change+"</li>") || strings.Contains(cells[2], change) {
		t.Errorf("the schema change %q is not in its own column:\n%s", change, cells[0])
	}
}
