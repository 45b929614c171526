package documents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/appkitgo/appkit/internal/store"
)

const (
	known   = "0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10"
	unknown = "9a1c2b3d-0000-4000-8000-000000000000"
)

func newTestHandler(t *testing.T) (*Handler, *httptest.Server) {
	t.Helper()
	db, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "docs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := NewStore(context.Background(), db.DB(), db.Dialect())
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{
		Store: st,
		Exists: func(ctx context.Context, secret string) (bool, error) {
			if secret == "ffffffff-ffff-4fff-8fff-ffffffffffff" {
				return false, errors.New("database on fire: secret detail")
			}
			return secret == known, nil
		},
		MaxBody: 64 << 10,
	}
	mux := http.NewServeMux()
	mux.Handle("/api/documents/{secret}", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return h, srv
}

func call(t *testing.T, srv *httptest.Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %q", method, path, raw)
	}
	return resp.StatusCode, m
}

func TestHandlerReadWriteEveryFormat(t *testing.T) {
	t.Parallel()
	_, srv := newTestHandler(t)
	doc := "/api/documents/" + known

	// Exists but never written: empty content in every format.
	for format, want := range map[string]string{"": "", "md": "", "html": "", "json": `{"type":"doc"}`} {
		code, m := call(t, srv, "GET", doc+"?format="+format, "")
		if code != 200 || m["secret"] != known || m["content"] != want {
			t.Errorf("GET empty format=%q: %d %v", format, code, m)
		}
	}

	code, m := call(t, srv, "PUT", doc, `{"content": "# Plan\n\n- **one**\n- ~~two~~\n"}`)
	if code != 200 || m["content"] != "# Plan\n\n- **one**\n- ~~two~~\n" {
		t.Fatalf("PUT md: %d %v", code, m)
	}
	code, m = call(t, srv, "GET", doc+"?format=html", "")
	if code != 200 || m["content"] != "<h1>Plan</h1>\n<ul>\n<li><strong>one</strong></li>\n<li><del>two</del></li>\n</ul>\n" {
		t.Fatalf("GET html: %d %q", code, m["content"])
	}
	code, m = call(t, srv, "GET", doc+"?format=json", "")
	tree, err := UnmarshalTree([]byte(m["content"].(string)))
	if code != 200 || err != nil || tree.Children[0].Type != "heading" || tree.Children[1].Type != "list" {
		t.Fatalf("GET json: %d %v %v", code, m, err)
	}

	// PUT html, read back as markdown.
	code, m = call(t, srv, "PUT", doc+"?format=html", `{"content": "<h2>Done</h2><table><tr><th>a</th></tr><tr><td>1</td></tr></table>"}`)
	if code != 200 || !strings.HasPrefix(m["content"].(string), "<h2>Done</h2>") {
		t.Fatalf("PUT html: %d %v", code, m)
	}
	_, m = call(t, srv, "GET", doc, "")
	if m["content"] != "## Done\n\n| a |\n|---|\n| 1 |\n" {
		t.Fatalf("markdown after PUT html: %q", m["content"])
	}

	// PUT json, as a string and as the tree object.
	treeJSON := `{"type":"doc","children":[{"type":"paragraph","children":[{"type":"text","text":"Hi "},{"type":"emphasis","children":[{"type":"text","text":"there"}]}]}]}`
	quoted, _ := json.Marshal(treeJSON)
	for _, body := range []string{`{"content": ` + string(quoted) + `}`, `{"content": ` + treeJSON + `}`} {
		code, m = call(t, srv, "PUT", doc+"?format=json", body)
		if code != 200 {
			t.Fatalf("PUT json %s: %d %v", body, code, m)
		}
		_, m = call(t, srv, "GET", doc+"?format=md", "")
		if m["content"] != "Hi *there*\n" {
			t.Fatalf("markdown after PUT json: %q", m["content"])
		}
	}
}

func TestHandlerErrors(t *testing.T) {
	t.Parallel()
	_, srv := newTestHandler(t)
	doc := "/api/documents/" + known
	tests := []struct {
		name, method, path, body string
		code                     int
		msg                      string
	}{
		{"unknown secret", "GET", "/api/documents/" + unknown, "", 404, "not found"},
		{"malformed secret", "GET", "/api/documents/not-a-uuid", "", 404, "not found"},
		{"injection in secret", "GET", "/api/documents/x'%20OR%20'1'='1", "", 404, "not found"},
		{"put to unknown secret", "PUT", "/api/documents/" + unknown, `{"content":"x"}`, 404, "not found"},
		{"bad format", "GET", doc + "?format=pdf", "", 400, "unknown format"},
		{"bad json", "PUT", doc, `{"content":`, 400, "JSON object"},
		{"not an object", "PUT", doc, `["x"]`, 400, "JSON object"},
		{"no content", "PUT", doc, `{}`, 400, `no "content"`},
		{"content not a string", "PUT", doc, `{"content": 42}`, 400, "must be a string"},
		{"object content for md", "PUT", doc + "?format=md", `{"content": {"type":"doc"}}`, 400, "must be a string"},
		{"bad tree", "PUT", doc + "?format=json", `{"content": {"type":"doc","children":[{"type":"blink"}]}}`, 400, "blink"},
		{"too large", "PUT", doc, `{"content":"` + strings.Repeat("a", 70<<10) + `"}`, 413, "larger than"},
		{"method", "DELETE", doc, "", 405, "not allowed"},
		{"store failure hides detail", "GET", "/api/documents/ffffffff-ffff-4fff-8fff-ffffffffffff", "", 500, "internal error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, m := call(t, srv, tc.method, tc.path, tc.body)
			msg, _ := m["message"].(string)
			if code != tc.code || !strings.Contains(msg, tc.msg) {
				t.Fatalf("%d %q, want %d with %q", code, msg, tc.code, tc.msg)
			}
			if strings.Contains(msg, "secret detail") {
				t.Fatalf("internal error leaked: %q", msg)
			}
		})
	}
	// Nothing of the failed writes was stored.
	_, m := call(t, srv, "GET", doc, "")
	if m["content"] != "" {
		t.Fatalf("content after failed writes: %q", m["content"])
	}
}

func TestHandlerTooComplex(t *testing.T) {
	t.Parallel()
	h, srv := newTestHandler(t)
	h.ConvertTimeout = 20 * time.Millisecond
	h.MaxBody = 1 << 20
	// Unclosed brackets on one line: quadratic in the markdown parser.
	body, _ := json.Marshal(map[string]string{"content": strings.Repeat("[a](", 20000)})
	code, m := call(t, srv, "PUT", "/api/documents/"+known, string(body))
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("%d %v, want 422", code, m)
	}
}

// A secret is a UUID: every spelling of it names one document, stored once,
// under its lower-case form.
func TestHandlerSecretCase(t *testing.T) {
	t.Parallel()
	h, srv := newTestHandler(t)
	upper := strings.ToUpper(known)
	mixed := strings.ToUpper(known[:8]) + known[8:]
	code, m := call(t, srv, "PUT", "/api/documents/"+upper, `{"content": "from upper"}`)
	if code != http.StatusOK || m["secret"] != known {
		t.Fatalf("upper-case PUT: %d %v", code, m)
	}
	for _, s := range []string{known, upper, mixed} {
		code, m := call(t, srv, "GET", "/api/documents/"+s, "")
		if code != http.StatusOK || m["content"] != "from upper\n" || m["secret"] != known {
			t.Fatalf("GET %s: %d %v", s, code, m)
		}
	}
	code, _ = call(t, srv, "PUT", "/api/documents/"+mixed, `{"content": "from mixed"}`)
	if code != http.StatusOK {
		t.Fatalf("mixed-case PUT: %d", code)
	}
	var n int
	if err := h.Store.db.QueryRow(`SELECT count(*) FROM host_documents`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d rows (%v), want 1", n, err)
	}
	if got, _, _ := h.Store.Get(context.Background(), upper); got != "from mixed\n" {
		t.Fatalf("Store.Get(upper) = %q", got)
	}
	if err := h.Store.Put(context.Background(), upper, "direct"); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := h.Store.db.QueryRow(`SELECT content FROM host_documents WHERE secret = ?`, known).Scan(&stored); err != nil || stored != "direct" {
		t.Fatalf("Store.Put(upper) stored %q (%v) under the lower-case secret", stored, err)
	}
	if err := h.Store.Delete(context.Background(), upper); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := h.Store.Get(context.Background(), known); found {
		t.Fatal("Delete in upper case left the document")
	}
	if err := h.Store.Put(context.Background(), "not-a-uuid", "x"); !errors.Is(err, ErrSecret) {
		t.Fatalf("Put of a malformed secret: %v", err)
	}
}

// Content with a NUL character is refused (PostgreSQL cannot store it), in
// every format.
func TestHandlerRefusesNUL(t *testing.T) {
	t.Parallel()
	h, srv := newTestHandler(t)
	for _, tc := range []struct{ format, body string }{
		{"md", `{"content": "a\u0000b"}`},
		{"json", `{"content": {"type":"doc","children":[{"type":"code_block","text":"a\u0000b"}]}}`},
	} {
		code, m := call(t, srv, "PUT", "/api/documents/"+known+"?format="+tc.format, tc.body)
		if code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(m["message"]), "NUL") {
			t.Errorf("%s: %d %v, want 400 naming the NUL", tc.format, code, m)
		}
	}
	if _, found, _ := h.Store.Get(context.Background(), known); found {
		t.Fatal("a refused write was stored")
	}
	if err := h.Store.Put(context.Background(), known, "a\x00b"); !errors.Is(err, ErrNUL) {
		t.Fatalf("Store.Put with NUL: %v", err)
	}
}
