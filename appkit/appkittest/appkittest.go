// Package appkittest is a test harness for apps built with appkit: it serves
// an App in process and drives it the way the workspace service does,
// failing the test on any answer that breaks the protocol.
//
//	c := appkittest.New(t, app)
//	c.Account = map[string]any{"token": "demo"}
//	tasks := c.SyncAll(appkittest.Run{Type: "task"})
//
// Sync walks every page of a type following nextPageConfig, as the service
// does, and checks each page: status 200, a JSON items array, a
// synchronizationType of full or delta, a next page config that is an object
// whenever hasNext is true, delta items that carry __syncAction.
package appkittest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/protocol"
)

// MaxPages bounds a Sync walk, so that an app whose hasNext never ends fails
// the test instead of hanging it.
const MaxPages = 100_000

// Client drives one app in process.
type Client struct {
	// Account is sent as the account of every request.
	Account map[string]any

	t testing.TB
	h http.Handler
}

// New builds the app's handler; a declaration error fails the test.
func New(t testing.TB, app *appkit.App) *Client {
	t.Helper()
	h, err := app.Handler()
	if err != nil {
		t.Fatalf("appkittest: the app's declaration is invalid:\n%v", err)
	}
	return &Client{t: t, h: h}
}

// Response is one answer of the app.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Message returns the {message} of an error answer ("" when there is none).
func (r Response) Message() string {
	var e protocol.ErrorBody
	_ = json.Unmarshal(r.Body, &e)
	return e.Message
}

// Do sends a request with a JSON body (nil for none) and returns the answer.
func (c *Client) Do(method, path string, body any) Response {
	c.t.Helper()
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

// decode posts body to path, requires 200 and decodes the answer into out.
func (c *Client) decode(method, path string, body, out any) {
	c.t.Helper()
	r := c.Do(method, path, body)
	if r.Status != http.StatusOK {
		c.t.Fatalf("appkittest: %s %s = %d %s", method, path, r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		c.t.Errorf("appkittest: %s %s content type %q, want application/json", method, path, ct)
	}
	if err := json.Unmarshal(r.Body, out); err != nil {
		c.t.Fatalf("appkittest: %s %s: answer is not the expected JSON: %v\n%s", method, path, err, r.Body)
	}
}

// Descriptor returns GET /.
func (c *Client) Descriptor() protocol.Descriptor {
	c.t.Helper()
	var d protocol.Descriptor
	c.decode(http.MethodGet, protocol.PathDescriptor, nil, &d)
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
	c.decode(http.MethodPost, protocol.PathConfig, map[string]any{"account": c.Account}, &out)
	return out
}

// Schema returns the schema of the types under the filter.
func (c *Client) Schema(filter map[string]any, types ...string) protocol.Schema {
	c.t.Helper()
	var out protocol.Schema
	c.decode(http.MethodPost, protocol.PathSchema, map[string]any{"types": types, "filter": filter, "account": c.Account}, &out)
	for _, ty := range types {
		if _, ok := out[ty]; !ok {
			c.t.Errorf("appkittest: schema lacks requested type %q", ty)
		}
	}
	return out
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
	Items               []map[string]any
	SynchronizationType string
}

// Sync walks every page of run.Type, following nextPageConfig as the service
// does, and returns the pages. Every page is checked against the protocol.
func (c *Client) Sync(run Run) []Page {
	c.t.Helper()
	types := run.Types
	if types == nil {
		types = []string{run.Type}
	}
	req := map[string]any{"requestedType": run.Type, "types": types, "filter": run.Filter, "account": c.Account,
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
			Items               []map[string]any     `json:"items"`
			Pagination          *protocol.Pagination `json:"pagination"`
			SynchronizationType string               `json:"synchronizationType"`
		}
		c.decode(http.MethodPost, protocol.PathData, req, &p)
		if p.Items == nil {
			c.t.Fatalf("appkittest: %s page %d: items is missing or null", run.Type, n)
		}
		switch p.SynchronizationType {
		case protocol.SyncFull:
		case protocol.SyncDelta:
			for _, it := range p.Items {
				if a := it[protocol.SyncAction]; a != protocol.ActionSet && a != protocol.ActionRemove {
					c.t.Errorf("appkittest: %s page %d: delta item without __syncAction SET or REMOVE: %v", run.Type, n, it)
				}
			}
		default:
			c.t.Fatalf("appkittest: %s page %d: synchronizationType %q, want full or delta", run.Type, n, p.SynchronizationType)
		}
		for _, it := range p.Items {
			if _, ok := it["id"]; !ok {
				c.t.Errorf("appkittest: %s page %d: item without id: %v", run.Type, n, it)
			}
		}
		pages = append(pages, Page{Items: p.Items, SynchronizationType: p.SynchronizationType})
		if p.Pagination == nil || !p.Pagination.HasNext {
			return pages
		}
		next := bytes.TrimSpace(p.Pagination.NextPageConfig)
		if len(next) == 0 || next[0] != '{' {
			c.t.Fatalf("appkittest: %s page %d: hasNext with nextPageConfig %s, want an object", run.Type, n, next)
		}
		req["pagination"] = json.RawMessage(next)
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
