package host_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
	"github.com/rs/zerolog"
)

const (
	adminEmail = "admin@example.com"
	adminPass  = "s3cret-pass-42"
)

// env is one host under test with a client that keeps cookies.
type env struct {
	t      *testing.T
	srv    *httptest.Server
	client *http.Client
	host   *host.Host
	logs   *testkit.Buffer
}

// forEachStore runs fn against a fresh host on SQLite, and on PostgreSQL
// when APPKIT_TEST_POSTGRES is set.
func forEachStore(t *testing.T, cfg host.Config, fn func(t *testing.T, e *env)) {
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		fn(t, newEnv(t, dsn, cfg))
	})
}

func newEnv(t *testing.T, dsn string, cfg host.Config) *env {
	t.Helper()
	st := teststore.Open(t, dsn)
	logs := &testkit.Buffer{}
	cfg.Store = st
	cfg.PasswordCost = 4
	if cfg.AdminEmail == "" {
		cfg.AdminEmail, cfg.AdminPassword = adminEmail, adminPass
	}
	cfg.Logger = zerolog.New(logs)
	if cfg.Notice == nil {
		cfg.Notice = io.Discard
	}
	h, err := host.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("host.New: %v", err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	return &env{t: t, srv: srv, client: &http.Client{Jar: jar}, host: h, logs: logs}
}

type response struct {
	code   int
	header http.Header
	raw    []byte
}

func (r response) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.raw, &m); err != nil {
		t.Fatalf("body is not a JSON object: %q", r.raw)
	}
	return m
}

func (r response) message(t *testing.T) string {
	t.Helper()
	s, _ := r.obj(t)["message"].(string)
	return s
}

// do sends a request; token "" sends no Authorization header.
func (e *env) do(method, path, token, body string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Token "+token)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return response{code: resp.StatusCode, header: resp.Header, raw: raw}
}

func (e *env) login() {
	e.t.Helper()
	r := e.do("POST", "/api/login", "", `{"email":"`+adminEmail+`","password":"`+adminPass+`"}`)
	if r.code != 200 {
		e.t.Fatalf("login: %d %s", r.code, r.raw)
	}
}

func (e *env) newToken(name string) (id, value string) {
	e.t.Helper()
	r := e.do("POST", "/api/tokens", "", `{"name":"`+name+`"}`)
	if r.code != 200 {
		e.t.Fatalf("create token: %d %s", r.code, r.raw)
	}
	m := r.obj(e.t)
	id, _ = m["id"].(string)
	value, _ = m["value"].(string)
	if id == "" || len(value) < 32 {
		e.t.Fatalf("created token %s", r.raw)
	}
	return id, value
}

// commands posts a command array and returns the decoded results.
func (e *env) commands(token, body string) []map[string]any {
	e.t.Helper()
	r := e.do("POST", "/api/commands", token, body)
	if r.code != 200 {
		e.t.Fatalf("commands: %d %s", r.code, r.raw)
	}
	var out []map[string]any
	if err := json.Unmarshal(r.raw, &out); err != nil {
		e.t.Fatalf("commands answer %q: %v", r.raw, err)
	}
	for i, res := range out {
		if res["success"] != true {
			e.t.Fatalf("command %d failed: %s", i, r.raw)
		}
	}
	return out
}

const createNote = `[{"command":"platform.schema/batch","args":{"commands":[
 {"command":"schema.type/create","args":{
  "platform/name":"Notes/Note",
  "platform/meta":{"platform/domain?":true},
  "platform/fields":[
   {"platform/name":"platform/id","platform/type":"platform/uuid","platform/meta":{"platform/id?":true,"platform/readonly?":true}},
   {"platform/name":"platform/public-id","platform/type":"platform/text","platform/meta":{"platform/public-id?":true,"platform/readonly?":true}},
   {"platform/name":"platform/creation-date","platform/type":"platform/date-time","platform/meta":{"platform/creation-date?":true,"platform/readonly?":true,"platform/default-value":"$now"}},
   {"platform/name":"platform/modification-date","platform/type":"platform/date-time","platform/meta":{"platform/modification-date?":true,"platform/required?":true,"platform/readonly?":true,"platform/default-value":"$now"}},
   {"platform/name":"Notes/name","platform/type":"platform/text","platform/meta":{"ui/title?":true}}
  ]}},
 {"command":"schema.field/create","args":{"platform/holder-type":"Notes/Note","platform/name":"Notes/Body","platform/type":"Collaboration~Documents/Document"}}
]}},
{"command":"platform.entity/create","args":{"type":"Notes/Note","entity":{"Notes/name":"First"}}}]`

const querySecret = `[{"command":"platform.entity/query","args":{"query":{"q/from":"Notes/Note",
 "q/select":["Notes/name",{"Notes/Body":["Collaboration~Documents/secret"]}],"q/limit":10}}}]`

// TestFullFlow walks the whole surface: sign in, create a token, use it on
// the command API and the documents, delete it.
func TestFullFlow(t *testing.T) {
	t.Parallel()
	forEachStore(t, host.Config{}, func(t *testing.T, e *env) {
		e.login()
		// A name over the limit is refused with the service's reason, and
		// no token is made.
		if r := e.do("POST", "/api/tokens", "", `{"name":"`+strings.Repeat("n", 201)+`"}`); r.code != http.StatusBadRequest || !strings.Contains(string(r.raw), "at most 200 bytes") {
			t.Fatalf("token with a long name: %d %s", r.code, r.raw)
		}
		id, token := e.newToken("ci")

		r := e.do("GET", "/api/tokens", "", "")
		var list []map[string]any
		if err := json.Unmarshal(r.raw, &list); r.code != 200 || err != nil {
			t.Fatalf("list: %d %s", r.code, r.raw)
		}
		if len(list) != 1 || list[0]["id"] != id || list[0]["name"] != "ci" || list[0]["created-at"] == nil {
			t.Fatalf("list = %s", r.raw)
		}
		if strings.Contains(string(r.raw), token) || list[0]["value"] != nil {
			t.Fatalf("the list shows the token value: %s", r.raw)
		}

		e.commands(token, createNote)
		rows := e.commands(token, querySecret)[0]["result"].([]any)
		if len(rows) != 1 {
			t.Fatalf("rows = %v", rows)
		}
		row := rows[0].(map[string]any)
		secret, _ := row["Notes/Body"].(map[string]any)["Collaboration~Documents/secret"].(string)
		if len(secret) != 36 {
			t.Fatalf("no document secret in %v", row)
		}
		doc := "/api/documents/" + secret

		// Never written: empty.
		if r := e.do("GET", doc, token, ""); r.code != 200 || r.obj(t)["content"] != "" || r.obj(t)["secret"] != secret {
			t.Fatalf("GET new document: %d %s", r.code, r.raw)
		}
		if r := e.do("PUT", doc+"?format=md", token, `{"content":"# Hello\n\nSome **bold** text.\n"}`); r.code != 200 {
			t.Fatalf("PUT md: %d %s", r.code, r.raw)
		}
		if r := e.do("GET", doc+"?format=html", token, ""); r.obj(t)["content"] != "<h1>Hello</h1>\n<p>Some <strong>bold</strong> text.</p>\n" {
			t.Fatalf("GET html: %s", r.raw)
		}
		r = e.do("GET", doc+"?format=json", token, "")
		var tree map[string]any
		if err := json.Unmarshal([]byte(r.obj(t)["content"].(string)), &tree); err != nil || tree["type"] != "doc" {
			t.Fatalf("GET json: %s", r.raw)
		}
		if r := e.do("PUT", doc+"?format=html", token, `{"content":"<p>From <em>HTML</em></p>"}`); r.code != 200 {
			t.Fatalf("PUT html: %d %s", r.code, r.raw)
		}
		if r := e.do("GET", doc, token, ""); r.obj(t)["content"] != "From *HTML*\n" {
			t.Fatalf("GET md after PUT html: %s", r.raw)
		}
		jsonDoc := `{"type":"doc","children":[{"type":"heading","level":2,"children":[{"type":"text","text":"From JSON"}]}]}`
		if r := e.do("PUT", doc+"?format=json", token, `{"content":`+jsonDoc+`}`); r.code != 200 {
			t.Fatalf("PUT json: %d %s", r.code, r.raw)
		}
		if r := e.do("GET", doc+"?format=md", token, ""); r.obj(t)["content"] != "## From JSON\n" {
			t.Fatalf("GET md after PUT json: %s", r.raw)
		}

		// Delete the token: it no longer opens anything.
		if r := e.do("DELETE", "/api/tokens/"+id, "", ""); r.code != http.StatusNoContent {
			t.Fatalf("delete: %d %s", r.code, r.raw)
		}
		if r := e.do("POST", "/api/commands", token, `[{"command":"platform.schema/query"}]`); r.code != 401 {
			t.Fatalf("deleted token on commands: %d %s", r.code, r.raw)
		}
		if r := e.do("GET", doc, token, ""); r.code != 401 {
			t.Fatalf("deleted token on documents: %d %s", r.code, r.raw)
		}
		if r := e.do("DELETE", "/api/tokens/"+id, "", ""); r.code != 404 {
			t.Fatalf("second delete: %d %s", r.code, r.raw)
		}

		// The logs name requests but hold no secret.
		logs := e.logs.String()
		for _, secretText := range []string{token, secret, adminPass} {
			if strings.Contains(logs, secretText) {
				t.Fatalf("a secret is in the logs:\n%s", logs)
			}
		}
		if !strings.Contains(logs, `"path":"/api/documents/<secret>"`) || !strings.Contains(logs, `"token_id":"`+id+`"`) {
			t.Fatalf("log lines lack the expected fields:\n%s", logs)
		}
	})
}

// srvFrom serves h for e.
func (e *env) srvFrom(h *host.Host) {
	e.t.Helper()
	e.srv = httptest.NewServer(h)
	e.t.Cleanup(e.srv.Close)
	jar, _ := cookiejar.New(nil)
	e.client = &http.Client{Jar: jar}
	e.host = h
}

// stoppedClock is a clock that does not move: rate limits and throttles
// under it never refill, however slow the machine.
func stoppedClock() func() time.Time {
	at := time.Unix(1_700_000_000, 0)
	return func() time.Time { return at }
}
