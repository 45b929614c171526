// Package console is the web console of the workspace host: server-rendered
// HTML pages at / for app developers (sign-in and API tokens, registered
// apps, accounts, syncs with their runs and exchanges, the synchronized data,
// actions).
//
// The pages are Go html/templates embedded in the binary, with one small
// script, htmx 2.0.4 (from the npm registry, embedded with its license
// under static/), for the live parts: a running sync's progress per type,
// the parsed bounds of a date filter and the options of a datalist filter
// whose datalist_requires changed are refreshed in place from fragment
// URLs.
// There is no build step and the browser needs nothing beyond the host.
//
// Every screen has its own URL and is reached by ordinary links:
//
//	GET  /                          sign-in form (signed out) or the apps (signed in)
//	POST /login, /logout            sign in with the host's users (the session cookie of /api/login), sign out
//	GET  /tokens                    the user's API tokens; POST /tokens creates one (its value shown once)
//	POST /tokens/{id}/revoke        revokes one
//	POST /apps                      registers an app by URL
//	GET  /apps/{id}                 descriptor, authentications, actions, conformance warnings, accounts, syncs
//	POST /apps/{id}/refresh, /apps/{id}/delete
//	GET  /apps/{id}/accounts/new    the account form of an authentication; POST /apps/{id}/accounts saves it
//	POST /apps/{id}/oauth           starts the app's OAuth flow (redirects to the provider)
//	POST /accounts/{id}/delete
//	GET  /apps/{id}/syncs/new       ?account=ID: types and filters from the app's config; POST /apps/{id}/syncs
//	GET  /accounts/{id}/datalist    ?field=ID&filter.*=...: a datalist filter's options (a fragment)
//	GET  /accounts/{id}/testread    ?type=ID&filter.*=...: one page fetched and checked, nothing stored
//	GET  /syncs/{id}                the sync, "sync now", its runs; GET /syncs/{id}/runs is the live fragment
//	POST /syncs/{id}/run, /syncs/{id}/schedule, /syncs/{id}/delete
//	GET  /runs/{id}                 a run's exchanges, items checked with internal/pagerules, each
//	                                with its request id and the calls the app reported making to
//	                                its upstream API (bodies folded)
//	GET  /daterange                 ?value=STATEMENT: the parsed _min/_max (a fragment)
//	GET  /highlight                 ?mode=json|sql&value=TEXT: a highlightText field's text coloured (a fragment)
//	GET  /data                      the spaces and their databases; /data/{type...} a database as a table
//	GET  /value/{type...}           ?id=ENTITY&field=FIELD: one value whole (a cut table cell links here)
//	GET  /apps/{id}/actions/{action} the action form; POST runs it
//	GET  /favicon.svg, /favicon.ico the console's icon (an embedded SVG, no session needed)
//
// The console reads and writes only through the host's services (auth, the
// apps service, the query compiler over the store's catalog): it has no SQL
// of its own.
//
// # Code
//
// One file per screen (signin, tokens, apps_list, app, account, sync_form,
// sync, run, testread, action, data, table, value; datalist, filters
// and highlight for the fragments). A handler returns an error; routes
// wraps each one once with serve, which shows it: a *pageError (a
// screen's own refusal) with its status; any other error with the status
// and message apps.HTTPStatus gives it (the JSON API's mapping: the apps
// service's not found, invalid and conflict, an app's answer, a request
// gone), and one it maps to 500 as the internal error page, logged. A
// screen[V] pairs a template with the type V of its view. Each POST form
// is read into a struct by its parse function (forms.go), which reports
// every problem at once.
//
// # Security
//
// Pages need the session cookie of the host's users; a signed-out request
// gets the sign-in page (GET) or 401/403. Every form that writes carries a
// CSRF token: for a signed-in user a hash of the session id (the cookie is
// HttpOnly, so another site cannot read it), for the sign-in form a random
// value also set in a SameSite=Strict cookie. A POST whose Origin header is
// present and not the host's own origin is refused. After signing in, the
// console returns only to a path of this host as a browser reads the
// address (see safeNext), else to /. Pages are sent with a
// Content-Security-Policy allowing only the console's own script and style
// (and the apps' logos), no-store caching and frame-ancestors 'none'.
// Account values are never shown; a new API token's value is shown once, on
// the page that answers its creation.
//
// # Limits
//
// Form bodies are limited to MaxForm bytes. A table page shows 25 rows, of
// each value at most 16 KiB as the page writes it, escaped (rich text: its
// first 16 KiB of Markdown, rendered with the request's context, the
// page's conversions together within the documents' conversion timeout),
// all cells together about 1 MiB; a cell cut, or left out once that is
// spent, links to its whole value on a page of its own (rich text up to
// 1 MiB rendered, larger as Markdown). A date statement (previewed, or a
// filter of the sync form or the test read) has at most 200 bytes; a run's
// exchange bodies are those the apps service kept (16 KiB each, 200 per
// run; the complete items at the start of a cut data answer are still
// checked). Live progress per type comes from the apps service of the
// process running the sync (another host process's run shows its status
// until it ends).
package console

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/problems"
	"github.com/appkitgo/appkit/internal/store"
)

// Limits of the console.
const (
	// MaxForm bounds a form's body in bytes.
	MaxForm = 256 << 10
	// loginCookie holds the sign-in form's CSRF value.
	loginCookie = "appkit_console_login"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config configures a [Console].
type Config struct {
	// Auth is the host's users, sessions and tokens service (required).
	Auth *auth.Service
	// Apps is the apps service; nil shows the app screens as unavailable.
	Apps *apps.Service
	// Store is the store whose databases the data screens show (required).
	Store *store.Store
	// SessionCookie is the name of the host's session cookie (required).
	SessionCookie string
	// Documents is the host's rich-text documents (rich text fields are
	// rendered from it); nil shows them empty.
	Documents *documents.Store
	// GraphQLPath is the prefix of a space's GraphQL IDE
	// ("/api/graphql/space/"); empty hides the link.
	GraphQLPath string
	// OnError receives internal errors (the page shows "internal error");
	// nil drops them.
	OnError func(r *http.Request, err error)
	// AllowSignIn, when set, is asked before every sign-in attempt (the
	// host passes its throttle of /api/login, so both share one budget per
	// client); false refuses the attempt with 429 and Retry-After. Nil
	// allows every attempt.
	AllowSignIn func(r *http.Request) (ok bool, retryAfter time.Duration)
}

// ErrConfig reports a Config that [New] cannot start with (wrapped with
// every problem found).
var ErrConfig = errors.New("console: invalid configuration")

// WithDefaults returns a copy of c with every unset setting given its
// default: OnError drops the errors and AllowSignIn allows every attempt.
func (c Config) WithDefaults() Config {
	if c.OnError == nil {
		c.OnError = func(*http.Request, error) {}
	}
	if c.AllowSignIn == nil {
		c.AllowSignIn = func(*http.Request) (bool, time.Duration) { return true, 0 }
	}
	return c
}

// validate checks a Config after WithDefaults and reports every problem at
// once, wrapped in ErrConfig.
func (c Config) validate() error {
	var bad problems.List
	if c.Auth == nil {
		bad.Add("Auth is required")
	}
	if c.Store == nil {
		bad.Add("Store is required")
	}
	if c.SessionCookie == "" {
		bad.Add("SessionCookie is required")
	}
	return bad.Err(ErrConfig)
}

// Console is the console's http.Handler.
type Console struct {
	cfg   Config
	data  dataSource
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// New builds the console: cfg with its defaults (Config.WithDefaults),
// refused with ErrConfig when it is not valid.
func New(cfg Config) (*Console, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Console{cfg: cfg, data: dataSource{store: cfg.Store, docs: cfg.Documents}, pages: map[string]*template.Template{}}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("console: templates: %w", err)
	}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" || base == "partials" {
			continue
		}
		t, err := template.New(base).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", n)
		if err != nil {
			return nil, fmt.Errorf("console: template %s: %w", base, err)
		}
		c.pages[base] = t
	}
	c.routes()
	return c, nil
}

// ServeHTTP implements http.Handler.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.mux.ServeHTTP(w, r) }

// routes binds every screen's handler, each wrapped once by serve (its
// error shown as a page) and, past sign-in, by user (the session, and on
// a POST the origin, the bounded form and the CSRF token).
func (c *Console) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	m.Handle("GET /static/", http.StripPrefix("/static/", staticHandler(http.FileServerFS(static))))
	m.HandleFunc("GET /favicon.svg", favicon)
	m.HandleFunc("GET /favicon.ico", favicon)
	m.Handle("GET /{$}", c.serve(c.home))
	m.Handle("POST /login", c.serve(c.login))
	for pattern, h := range map[string]handler{
		"POST /logout":                     c.logout,
		"GET /tokens":                      c.tokens,
		"POST /tokens":                     c.createToken,
		"POST /tokens/{id}/revoke":         c.revokeToken,
		"GET /apps":                        c.appsPage,
		"POST /apps":                       c.registerApp,
		"GET /apps/{id}":                   c.appPage,
		"POST /apps/{id}/refresh":          c.refreshApp,
		"POST /apps/{id}/delete":           c.deleteApp,
		"GET /apps/{id}/accounts/new":      c.newAccountPage,
		"POST /apps/{id}/accounts":         c.createAccount,
		"POST /apps/{id}/oauth":            c.startOAuth,
		"POST /accounts/{id}/delete":       c.deleteAccount,
		"GET /apps/{id}/syncs/new":         c.newSyncPage,
		"POST /apps/{id}/syncs":            c.createSync,
		"GET /accounts/{id}/datalist":      c.datalistFragment,
		"GET /accounts/{id}/testread":      c.testRead,
		"GET /syncs/{id}":                  c.syncPage,
		"GET /syncs/{id}/runs":             c.runsFragment,
		"POST /syncs/{id}/run":             c.runNow,
		"POST /syncs/{id}/schedule":        c.setSchedule,
		"POST /syncs/{id}/delete":          c.deleteSync,
		"GET /runs/{id}":                   c.runPage,
		"GET /daterange":                   c.dateRange,
		"GET /highlight":                   c.highlightFragment,
		"GET /data":                        c.dataPage,
		"GET /data/{type...}":              c.tablePage,
		"GET /value/{type...}":             c.valuePage,
		"GET /apps/{id}/actions/{action}":  c.actionPage,
		"POST /apps/{id}/actions/{action}": c.runAction,
	} {
		m.Handle(pattern, c.serve(c.user(h)))
	}
	m.Handle("/", c.serve(c.notFound))
	c.mux = m
}

// notFound answers an address the console does not serve.
func (c *Console) notFound(w http.ResponseWriter, r *http.Request) error {
	return notFoundScreen.show(c, w, r, http.StatusNotFound, layout{Title: "Not found"}, noView{})
}

func staticHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// favicon answers /favicon.svg and the /favicon.ico every browser asks
// for with the console's embedded icon (an SVG, which browsers take at
// either address).
func favicon(w http.ResponseWriter, r *http.Request) {
	b, err := staticFS.ReadFile("static/favicon.svg")
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
}
