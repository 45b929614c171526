package commands

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

func newTestAPI(t *testing.T) *API {
	t.Helper()
	return New(teststore.Open(t, "sqlite::memory:"))
}

func TestServeHTTP(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	srv := httptest.NewServer(api)
	defer srv.Close()
	cases := []struct {
		name, method, body string
		status             int
		want               string // substring of the response body
	}{
		{"schema query", "POST", `[{"command":"platform.schema/query"}]`, 200, `"platform/types"`},
		{"two commands", "POST", `[{"command":"platform.schema/query"},{"command":"nope/nope","args":{}}]`, 200, `{"success":false,"result":{"name":"request.error/unknown-command"`},
		{"empty array", "POST", `[]`, 200, `[]`},
		{"malformed JSON", "POST", `[{"command":`, 400, `{"success":false,"result":{"name":"request.error/malformed"`},
		{"not an array", "POST", `{"command":"platform.schema/query"}`, 400, `request.error/malformed`},
		{"null", "POST", `null`, 400, `request.error/malformed`},
		{"element not an object", "POST", `[1]`, 200, `request.error/malformed`},
		{"args not an object", "POST", `[{"command":"platform.entity/create","args":[]}]`, 200, `request.error/invalid-args`},
		{"missing arg", "POST", `[{"command":"platform.entity/create","args":{"entity":{}}}]`, 200, `request.error/invalid-args`},
		{"schema command outside a batch", "POST", `[{"command":"schema.type/create","args":{}}]`, 200, `request.error/unknown-command`},
		{"GET", "GET", ``, 405, `request.error/malformed`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, srv.URL, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Errorf("status %d, want %d (%s)", resp.StatusCode, c.status, b)
			}
			if !strings.Contains(string(b), c.want) {
				t.Errorf("body %s\nlacks %s", b, c.want)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("content type %q", ct)
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("response is not JSON: %s", b)
			}
		})
	}
}

func TestServeHTTPTooLarge(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	body := `[{"command":"platform.schema/query","args":{"x":"` + strings.Repeat("a", MaxBodyBytes) + `"}}]`
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest("POST", "/api/commands", strings.NewReader(body)))
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), NameTooLarge) {
		t.Errorf("status %d body %.200s", rec.Code, rec.Body.String())
	}
}

// Internal failures answer a generic message: no SQL, no values.
func TestInternalErrorsAreOpaque(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	ok(t, api, `{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.type/create","args":{"platform/name":"A/B","platform/fields":[{"platform/name":"A/x","platform/type":"platform/text"}]}}]}}`)
	var logged []string
	api.InternalError = func(_ context.Context, cmd string, err error) { logged = append(logged, cmd+": "+err.Error()) }
	// Break the table behind the catalog's back.
	if _, err := api.st.DB().Exec("DROP TABLE t_3"); err != nil {
		t.Fatal(err)
	}
	res := exec(t, api, `[{"command":"platform.entity/create","args":{"type":"A/B","entity":{"A/x":"secret value"}}}]`)
	body := mustJSON(t, res)
	if res[0]["success"] != false || !strings.Contains(body, store.NameInternal) || strings.Contains(body, "secret value") || strings.Contains(body, "t_3") {
		t.Errorf("internal error leaked or missing: %s", body)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "platform.entity/create: ") || strings.Contains(logged[0], "secret value") {
		t.Errorf("InternalError hook got %q", logged)
	}
}

func TestExecuteMalformed(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	for _, body := range []string{``, `{`, `"x"`, `null`, `{}`} {
		if _, err := api.Execute(context.Background(), []byte(body)); err == nil {
			t.Errorf("Execute(%q) succeeded", body)
		} else if e, ok := store.AsError(err); !ok || e.Name != NameMalformed {
			t.Errorf("Execute(%q) = %v", body, err)
		}
	}
}
