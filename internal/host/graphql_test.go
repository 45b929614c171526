package host_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

const gqlToken = "graphql-test-token-0123456789"

// gqlEnv is a host with a space "shop" (products with a name and a price)
// and an API token.
type gqlEnv struct {
	srv *httptest.Server
	st  *store.Store
}

func newGQLEnv(t *testing.T, dsn string, cfg host.Config) *gqlEnv {
	t.Helper()
	st := teststore.Open(t, dsn)
	if err := st.WriteSchema(context.Background(), func(tx *store.Tx) error {
		if err := tx.CreateType(store.TypeSpec{Name: "shop/product", Meta: map[string]any{"ui/label": "Products"}, Fields: []store.FieldSpec{
			{Name: "shop.product/name", Type: store.TText, Meta: map[string]any{"ui/label": "Name"}},
			{Name: "shop.product/price", Type: store.TInt, Meta: map[string]any{"ui/label": "Price"}},
		}}); err != nil {
			return err
		}
		for i, n := range []string{"apple", "pear", "plum"} {
			if _, err := tx.Create("shop/product", map[string]any{"shop.product/name": n, "shop.product/price": int64(i + 1)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cfg.Store = st
	cfg.PasswordCost = 4
	cfg.AdminEmail, cfg.AdminPassword = adminEmail, adminPass
	cfg.Token = gqlToken
	cfg.Notice = io.Discard
	h, err := host.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &gqlEnv{srv: srv, st: st}
}

func (e *gqlEnv) post(t *testing.T, path, body string, token bool) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token {
		req.Header.Set("Authorization", "Token "+gqlToken)
	}
	return roundTrip(t, http.DefaultClient.Do, req)
}

func (e *gqlEnv) get(t *testing.T, path string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return roundTrip(t, http.DefaultTransport.RoundTrip, req) // redirects not followed
}

// roundTrip sends req with do and returns the answer's status, body and header.
func roundTrip(t *testing.T, do func(*http.Request) (*http.Response, error), req *http.Request) (int, string, http.Header) {
	t.Helper()
	resp, err := do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func gqlBody(q string) string {
	b, _ := json.Marshal(map[string]any{"query": q})
	return string(b)
}

func TestGraphQLEndpoint(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		e := newGQLEnv(t, dsn, host.Config{})
		const space = "/api/graphql/space/shop"
		status, body, _ := e.post(t, space, gqlBody(`{ me { email } findProducts(price: {greater: 1}, orderBy: {price: DESC}) { name price } }`), true)
		want := `{"data":{"me":{"email":"admin@example.com"},"findProducts":[{"name":"plum","price":3},{"name":"pear","price":2}]}}`
		if status != 200 || body != want {
			t.Errorf("query: %d %s\nwant %s", status, body, want)
		}
		// A mutation, then the change read back.
		status, body, _ = e.post(t, space, gqlBody(`mutation { products(name: {is: "pear"}) { update(price: 20) { message entities { type } } } }`), true)
		if status != 200 || body != `{"data":{"products":{"update":{"message":"updated 1 Products","entities":[{"type":"Products"}]}}}}` {
			t.Errorf("mutation: %d %s", status, body)
		}
		// A file attached by an action is downloaded with the token.
		status, body, _ = e.post(t, space, gqlBody(`mutation { products(name: {is: "plum"}) { attachPdfUsingTemplate(value: "{{name}} costs {{price}}", name: "plum") { message } listEntities { files { url } } } }`), true)
		_, after, ok := strings.Cut(body, `"url":"`)
		if status != 200 || !ok {
			t.Fatalf("attach: %d %s", status, body)
		}
		fileURL := after[:strings.IndexByte(after, '"')]
		status, pdf, hdr := e.get(t, fileURL, map[string]string{"Authorization": "Token " + gqlToken})
		if status != 200 || hdr.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(pdf, "%PDF-") {
			t.Errorf("file: %d %v %.20q", status, hdr, pdf)
		}
		if status, _, _ := e.get(t, fileURL, nil); status != 401 {
			t.Errorf("file without token: %d", status)
		}
		// Bad queries are GraphQL errors, never a 500.
		for _, q := range []string{`{ findProducts { nope } }`, `{ findProducts(`, `query { findProducts(limit: -1) { name } }`} {
			status, body, _ = e.post(t, space, gqlBody(q), true)
			if status != 200 || !strings.Contains(body, `"errors":[{"message":`) {
				t.Errorf("%s: %d %s", q, status, body)
			}
		}
		for _, c := range []struct {
			path, body string
			token      bool
			status     int
			msg        string
		}{
			{space, gqlBody(`{ me { email } }`), false, 401, "Authorization"},
			{space, `not json`, true, 400, "not a JSON object"},
			{space, `{"query": "` + strings.Repeat(" ", 2<<20) + `{ me { email } }"}`, true, 413, "larger than"},
			{"/api/graphql/space/nowhere", gqlBody(`{ me { email } }`), true, 404, "no space nowhere"},
		} {
			status, body, _ := e.post(t, c.path, c.body, c.token)
			if status != c.status || !strings.Contains(body, c.msg) || !strings.HasPrefix(body, `{"message":`) {
				t.Errorf("%s %.40s: %d %.200s", c.path, c.body, status, body)
			}
		}
		// The list of spaces.
		status, body, _ = e.get(t, "/api/graphql", map[string]string{"Authorization": "Token " + gqlToken})
		if status != 200 || body != `{"spaces":[{"endpoint":"/api/graphql/space/shop","space":"shop"}]}`+"\n" && body != `{"spaces":[{"endpoint":"/api/graphql/space/shop","space":"shop"}]}` {
			t.Errorf("list: %d %q", status, body)
		}
		if status, _, _ := e.get(t, "/api/graphql", nil); status != 401 {
			t.Errorf("list without token: %d", status)
		}
		// The IDE page and its files, served from the binary.
		status, body, hdr = e.get(t, space, nil)
		if status != 200 || !strings.Contains(body, "/api/graphql/ide/graphiql.min.js") || !strings.Contains(hdr.Get("Content-Type"), "text/html") ||
			strings.Contains(body, "http:") || strings.Contains(body, "https:") || strings.Contains(body, `src="//`) {
			t.Errorf("IDE page: %d %s %.300s", status, hdr, body)
		}
		status, body, hdr = e.get(t, "/api/graphql/ide/graphiql.min.js", map[string]string{"Accept-Encoding": "gzip"})
		if status != 200 || hdr.Get("Content-Encoding") != "gzip" || len(body) < 100000 {
			t.Errorf("asset (gzip): %d %v %d bytes", status, hdr, len(body))
		}
		status, body, _ = e.get(t, "/api/graphql/ide/react.production.min.js", nil)
		if status != 200 || !strings.Contains(body, "React") {
			t.Errorf("asset (plain): %d %.100s", status, body)
		}
		if status, _, _ := e.get(t, "/api/graphql/ide/..%2fhost.go", nil); status != 404 {
			t.Errorf("unknown asset: %d", status)
		}
	})
}

// The GraphQL API shares the command API's rate limit per token.
func TestGraphQLRateLimit(t *testing.T) {
	t.Parallel()
	e := newGQLEnv(t, "sqlite::memory:", host.Config{RateLimit: 3, Now: stoppedClock()})
	limited := 0
	for i := 0; i < 8; i++ {
		status, body, hdr := e.post(t, "/api/graphql/space/shop", gqlBody(`{ me { email } }`), true)
		if status == 429 {
			limited++
			if hdr.Get("Retry-After") == "" || !strings.Contains(body, "rate limit") {
				t.Errorf("429 without Retry-After or message: %v %s", hdr, body)
			}
		}
	}
	if limited == 0 {
		t.Error("8 requests at once were never limited at 3 per second")
	}
}
