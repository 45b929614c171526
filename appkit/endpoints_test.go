package appkit_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

func TestEndpoints(t *testing.T) {
	t.Parallel()
	var s seen
	h := testapp.Handler(t, newTestApp(&s, quietLogger()))
	type check func(t *testing.T, r response)
	message := func(sub string) check {
		return func(t *testing.T, r response) {
			msg, _ := r.body["message"].(string)
			if !strings.Contains(msg, sub) {
				t.Errorf("message = %q, want it to contain %q", msg, sub)
			}
		}
	}
	tests := []struct {
		name         string
		method, path string
		body         string
		status       int
		check        check
	}{
		{"descriptor", "GET", "/", "", 200, func(t *testing.T, r response) {
			if r.body["name"] != "Test app" || r.body["version"] != "1.2.3" || r.body["id"] != "test" {
				t.Errorf("descriptor = %v", r.body)
			}
			rf := r.body["responsibleFor"].(map[string]any)
			if rf["dataSynchronization"] != true || rf["automations"] != true {
				t.Errorf("responsibleFor = %v", rf)
			}
			if src, ok := r.body["sources"].([]any); !ok || len(src) != 0 {
				t.Errorf("sources = %#v, want []", r.body["sources"])
			}
			auths := r.body["authentication"].([]any)
			tok := auths[0].(map[string]any)
			if tok["id"] != "token" || tok["fields"].([]any)[0].(map[string]any)["type"] != "password" {
				t.Errorf("token auth = %v", tok)
			}
			acts := r.body["actions"].([]any)
			if a := acts[0].(map[string]any); a["action"] != "notify" || len(a["args"].([]any)) != 2 {
				t.Errorf("actions = %v", acts)
			}
		}},
		{"validate ok", "POST", "/validate", `{"id":"token","fields":{"token":"good","extra":1}}`, 200, func(t *testing.T, r response) {
			if r.body["name"] != "Good account" {
				t.Errorf("name = %v", r.body["name"])
			}
		}},
		{"validate refused", "POST", "/validate", `{"id":"token","fields":{"token":"nope"}}`, 401, message("not valid")},
		{"validate missing token", "POST", "/validate", `{"id":"token","fields":{}}`, 401, message("token is missing")},
		{"validate try later", "POST", "/validate", `{"id":"token","fields":{"token":"busy"}}`, 503, func(t *testing.T, r response) {
			if r.body["tryLater"] != true {
				t.Errorf("tryLater = %v", r.body["tryLater"])
			}
		}},
		{"validate extra fields", "POST", "/validate", `{"id":"custom","fields":{"server":"db1"}}`, 200, func(t *testing.T, r response) {
			if r.body["name"] != "db1" || r.body["account_id"] != "42" {
				t.Errorf("answer = %v", r.body)
			}
		}},
		{"validate unknown auth", "POST", "/validate", `{"id":"ldap","fields":{}}`, 401, message(`unknown authentication "ldap"`)},
		{"validate no id", "POST", "/validate", `{"fields":{}}`, 400, message("id is required")},
		{"validate malformed", "POST", "/validate", `{"id":`, 400, message("malformed JSON")},
		{"validate wrong type", "POST", "/validate", `{"id":5}`, 400, message("id: want string")},
		{"logo", "GET", "/logo", "", 200, func(t *testing.T, r response) {
			if ct := r.header.Get("Content-Type"); ct != "image/svg+xml" {
				t.Errorf("content type = %q", ct)
			}
		}},
		{"config", "POST", "/api/v1/synchronizer/config", `{"account":{"token":"good"}}`, 200, func(t *testing.T, r response) {
			types := r.body["types"].([]any)
			if len(types) != 2 || types[0].(map[string]any)["default"] != true {
				t.Errorf("types = %v", types)
			}
			filters := r.body["filters"].([]any)
			last := filters[len(filters)-1].(map[string]any)
			if last["datalist"] != true || last["datalist_requires"].([]any)[0] != "team" {
				t.Errorf("filter = %v", last)
			}
			if r.body["webhooks"].(map[string]any)["enabled"] != true {
				t.Errorf("webhooks = %v", r.body["webhooks"])
			}
		}},
		{"config empty body", "POST", "/api/v1/synchronizer/config", ``, 200, nil},
		{"schema", "POST", "/api/v1/synchronizer/schema", `{"types":["task"],"filter":{},"account":{}}`, 200, func(t *testing.T, r response) {
			task := r.body["task"].(map[string]any)
			rel := task["project"].(map[string]any)["relation"].(map[string]any)
			if rel["cardinality"] != "many-to-one" || rel["targetType"] != "project" || rel["targetFieldId"] != "id" {
				t.Errorf("relation = %v", rel)
			}
			if task["due"].(map[string]any)["subType"] != "day" || task["points"].(map[string]any)["subType"] != "integer" {
				t.Errorf("subtypes = %v", task)
			}
			if task["__syncAction"].(map[string]any)["type"] != "text" {
				t.Errorf("__syncAction = %v", task["__syncAction"])
			}
			if _, ok := r.body["project"]; ok {
				t.Errorf("schema has unrequested type project")
			}
		}},
		{"schema unknown type", "POST", "/api/v1/synchronizer/schema", `{"types":["bug"]}`, 400, message(`unknown type "bug"`)},
		{"schema no types", "POST", "/api/v1/synchronizer/schema", `{"types":[]}`, 400, message("types needs at least 1")},
		{"data first page", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","types":["task"],"filter":{},"account":{"token":"good"},"pagination":null,"lastSynchronizedAt":null}`, 200, func(t *testing.T, r response) {
			if len(r.body["items"].([]any)) != 2 || r.body["synchronizationType"] != "full" {
				t.Errorf("answer = %v", r.body)
			}
			p := r.body["pagination"].(map[string]any)
			if p["hasNext"] != true || p["nextPageConfig"].(map[string]any)["offset"] != 2.0 {
				t.Errorf("pagination = %v", p)
			}
			if s.cursor != nil {
				t.Errorf("first page got cursor %v", s.cursor)
			}
		}},
		{"data next page", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","pagination":{"offset":4}}`, 200, func(t *testing.T, r response) {
			if s.cursor == nil || s.cursor.Offset != 4 {
				t.Errorf("cursor = %v", s.cursor)
			}
			if p := r.body["pagination"].(map[string]any); p["hasNext"] != false {
				t.Errorf("pagination = %v", p)
			}
		}},
		{"data delta", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","lastSynchronizedAt":"2024-05-01T10:00:00Z","operationId":"op-1"}`, 200, func(t *testing.T, r response) {
			if r.body["synchronizationType"] != "delta" {
				t.Errorf("synchronizationType = %v", r.body["synchronizationType"])
			}
			items := r.body["items"].([]any)
			if items[0].(map[string]any)["__syncAction"] != "SET" || items[len(items)-1].(map[string]any)["__syncAction"] != "REMOVE" {
				t.Errorf("items = %v", items)
			}
			if want := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC); !s.data.LastSynchronizedAt.Equal(want) || s.data.OperationID != "op-1" {
				t.Errorf("request = %+v", s.data)
			}
		}},
		{"data typed filters", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","filter":{"min":"3.5","open":true,"since":"2024-02-29","team":"core","projects":["a",7],"due":{"_min":"2017-06-13T00:00:00.000","_max":null}}}`, 200, func(t *testing.T, r response) {
			v, f := s.data.Filter, s.f
			if n, ok := f.min.Get(v); !ok || n != 3.5 {
				t.Errorf("min = %v %v", n, ok)
			}
			open, _ := f.open.Get(v)
			team, _ := f.team.Get(v)
			projects, _ := f.projects.Get(v)
			if !open || team != "core" || strings.Join(projects, ",") != "a,7" {
				t.Errorf("filters = %v %v %v", open, team, projects)
			}
			if d, ok := f.since.Get(v); !ok || d.String() != "2024-02-29" {
				t.Errorf("since = %v", d)
			}
			if _, ok := f.mode.Get(v); ok || v.Has(f.mode) {
				t.Errorf("mode has a value, though none was sent")
			}
			due, ok := f.due.Get(v)
			if !ok || due.Min == nil || !due.Min.Equal(time.Date(2017, 6, 13, 0, 0, 0, 0, time.UTC)) || due.Max != nil {
				t.Errorf("due = %v (ok %v), want [2017-06-13, open)", due, ok)
			}
		}},
		{"data bad filter value", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","filter":{"min":"many"}}`, 400, message(`filter "min": want a number`)},
		{"data bad date range", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","filter":{"due":{"_min":"soon"}}}`, 400, message(`filter "due": want a date range`)},
		{"data bad datebox", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","filter":{"since":"yesterday-ish"}}`, 400, message(`filter "since"`)},
		{"data unknown type", "POST", "/api/v1/synchronizer/data", `{"requestedType":"bug"}`, 400, message(`unknown type "bug"`)},
		{"data no type", "POST", "/api/v1/synchronizer/data", `{}`, 400, message("requestedType is required")},
		{"data bad cursor", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","pagination":{"offset":"x"}}`, 400, message("pagination")},
		{"data bad lastSynchronizedAt", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","lastSynchronizedAt":"last tuesday"}`, 400, message("lastSynchronizedAt")},
		{"data try later", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","filter":{"mode":"fail"}}`, 503, func(t *testing.T, r response) {
			if r.body["tryLater"] != true || r.body["message"] != "upstream said 429" {
				t.Errorf("answer = %v", r.body)
			}
		}},
		{"data panic", "POST", "/api/v1/synchronizer/data", `{"requestedType":"task","filter":{"mode":"panic"}}`, 500, func(t *testing.T, r response) {
			if strings.Contains(string(r.raw), "boom") || r.body["message"] != "internal error" {
				t.Errorf("panic leaked: %s", r.raw)
			}
		}},
		{"datalist", "POST", "/api/v1/synchronizer/datalist", `{"field":"team","types":["task"],"account":{}}`, 200, func(t *testing.T, r response) {
			items := r.body["items"].([]any)
			if len(items) != 2 || items[0].(map[string]any)["title"] != "Core" || items[0].(map[string]any)["value"] != "core" {
				t.Errorf("items = %v", items)
			}
		}},
		{"datalist depends on", "POST", "/api/v1/synchronizer/datalist", `{"field":"projects","dependsOn":{"team":"web"}}`, 200, func(t *testing.T, r response) {
			items := r.body["items"].([]any)
			if items[0].(map[string]any)["title"] != "Project of web" || items[0].(map[string]any)["value"] != 7.0 {
				t.Errorf("items = %v", items)
			}
		}},
		{"datalist unknown field", "POST", "/api/v1/synchronizer/datalist", `{"field":"mode"}`, 400, message(`"mode" is not a filter with a datalist`)},
		{"filter valid", "POST", "/api/v1/synchronizer/filter/validate", `{"types":["task"],"filter":{"team":"core"}}`, 204, nil},
		{"filter missing required", "POST", "/api/v1/synchronizer/filter/validate", `{"types":["task"],"filter":{}}`, 400, message(`filter "team" (Team) is required`)},
		{"filter app check", "POST", "/api/v1/synchronizer/filter/validate", `{"filter":{"team":"core","mode":"bad"}}`, 400, message("mode bad is not allowed")},
		{"filter bad shape", "POST", "/api/v1/synchronizer/filter/validate", `{"filter":{"team":"core","open":"yes"}}`, 400, message(`filter "open"`)},
		{"resource", "POST", "/api/v1/synchronizer/resource", `{"params":{"file":"a.txt"}}`, 200, func(t *testing.T, r response) {
			if string(r.raw) != "hello" || r.header.Get("Content-Type") != "text/plain" || !strings.Contains(r.header.Get("Content-Disposition"), "a.txt") {
				t.Errorf("resource = %q %v", r.raw, r.header)
			}
		}},
		{"resource missing", "POST", "/api/v1/synchronizer/resource", `{"params":{"file":"b"}}`, 404, message("no such file")},
		{"webhook install", "POST", "/api/v1/synchronizer/webhooks", `{"types":["task"],"account":{},"url":"https://svc/hook","webhook":null}`, 200, func(t *testing.T, r response) {
			if r.body["id"] != "wh1" || s.hook.URL != "https://svc/hook" || s.hook.Webhook != nil {
				t.Errorf("answer = %v, request = %+v", r.body, s.hook)
			}
		}},
		{"webhook reinstall", "POST", "/api/v1/synchronizer/webhooks", `{"webhook":{"id":"wh1","events":["a"],"data":{"k":1}}}`, 200, func(t *testing.T, r response) {
			if r.body["id"] != "wh1" || r.body["data"].(map[string]any)["k"] != 1.0 {
				t.Errorf("answer = %v", r.body)
			}
		}},
		{"webhook delete", "DELETE", "/api/v1/synchronizer/webhooks", `{"webhook":{"id":"wh1"}}`, 204, nil},
		{"webhook delete unknown", "DELETE", "/api/v1/synchronizer/webhooks", `{"webhook":{"id":"zz"}}`, 404, message("no webhook zz")},
		{"webhook delete without id", "DELETE", "/api/v1/synchronizer/webhooks", `{"webhook":{}}`, 400, message("webhook.id is required")},
		{"webhook verify", "POST", "/api/v1/synchronizer/webhooks/verify", `{"params":{"signature":"ok"},"payload":{"id":"1"}}`, 200, func(t *testing.T, r response) {
			if r.body["id"] != "wh1" {
				t.Errorf("answer = %v", r.body)
			}
		}},
		{"webhook verify refused", "POST", "/api/v1/synchronizer/webhooks/verify", `{"params":{},"payload":{}}`, 401, message("bad signature")},
		{"webhook transform", "POST", "/api/v1/synchronizer/webhooks/transform", `{"params":{},"payload":{"ID":"9"},"types":["task"]}`, 200, func(t *testing.T, r response) {
			items := r.body["data"].(map[string]any)["task"].([]any)
			if items[0].(map[string]any)["__syncAction"] != "SET" || items[1].(map[string]any)["__syncAction"] != "REMOVE" {
				t.Errorf("items = %v", items)
			}
		}},
		{"action", "POST", "/api/v1/automations/action/execute", `{"action":{"action":"notify","args":{"text":"hi","to":"bob"}},"account":{"token":"good"}}`, 200, func(t *testing.T, r response) {
			if string(bytes.TrimSpace(r.raw)) != "{}" || s.action.Args.String("text") != "hi" || s.action.Account.String("token") != "good" {
				t.Errorf("answer = %s, request = %+v", r.raw, s.action)
			}
		}},
		{"action failing", "POST", "/api/v1/automations/action/execute", `{"action":{"action":"notify","args":{"text":"hi"}}}`, 400, message("to is required")},
		{"action unknown", "POST", "/api/v1/automations/action/execute", `{"action":{"action":"launch"}}`, 400, message(`unknown action "launch"`)},
		{"action stale arg dropped", "POST", "/api/v1/automations/action/execute", `{"action":{"action":"notify","args":{"x":"1","to":"bob"}}}`, 200, func(t *testing.T, r response) {
			if _, ok := s.action.Args["x"]; ok || s.action.Args.String("to") != "bob" {
				t.Errorf("args = %v, want the undeclared x dropped", s.action.Args)
			}
		}},
		{"action arg of bad type", "POST", "/api/v1/automations/action/execute", `{"action":{"action":"notify","args":{"to":{"a":1}}}}`, 400, message("action.args.to: want a text value")},
		{"action missing", "POST", "/api/v1/automations/action/execute", `{"account":{}}`, 400, message("action is required")},
		{"oauth not declared", "POST", "/oauth2/v1/authorize", `{"callback_uri":"https://svc/cb","state":"s"}`, 404, message("does not serve")},
		{"unknown route", "GET", "/nope", "", 404, message("not found")},
		{"wrong method", "GET", "/validate", "", 405, message("method not allowed")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, h, tc.method, tc.path, tc.body)
			if r.status != tc.status {
				t.Fatalf("status = %d, want %d; body %s", r.status, tc.status, r.raw)
			}
			if r.status >= 400 {
				if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("error content type = %q", ct)
				}
				if _, ok := r.body["message"].(string); !ok {
					t.Errorf("error without message: %s", r.raw)
				}
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func TestUndeclaredFeaturesAnswer404(t *testing.T) {
	t.Parallel()
	app := &appkit.App{
		ID: "actions", Name: "Actions only", Version: "1", Logger: quietLogger(),
		Auth:    []appkit.Auth{appkit.NoAuth()},
		Actions: []appkit.Action{{ID: "a", Name: "A", Run: noRun}},
	}
	h := testapp.Handler(t, app)
	for _, p := range []string{"/api/v1/synchronizer/config", "/api/v1/synchronizer/schema", "/api/v1/synchronizer/data",
		"/api/v1/synchronizer/datalist", "/api/v1/synchronizer/filter/validate", "/api/v1/synchronizer/webhooks",
		"/api/v1/synchronizer/webhooks/verify", "/api/v1/synchronizer/webhooks/transform", "/api/v1/synchronizer/resource",
		"/oauth1/v1/authorize", "/oauth1/v1/access_token", "/oauth2/v1/authorize", "/oauth2/v1/access_token"} {
		if r := call(t, h, "POST", p, `{}`); r.status != http.StatusNotFound || r.body["message"] == nil {
			t.Errorf("POST %s = %d %s, want 404 {message}", p, r.status, r.raw)
		}
	}
	if r := call(t, h, "GET", "/logo", ""); r.status != http.StatusNoContent {
		t.Errorf("logo without one = %d, want 204", r.status)
	}
	if r := call(t, h, "POST", "/validate", `{"id":"none"}`); r.status != 200 || r.body["name"] != "Actions only" {
		t.Errorf("validate none = %d %s", r.status, r.raw)
	}
	r := call(t, h, "GET", "/", "")
	var d map[string]any
	_ = json.Unmarshal(r.raw, &d)
	if rf := d["responsibleFor"].(map[string]any); rf["dataSynchronization"] != false || rf["automations"] != true {
		t.Errorf("responsibleFor = %v", rf)
	}
	if auth := d["authentication"].([]any)[0].(map[string]any); auth["fields"] != nil {
		t.Errorf("none authentication has fields: %v", auth)
	}
}

func TestLogoURLRedirects(t *testing.T) {
	t.Parallel()
	app := &appkit.App{ID: "x", Name: "x", Version: "1", Logger: quietLogger(), Auth: []appkit.Auth{appkit.NoAuth()}, Logo: appkit.LogoURL("https://cdn.example.com/logo.svg"),
		Actions: []appkit.Action{{ID: "a", Name: "A", Run: noRun}}}
	r := call(t, testapp.Handler(t, app), "GET", "/logo", "")
	if r.status != http.StatusFound || r.header.Get("Location") != "https://cdn.example.com/logo.svg" {
		t.Fatalf("logo = %d %v", r.status, r.header)
	}
}

func TestBodySizeLimit(t *testing.T) {
	t.Parallel()
	var s seen
	app := newTestApp(&s, quietLogger())
	app.MaxBodyBytes = 1024
	h := testapp.Handler(t, app)
	big := `{"id":"token","fields":{"token":"` + strings.Repeat("a", 2048) + `"}}`
	r := call(t, h, "POST", "/validate", big)
	if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.body["message"].(string), "1024") {
		t.Fatalf("big body = %d %s", r.status, r.raw)
	}
}

func TestRequestLogLineMasksSecrets(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := zerolog.New(&buf)
	var s seen
	h := testapp.Handler(t, newTestApp(&s, &l))
	call(t, h, "POST", "/validate", `{"id":"token","fields":{"token":"s3cr3t-value"}}`)
	call(t, h, "POST", "/api/v1/synchronizer/data", `{"requestedType":"task"}`)
	call(t, h, "POST", "/api/v1/automations/action/execute", `{"action":{"action":"notify","args":{"to":"x"}}}`)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want one line per request, got %d:\n%s", len(lines), buf.String())
	}
	if strings.Contains(buf.String(), "s3cr3t-value") {
		t.Fatalf("secret in log:\n%s", buf.String())
	}
	var first, second, third map[string]any
	for i, dst := range []*map[string]any{&first, &second, &third} {
		if err := json.Unmarshal([]byte(lines[i]), dst); err != nil {
			t.Fatal(err)
		}
	}
	if first["status"] != 401.0 || first["path"] != "/validate" || first["method"] != "POST" || first["request_id"] == "" || first["duration"] == nil {
		t.Errorf("validate line = %v", first)
	}
	if !strings.Contains(first["error"].(string), "***") {
		t.Errorf("error not masked: %v", first["error"])
	}
	if second["type"] != "task" || second["status"] != 200.0 {
		t.Errorf("data line = %v", second)
	}
	if third["action"] != "notify" {
		t.Errorf("action line = %v", third)
	}
}

func TestRequestIDIsEchoed(t *testing.T) {
	t.Parallel()
	var s seen
	h := testapp.Handler(t, newTestApp(&s, quietLogger()))
	req, _ := http.NewRequest("GET", "/", nil)
	req.Header.Set("X-Request-Id", "abc-123")
	rec := newRecorder()
	h.ServeHTTP(rec, req)
	if got := rec.Header().Get("X-Request-Id"); got != "abc-123" {
		t.Fatalf("X-Request-Id = %q", got)
	}
}
