// Package appkittest is a test harness for apps built with appkit: it serves
// an App in process and drives it the way the workspace service does,
// failing the test on any answer that breaks the protocol.
//
//	c := appkittest.New(t, app)
//	c.Account = appkittest.Values(appkittest.AccountValue(appkit.TokenAuthToken, "demo"))
//	tasks := appkittest.Items[Task](c, appkittest.Run{Type: "task",
//		Filter: appkittest.Values(appkittest.FilterValue(statusFilter, []string{"open"}))})
//
// The typed entry points take the handles the app declared (filters,
// account fields, action arguments: [FilterValue], [AccountValue],
// [ArgValue], [Values], [Options], [ExecuteAction]) and give typed values
// back ([Items] decodes each item into the type's struct), so a test names
// nothing by a string the app declared. The Client's methods take and give
// the wire form.
//
// Every call carries the Client's Account. [Client.Sync] walks every page
// of a type following nextPageConfig, as the service does, and checks each
// page and item against the type's schema with the same rules as the
// conformance suite: an item key outside the schema, a value that does not
// fit its field's type and subType, an id missing, not a string or repeated
// within a run, a REMOVE in a full page, a delta page of a type without
// delta, full and delta pages mixed in one run, a next-page cursor that
// repeats, a date-time in a day field (a time.Time with a time of day), a
// single-select value outside its declared options. Each failure names the
// type, page, item, field and rule.
//
// The app's log lines go to the test's log, and only when the test fails.
// [ServeMain] runs an app's main logic on a listener of the test.
package appkittest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/pagerules"
)

// MaxPages bounds a Sync walk, so that an app whose hasNext never ends fails
// the test instead of hanging it.
const MaxPages = 100_000

// Client drives one app in process.
type Client struct {
	// Account is sent as the account of every request (and as the fields of
	// Validate).
	Account map[string]any

	t testing.TB
	h http.Handler
}

// New builds the app's handler; a declaration error fails the test. When
// app.Logger is nil, the app logs into the test's log, shown only if the
// test fails.
func New(t testing.TB, app *appkit.App) *Client {
	t.Helper()
	if app.Logger == nil {
		app.Logger = testLogger(t)
	}
	h, err := app.Handler()
	if err != nil {
		t.Fatalf("appkittest: the app's declaration is invalid:\n%v", err)
	}
	return &Client{t: t, h: h}
}

// NewHandler drives any handler that serves the app protocol (an app not
// built with appkit, or one behind middleware) with the same checks as
// [New]; the handler's own logging is left as it is.
func NewHandler(t testing.TB, h http.Handler) *Client {
	return &Client{t: t, h: h}
}

// testLogger returns a logger whose lines are kept and printed to the
// test's log when the test has failed.
func testLogger(t testing.TB) *zerolog.Logger {
	var mu sync.Mutex
	var buf bytes.Buffer
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if t.Failed() && buf.Len() > 0 {
			t.Logf("the app's log:\n%s", buf.String())
		}
	})
	w := zerolog.SyncWriter(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		if buf.Len() < 1<<20 {
			buf.Write(p)
		}
		return len(p), nil
	}))
	l := zerolog.New(zerolog.ConsoleWriter{Out: w, NoColor: true, TimeFormat: time.TimeOnly}).With().Timestamp().Logger()
	return &l
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Response is one answer of the app.
type Response struct {
	// Status is the HTTP status.
	Status int
	// Header holds the answer's headers.
	Header http.Header
	// Body is the answer's body.
	Body []byte
}

// Message returns the {message} of an error answer ("" when there is none).
func (r Response) Message() string { return r.errorBody().Message }

// TryLater reports whether an error answer carries tryLater: true.
func (r Response) TryLater() bool { return r.errorBody().TryLater }

// errorBody decodes an error answer (zero when the body is not one).
func (r Response) errorBody() protocol.ErrorBody {
	var e protocol.ErrorBody
	_ = json.Unmarshal(r.Body, &e)
	return e
}

// decode decodes the body into out, failing the test when it is not that
// JSON.
func (r Response) decode(t testing.TB, out any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, out); err != nil {
		t.Fatalf("appkittest: the answer is not the expected JSON: %v\n%s", err, r.Body)
	}
}

// Do sends a request with a JSON body (nil for none) and returns the
// answer. A map body without an "account" key gets the Client's Account
// (except on /validate, whose account values go in "fields"). An error
// answer without a JSON {message} fails the test.
func (c *Client) Do(method, path string, body any) Response {
	c.t.Helper()
	if m, ok := body.(map[string]any); ok && path != protocol.PathValidate {
		if _, has := m["account"]; !has {
			with := make(map[string]any, len(m)+1)
			for k, v := range m {
				with[k] = v
			}
			with["account"] = c.Account
			body = with
		}
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatalf("appkittest: encode the %s %s body: %v", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	r := Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	if r.Status >= 400 && r.Message() == "" {
		c.t.Errorf("appkittest: %s %s answered %d without a {message}: %s", method, path, r.Status, r.Body)
	}
	return r
}

// post sends body to path, requires 200 with a JSON answer and decodes it
// into out.
func (c *Client) post(method, path string, body, out any) Response {
	c.t.Helper()
	r := c.Do(method, path, body)
	if r.Status != http.StatusOK {
		c.t.Fatalf("appkittest: %s %s = %d %s", method, path, r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		c.t.Errorf("appkittest: %s %s content type %q, want application/json", method, path, ct)
	}
	if out != nil {
		r.decode(c.t, out)
	}
	return r
}

// Descriptor returns GET /.
func (c *Client) Descriptor() protocol.Descriptor {
	c.t.Helper()
	var d protocol.Descriptor
	c.post(http.MethodGet, protocol.PathDescriptor, nil, &d)
	return d
}

// Validate posts /validate for the authentication id with the Client's
// Account as fields, and returns the answer (200 {name, ...} or an error).
func (c *Client) Validate(id string) Response {
	c.t.Helper()
	return c.Do(http.MethodPost, protocol.PathValidate, map[string]any{"id": id, "fields": c.Account})
}

// Config returns the synchronization config.
func (c *Client) Config() protocol.ConfigResponse {
	c.t.Helper()
	var out protocol.ConfigResponse
	c.post(http.MethodPost, protocol.PathConfig, map[string]any{}, &out)
	return out
}

// Schema returns the schema of the types under the filter; a requested type
// missing from the answer fails the test.
func (c *Client) Schema(filter map[string]any, types ...string) protocol.Schema {
	c.t.Helper()
	var out protocol.Schema
	c.post(http.MethodPost, protocol.PathSchema, map[string]any{"types": types, "filter": filter}, &out)
	for _, ty := range types {
		if _, ok := out[ty]; !ok {
			c.t.Errorf("appkittest: schema lacks requested type %q", ty)
		}
	}
	return out
}

// Datalist returns the options of a datalist filter; dependsOn holds the
// values of the filters it requires. An answer that is not 200 {items:
// [{title, value}]} fails the test.
func (c *Client) Datalist(field string, dependsOn map[string]any) []protocol.DatalistItem {
	c.t.Helper()
	var out struct {
		Items *[]protocol.DatalistItem `json:"items"`
	}
	c.post(http.MethodPost, protocol.PathDatalist, map[string]any{"field": field, "dependsOn": dependsOn}, &out)
	if out.Items == nil {
		c.t.Fatalf("appkittest: datalist %q answered no items array", field)
	}
	return *out.Items
}

// ValidateFilter posts filter/validate and returns the answer: 204 for a
// valid filter, 400 {message} for an invalid one. Any other status fails
// the test.
func (c *Client) ValidateFilter(filter map[string]any, types ...string) Response {
	c.t.Helper()
	r := c.Do(http.MethodPost, protocol.PathFilterValidate, map[string]any{"types": types, "filter": filter})
	switch r.Status {
	case http.StatusOK, http.StatusNoContent, http.StatusBadRequest:
	default:
		if !r.TryLater() && r.Status != http.StatusUnauthorized {
			c.t.Errorf("appkittest: filter/validate answered %d (want 200/204, or 400 for an invalid filter): %s", r.Status, r.Body)
		}
	}
	return r
}

// Execute runs an action with its arguments and returns the answer (200 {}
// on success).
func (c *Client) Execute(action string, args map[string]any) Response {
	c.t.Helper()
	r := c.Do(http.MethodPost, protocol.PathActionExecute, map[string]any{"action": map[string]any{"action": action, "args": args}})
	if r.Status == http.StatusOK {
		var out map[string]any
		if err := json.Unmarshal(r.Body, &out); err != nil || out == nil {
			c.t.Errorf("appkittest: action %q answered 200 with %s, want a JSON object", action, r.Body)
		}
	}
	return r
}

// Webhook is a webhook call: the selection it is installed for and the
// stored webhook object (nil on a first install).
type Webhook struct {
	// Types are the selected types.
	Types []string
	// Filter holds the filter values in their wire form.
	Filter map[string]any
	// URL is the event address the service gives.
	URL string
	// Object is the webhook object the app returned earlier.
	Object map[string]any
}

func (w Webhook) body() map[string]any {
	return map[string]any{"types": w.Types, "filter": w.Filter, "url": w.URL, "webhook": w.Object}
}

// InstallWebhook installs (or, with w.Object, updates) a webhook and
// returns the object the service would store; an answer without an id
// fails the test.
func (c *Client) InstallWebhook(w Webhook) map[string]any {
	c.t.Helper()
	var out map[string]any
	c.post(http.MethodPost, protocol.PathWebhooks, w.body(), &out)
	if id, _ := out["id"].(string); id == "" {
		c.t.Fatalf("appkittest: webhook install answered no id: %v", out)
	}
	return out
}

// DeleteWebhook deletes the webhook w.Object and returns the answer (200 or
// 204 when deleted).
func (c *Client) DeleteWebhook(w Webhook) Response {
	c.t.Helper()
	return c.Do(http.MethodDelete, protocol.PathWebhooks, w.body())
}

// VerifyWebhook posts an incoming event to webhooks/verify and returns the
// answer ({id} when the event is genuine).
func (c *Client) VerifyWebhook(params map[string]any, payload any) Response {
	c.t.Helper()
	return c.Do(http.MethodPost, protocol.PathWebhookVerify, map[string]any{"params": params, "payload": payload, "account": nil})
}

// TransformWebhook posts an event to webhooks/transform and returns its
// items by type; every item is checked against its type's schema with
// delta rules.
func (c *Client) TransformWebhook(w Webhook, params map[string]any, payload any) map[string][]map[string]any {
	c.t.Helper()
	body := w.body()
	body["params"], body["payload"] = params, payload
	delete(body, "webhook")
	var out struct {
		Data map[string][]any `json:"data"`
	}
	c.post(http.MethodPost, protocol.PathWebhookXform, body, &out)
	res := map[string][]map[string]any{}
	for typ, items := range out.Data {
		sch := c.Schema(w.Filter, typ)
		run := pagerules.NewRun(typ, pagerules.FromWire(sch[typ]))
		_, vs := run.Page(items, protocol.SyncDelta, false, nil)
		c.report(vs)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				res[typ] = append(res[typ], m)
			}
		}
	}
	return res
}

// OAuth2Authorize posts /oauth2/v1/authorize and returns the redirect_uri;
// one that is not an absolute URL with the state as its state parameter
// fails the test.
func (c *Client) OAuth2Authorize(callbackURI, state string) string {
	c.t.Helper()
	var out struct {
		RedirectURI string `json:"redirect_uri"`
	}
	c.post(http.MethodPost, protocol.PathOAuth2Auth, map[string]any{"callback_uri": callbackURI, "state": state}, &out)
	if u, err := url.Parse(out.RedirectURI); err != nil || !u.IsAbs() {
		c.t.Errorf("appkittest: redirect_uri %q is not an absolute URL", out.RedirectURI)
	} else if got := u.Query().Get("state"); got != state {
		c.t.Errorf("appkittest: redirect_uri %q does not carry the state %q as its state parameter (got %q)", out.RedirectURI, state, got)
	}
	return out.RedirectURI
}

// OAuth2AccessToken posts /oauth2/v1/access_token with the code from the
// provider's redirect and returns the answer (the account's values on
// success).
func (c *Client) OAuth2AccessToken(callbackURI, code string) Response {
	c.t.Helper()
	return c.Do(http.MethodPost, protocol.PathOAuth2Token, map[string]any{"fields": map[string]any{"callback_uri": callbackURI}, "code": code})
}

// OAuth1Authorize posts /oauth1/v1/authorize and returns the answer's
// redirect_uri, token and secret.
func (c *Client) OAuth1Authorize(callbackURI string) (redirectURI, token, secret string) {
	c.t.Helper()
	var out struct {
		RedirectURI string `json:"redirect_uri"`
		Token       string `json:"token"`
		Secret      string `json:"secret"`
	}
	c.post(http.MethodPost, protocol.PathOAuth1Auth, map[string]any{"callback_uri": callbackURI}, &out)
	return out.RedirectURI, out.Token, out.Secret
}

// OAuth1AccessToken posts /oauth1/v1/access_token with the request token,
// its secret and the verifier from the provider's redirect.
func (c *Client) OAuth1AccessToken(callbackURI, token, secret, verifier string) Response {
	c.t.Helper()
	return c.Do(http.MethodPost, protocol.PathOAuth1Token, map[string]any{
		"fields": map[string]any{"access_token": token, "access_secret": secret, "callback_uri": callbackURI}, "oauth_verifier": verifier})
}

// Run describes the synchronization of one type.
type Run struct {
	// Type is the requestedType.
	Type string
	// Types are the selected types; nil means just Type.
	Types []string
	// Filter holds the filter values in their wire form.
	Filter map[string]any
	// LastSynchronizedAt, when set, asks for a delta.
	LastSynchronizedAt time.Time
	// OperationID is sent as operationId.
	OperationID string
}

// Page is one checked page of a Sync walk.
type Page struct {
	// Items are the page's items.
	Items []map[string]any
	// SynchronizationType is "full" or "delta".
	SynchronizationType string
}

// Sync asks for the schema of run.Type, then walks every page of it,
// following nextPageConfig as the service does, and returns the pages.
// Every page and item is checked against the protocol and the schema.
func (c *Client) Sync(run Run) []Page {
	c.t.Helper()
	return c.sync(run, false)
}

// sync is Sync; exact gives the pages' numbers as json.Number (the
// integers beyond 2^53 that float64 rounds kept whole), as the host reads
// them. The checks always read them so.
func (c *Client) sync(run Run, exact bool) []Page {
	c.t.Helper()
	types := run.Types
	if types == nil {
		types = []string{run.Type}
	}
	sch := c.Schema(run.Filter, run.Type)
	rules := pagerules.NewRun(run.Type, pagerules.FromWire(sch[run.Type]))
	req := map[string]any{"requestedType": run.Type, "types": types, "filter": run.Filter,
		"pagination": nil, "lastSynchronizedAt": nil, "operationId": run.OperationID}
	if !run.LastSynchronizedAt.IsZero() {
		req["lastSynchronizedAt"] = run.LastSynchronizedAt.UTC().Format(time.RFC3339Nano)
	}
	var pages []Page
	for n := 1; ; n++ {
		if n > MaxPages {
			c.t.Fatalf("appkittest: %s: more than %d pages; hasNext never ends", run.Type, MaxPages)
		}
		var p struct {
			Items               []any                `json:"items"`
			Pagination          *protocol.Pagination `json:"pagination"`
			SynchronizationType string               `json:"synchronizationType"`
		}
		// The page is checked with its numbers exact, as the host reads
		// them (a float64 makes 2^63-1 out of range).
		r := c.post(http.MethodPost, protocol.PathData, req, nil)
		dec := json.NewDecoder(bytes.NewReader(r.Body))
		dec.UseNumber()
		if err := dec.Decode(&p); err != nil {
			c.t.Fatalf("appkittest: the answer is not the expected JSON: %v\n%s", err, r.Body)
		}
		if p.Items == nil {
			c.t.Fatalf("appkittest: %s page %d: items is missing or null", run.Type, n)
		}
		switch p.SynchronizationType {
		case protocol.SyncFull, protocol.SyncDelta:
		default:
			c.t.Fatalf("appkittest: %s page %d: synchronizationType %q, want full or delta", run.Type, n, p.SynchronizationType)
		}
		hasNext := p.Pagination != nil && p.Pagination.HasNext
		var next json.RawMessage
		if hasNext {
			next = bytes.TrimSpace(p.Pagination.NextPageConfig)
			if len(next) == 0 || next[0] != '{' {
				c.t.Fatalf("appkittest: %s page %d: hasNext with nextPageConfig %s, want an object", run.Type, n, next)
			}
		}
		_, vs := rules.Page(p.Items, p.SynchronizationType, hasNext, next)
		c.report(vs)
		items := p.Items
		if !exact {
			// Sync's pages hold numbers as float64, as encoding/json gives them.
			var plain struct {
				Items []any `json:"items"`
			}
			r.decode(c.t, &plain)
			items = plain.Items
		}
		page := Page{SynchronizationType: p.SynchronizationType, Items: make([]map[string]any, 0, len(items))}
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				page.Items = append(page.Items, m)
			}
		}
		pages = append(pages, page)
		if !hasNext {
			return pages
		}
		for _, v := range vs {
			// The paging goes back: the sync engine stops the type here.
			if v.Rule == pagerules.CursorRepeats || v.Rule == pagerules.PageRepeats {
				c.t.FailNow()
			}
		}
		req["pagination"] = next
	}
}

// maxReported bounds the violations reported per call, so that one broken
// field of a big page does not flood the test's output.
const maxReported = 20

func (c *Client) report(vs []pagerules.Violation) {
	c.t.Helper()
	for i, v := range vs {
		if i == maxReported {
			c.t.Errorf("appkittest: … and %d more violations", len(vs)-maxReported)
			return
		}
		c.t.Errorf("appkittest: %v", v)
	}
}

// SyncAll walks every page like Sync and returns all items.
func (c *Client) SyncAll(run Run) []map[string]any {
	c.t.Helper()
	var items []map[string]any
	for _, p := range c.Sync(run) {
		items = append(items, p.Items...)
	}
	return items
}
