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
// each value at most 16 KiB (rich text: its first 16 KiB of Markdown,
// rendered with the request's context, the page's conversions together
// within the documents' conversion timeout), all cells together about
// 1 MiB; a cell cut, or left out once that is spent, links to its whole
// value on a page of its own (rich text up to 1 MiB rendered, larger as
// Markdown). A date statement previewed has at most 200 bytes; a run's
// exchange bodies are those the apps service kept (16 KiB each, 200 per run; the complete
// items at the start of a cut data answer are still checked). Live progress
// per type comes from the apps service of the process running the sync
// (another host process's run shows its status until it ends).
package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/htmlpage"
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
	var problems []error
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
	if c.Auth == nil {
		bad("Auth is required")
	}
	if c.Store == nil {
		bad("Store is required")
	}
	if c.SessionCookie == "" {
		bad("SessionCookie is required")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %w", ErrConfig, errors.Join(problems...))
	}
	return nil
}

// Console is the console's http.Handler.
type Console struct {
	cfg   Config
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
	c := &Console{cfg: cfg, pages: map[string]*template.Template{}}
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

func (c *Console) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	m.Handle("GET /static/", http.StripPrefix("/static/", staticHandler(http.FileServerFS(static))))
	m.HandleFunc("GET /favicon.svg", favicon)
	m.HandleFunc("GET /favicon.ico", favicon)
	m.HandleFunc("GET /{$}", c.home)
	m.HandleFunc("POST /login", c.login)
	m.Handle("POST /logout", c.user(c.logout))
	m.Handle("GET /tokens", c.user(c.tokens))
	m.Handle("POST /tokens", c.user(c.createToken))
	m.Handle("POST /tokens/{id}/revoke", c.user(c.revokeToken))
	m.Handle("GET /apps", c.user(c.appsPage))
	m.Handle("POST /apps", c.user(c.registerApp))
	m.Handle("GET /apps/{id}", c.user(c.appPage))
	m.Handle("POST /apps/{id}/refresh", c.user(c.refreshApp))
	m.Handle("POST /apps/{id}/delete", c.user(c.deleteApp))
	m.Handle("GET /apps/{id}/accounts/new", c.user(c.accountForm))
	m.Handle("POST /apps/{id}/accounts", c.user(c.createAccount))
	m.Handle("POST /apps/{id}/oauth", c.user(c.startOAuth))
	m.Handle("POST /accounts/{id}/delete", c.user(c.deleteAccount))
	m.Handle("GET /apps/{id}/syncs/new", c.user(c.syncForm))
	m.Handle("POST /apps/{id}/syncs", c.user(c.createSync))
	m.Handle("GET /accounts/{id}/datalist", c.user(c.datalistFragment))
	m.Handle("GET /accounts/{id}/testread", c.user(c.testRead))
	m.Handle("GET /syncs/{id}", c.user(c.syncPage))
	m.Handle("GET /syncs/{id}/runs", c.user(c.runsFragment))
	m.Handle("POST /syncs/{id}/run", c.user(c.runNow))
	m.Handle("POST /syncs/{id}/schedule", c.user(c.setSchedule))
	m.Handle("POST /syncs/{id}/delete", c.user(c.deleteSync))
	m.Handle("GET /runs/{id}", c.user(c.runPage))
	m.Handle("GET /daterange", c.user(c.dateRange))
	m.Handle("GET /highlight", c.user(c.highlightFragment))
	m.Handle("GET /data", c.user(c.dataPage))
	m.Handle("GET /data/{type...}", c.user(c.tablePage))
	m.Handle("GET /value/{type...}", c.user(c.valuePage))
	m.Handle("GET /apps/{id}/actions/{action}", c.user(c.actionForm))
	m.Handle("POST /apps/{id}/actions/{action}", c.user(c.runAction))
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		c.render(w, r, http.StatusNotFound, "notfound", &page{Title: "Not found"})
	})
	c.mux = m
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

// session is the signed-in user of a request.
type session struct {
	user auth.User
	csrf string
}

type sessionKey struct{}

func sessionFrom(ctx context.Context) *session {
	s, _ := ctx.Value(sessionKey{}).(*session)
	return s
}

// csrfOf derives a session's CSRF token from its (secret, HttpOnly) id.
func csrfOf(sid string) string {
	sum := sha256.Sum256([]byte("appkit console csrf\x00" + sid))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// currentSession returns the session of the request's cookie, or nil.
func (c *Console) currentSession(r *http.Request) (*session, error) {
	ck, err := r.Cookie(c.cfg.SessionCookie)
	if err != nil || ck.Value == "" {
		return nil, nil
	}
	u, err := c.cfg.Auth.SessionUser(r.Context(), ck.Value)
	if errors.Is(err, auth.ErrUnauthenticated) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &session{user: u, csrf: csrfOf(ck.Value)}, nil
}

// user requires a signed-in user; on a POST also a same-origin request with
// the session's CSRF token and a bounded form.
func (c *Console) user(fn http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := c.currentSession(r)
		if err != nil {
			c.internal(w, r, err)
			return
		}
		if s == nil {
			if r.Method == http.MethodGet {
				c.signinPage(w, r, http.StatusUnauthorized, &page{Title: "Sign in", Next: safeNext(r.URL.RequestURI()), Error: "Sign in to see this page."})
				return
			}
			c.signinPage(w, r, http.StatusUnauthorized, &page{Title: "Sign in", Error: "Your session has ended: sign in again (what you sent was not saved)."})
			return
		}
		ctx := context.WithValue(r.Context(), sessionKey{}, s)
		r = r.WithContext(ctx)
		if r.Method == http.MethodPost {
			if !c.formOK(w, r) {
				return
			}
			if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(s.csrf)) != 1 {
				c.render(w, r, http.StatusForbidden, "error", &page{Title: "Refused", Error: "The form's security token is missing or stale: reload the page and try again."})
				return
			}
		}
		fn(w, r)
	})
}

// formOK checks the origin and parses a bounded form body.
func (c *Console) formOK(w http.ResponseWriter, r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r) {
		c.render(w, r, http.StatusForbidden, "error", &page{Title: "Refused", Error: "Cross-origin form refused."})
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxForm)
	if err := r.ParseForm(); err != nil {
		c.render(w, r, http.StatusRequestEntityTooLarge, "error", &page{Title: "Refused", Error: fmt.Sprintf("The form could not be read (at most %d bytes).", MaxForm)})
		return false
	}
	return true
}

// sameOrigin reports whether origin is the request's own scheme://host.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return strings.EqualFold(u.Scheme, scheme) && strings.EqualFold(u.Host, r.Host) && (u.Path == "" || u.Path == "/")
}

// maxNext bounds a return address.
const maxNext = 2048

// safeNext keeps a return address on this host: a path ("/..."), judged
// as a browser will read it, else "/". A browser removes tabs and newlines
// anywhere in an address and reads "\" as "/" before resolving it, so
// "/\t/evil.example" would lead to //evil.example: an address holding any
// control character (tab included) is refused, and what is left once tabs
// and newlines are removed and "\" is read as "/" must not start with "//".
// It must also parse as a URL without scheme, host or user.
func safeNext(next string) string {
	if next == "" || len(next) > maxNext {
		return "/"
	}
	if strings.IndexFunc(next, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return "/"
	}
	read := strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(next)
	if !strings.HasPrefix(read, "/") || strings.HasPrefix(read, "//") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	return next
}

// page is what every template receives.
type page struct {
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
	// Data is the page's own content.
	Data any
}

func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	if s := sessionFrom(r.Context()); s != nil {
		p.User, p.CSRF = s.user, s.csrf
	}
	t := c.pages[name]
	if t == nil {
		c.internal(w, r, fmt.Errorf("console: no template %q", name))
		return
	}
	var buf bytes.Buffer
	entry := "layout"
	if strings.HasSuffix(name, "_fragment") {
		entry = "fragment"
	}
	if err := t.ExecuteTemplate(&buf, entry, p); err != nil {
		c.internal(w, r, fmt.Errorf("console: render %s: %w", name, err))
		return
	}
	htmlpage.Set(w, htmlpage.HTML, pagePolicy)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
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
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
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
	"has": func(list []string, s string) bool {
		for _, v := range list {
			if v == s {
				return true
			}
		}
		return false
	},
	"add": func(a, b int) int { return a + b },
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
