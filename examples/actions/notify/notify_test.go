package notify

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/golden"
	"github.com/rs/zerolog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func newHandler(t testing.TB, cfg Config) http.Handler {
	t.Helper()
	nop := zerolog.Nop()
	cfg.Logger = &nop
	h, err := New(cfg).Handler()
	if err != nil {
		t.Fatalf("Handler: %v", err)
	}
	return h
}

// local is the configuration the tests use to reach httptest servers.
var local = Config{Username: "ops", Password: "s3cret-pass", AllowHTTP: true, AllowPrivateNetworks: true, Timeout: 2 * time.Second}

func call(t testing.TB, h http.Handler, method, path, body string) (int, string, http.Header) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	return rec.Code, rec.Body.String(), rec.Header()
}

func execute(t testing.TB, h http.Handler, action string, args map[string]any, account map[string]any) (int, string, http.Header) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"action": map[string]any{"action": action, "args": args}, "account": account})
	if err != nil {
		t.Fatal(err)
	}
	return call(t, h, http.MethodPost, "/api/v1/automations/action/execute", string(b))
}

// received is one request that the target server got.
type received struct {
	Method, Path, ContentType, Authorization, UserAgent string
	Body                                                map[string]any
}

// target is an httptest server that records requests and answers with
// status and body (and headers).
type target struct {
	*httptest.Server
	mu   sync.Mutex
	got  []received
	code int
	body string
	hdr  map[string]string
	wait time.Duration
}

func newTarget(t *testing.T, code int, body string) *target {
	tg := &target{code: code, body: body}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		tg.mu.Lock()
		tg.got = append(tg.got, received{r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"), r.Header.Get("Authorization"), r.Header.Get("User-Agent"), m})
		tg.mu.Unlock()
		if tg.wait > 0 {
			select {
			case <-time.After(tg.wait):
			case <-r.Context().Done():
			}
		}
		for k, v := range tg.hdr {
			w.Header().Set(k, v)
		}
		w.WriteHeader(tg.code)
		io.WriteString(w, tg.body)
	}))
	t.Cleanup(tg.Close)
	return tg
}

func (tg *target) requests() []received {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]received(nil), tg.got...)
}

// wantRequests returns the requests the target got, ending the test
// unless there are n.
func (tg *target) wantRequests(t *testing.T, n int) []received {
	t.Helper()
	got := tg.requests()
	if len(got) != n {
		t.Fatalf("target got %d requests, want %d", len(got), n)
	}
	return got
}

var tokenAccount = map[string]any{"token": "demo", "auth": "token"}

func TestDescriptorGolden(t *testing.T) {
	code, body, _ := call(t, newHandler(t, Config{Username: "u", Password: "p"}), http.MethodGet, "/", "")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(body), "", "  "); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "descriptor.golden.json", pretty.Bytes(), *update)
}

func TestDescriptorWithoutBasic(t *testing.T) {
	_, body, _ := call(t, newHandler(t, Config{}), http.MethodGet, "/", "")
	if strings.Contains(body, `"basic"`) || !strings.Contains(body, `"automations":true`) || !strings.Contains(body, `"dataSynchronization":false`) {
		t.Errorf("descriptor: %s", body)
	}
	code, body, _ := call(t, newHandler(t, Config{}), http.MethodPost, "/api/v1/synchronizer/config", `{}`)
	if code != 404 {
		t.Errorf("config of an action app: %d %s", code, body)
	}
	code, _, hdr := call(t, newHandler(t, Config{}), http.MethodGet, "/logo", "")
	if code != 200 || hdr.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("logo: %d %s", code, hdr.Get("Content-Type"))
	}
}

func TestValidate(t *testing.T) {
	h := newHandler(t, local)
	for _, tc := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"token", `{"id":"token","fields":{"token":"demo"}}`, 200, `{"name":"Notify"}`},
		{"token with destinations", `{"id":"token","fields":{"token":"demo","webhook_url":"https://hooks.example.com/T/B/x","issues_url":"http://127.0.0.1/issues"}}`, 200, `"name":"Notify"`},
		{"wrong token", `{"id":"token","fields":{"token":"demo!"}}`, 401, `invalid token`},
		{"no token", `{"id":"token","fields":{}}`, 401, `token is missing`},
		{"basic", `{"id":"basic","fields":{"username":"ops","password":"s3cret-pass"}}`, 200, `{"name":"ops"}`},
		{"basic wrong password", `{"id":"basic","fields":{"username":"ops","password":"nope"}}`, 401, `invalid username or password`},
		{"basic with a token only", `{"id":"basic","fields":{"token":"demo"}}`, 401, `username and password are required`},
		{"bad webhook_url", `{"id":"token","fields":{"token":"demo","webhook_url":"ftp://x"}}`, 401, `webhook_url: not an https URL`},
		{"webhook_url with user info", `{"id":"token","fields":{"token":"demo","webhook_url":"https://a:b@x.example"}}`, 401, `user name or password`},
		{"unknown authentication", `{"id":"oauth2","fields":{}}`, 401, `unknown authentication`},
		{"malformed", `{"id":`, 400, `malformed JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := call(t, h, http.MethodPost, "/validate", tc.body)
			if code != tc.code || !strings.Contains(body, tc.want) {
				t.Errorf("got %d %s, want %d containing %s", code, body, tc.code, tc.want)
			}
		})
	}
	code, body, _ := call(t, newHandler(t, Config{}), http.MethodPost, "/validate", `{"id":"basic","fields":{"username":"a","password":"b"}}`)
	if code != 401 {
		t.Errorf("basic without basic configured: %d %s", code, body)
	}
}

func TestPostMessage(t *testing.T) {
	tg := newTarget(t, 200, "ok")
	h := newHandler(t, local)
	code, body, _ := execute(t, h, "post-message", map[string]any{"text": "Build *green* ✅", "channel": " #ops "},
		map[string]any{"token": "demo", "auth": "token", "webhook_url": tg.URL + "/services/T0/B0/secret"})
	if code != 200 || body != "{}\n" {
		t.Fatalf("got %d %s", code, body)
	}
	// An argument overrides the account's webhook; basic accounts work too.
	code, body, _ = execute(t, h, "post-message", map[string]any{"text": "second", "webhook_url": tg.URL + "/other"},
		map[string]any{"username": "ops", "password": "s3cret-pass", "auth": "basic", "webhook_url": "https://unused.example"})
	if code != 200 {
		t.Fatalf("got %d %s", code, body)
	}
	got := tg.wantRequests(t, 2)
	first := got[0]
	if first.Method != "POST" || first.Path != "/services/T0/B0/secret" || first.ContentType != "application/json" || first.UserAgent != UserAgent || first.Authorization != "" {
		t.Errorf("first request: %+v", first)
	}
	if first.Body["text"] != "Build *green* ✅" || first.Body["channel"] != "#ops" || first.Body["username"] != "Notify" {
		t.Errorf("first body: %v", first.Body)
	}
	if got[1].Path != "/other" || got[1].Body["text"] != "second" {
		t.Errorf("second request: %+v", got[1])
	}
	if _, has := got[1].Body["channel"]; has {
		t.Errorf("empty channel sent: %v", got[1].Body)
	}
}

func TestCreateIssue(t *testing.T) {
	tg := newTarget(t, 201, `{"number":42}`)
	h := newHandler(t, local)
	code, body, _ := execute(t, h, "create-issue",
		map[string]any{"title": "  Disk almost full ", "body": "Server **db1** is at 95%.", "labels": "ops, urgent,,ops , disk"},
		map[string]any{"token": "demo", "issues_url": tg.URL + "/repos/acme/infra/issues", "issues_token": "ghp_abc123"})
	if code != 200 {
		t.Fatalf("got %d %s", code, body)
	}
	got := tg.wantRequests(t, 1)
	r := got[0]
	if r.Path != "/repos/acme/infra/issues" || r.Authorization != "Bearer ghp_abc123" || r.ContentType != "application/json" {
		t.Errorf("request: %+v", r)
	}
	labels, _ := json.Marshal(r.Body["labels"])
	if r.Body["title"] != "Disk almost full" || r.Body["body"] != "Server **db1** is at 95%." || string(labels) != `["ops","urgent","disk"]` {
		t.Errorf("body: %v", r.Body)
	}
}

func TestUpstreamErrors(t *testing.T) {
	secretPath := "/services/T0/B0/very-secret-path"
	for _, tc := range []struct {
		name       string
		code       int
		body       string
		hdr        map[string]string
		wantCode   int
		want       string
		tryLater   bool
		retryAfter string
	}{
		{"rate limited", 429, `{"error":"slow down"}`, map[string]string{"Retry-After": "7"}, 503, `answered 429 Too Many Requests, try later: {"error":"slow down"}`, true, "7"},
		{"unavailable", 503, "maintenance", nil, 503, `503 Service Unavailable`, true, ""},
		{"bad gateway", 502, "", nil, 503, `502 Bad Gateway`, true, ""},
		{"server error", 500, "boom\n\tstack", nil, 502, `failed (500 Internal Server Error): boom stack`, false, ""},
		{"not found", 404, "no_such_hook", nil, 400, `refused the request (404 Not Found): no_such_hook`, false, ""},
		{"unprocessable", 422, `{"message":"Validation Failed"}`, nil, 400, `422 Unprocessable Entity`, false, ""},
		{"forbidden", 403, "bad token", nil, 401, `refused the credentials (403 Forbidden)`, false, ""},
		{"redirect", 302, "", map[string]string{"Location": "https://elsewhere.example/"}, 502, `answered a redirect (302 Found)`, false, ""},
		{"long body", 400, strings.Repeat("x", 1000), nil, 400, strings.Repeat("x", 200) + "…", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := newTarget(t, tc.code, tc.body)
			tg.hdr = tc.hdr
			code, body, hdr := execute(t, newHandler(t, local), "post-message", map[string]any{"text": "hi", "webhook_url": tg.URL + secretPath}, tokenAccount)
			var out struct {
				Message  string `json:"message"`
				TryLater bool   `json:"tryLater"`
			}
			if err := json.Unmarshal([]byte(body), &out); err != nil {
				t.Fatalf("%d %s", code, body)
			}
			if code != tc.wantCode || !strings.Contains(out.Message, tc.want) || out.TryLater != tc.tryLater || hdr.Get("Retry-After") != tc.retryAfter {
				t.Errorf("got %d %s (Retry-After %q); want %d containing %q, tryLater %v, Retry-After %q",
					code, body, hdr.Get("Retry-After"), tc.wantCode, tc.want, tc.tryLater, tc.retryAfter)
			}
			if strings.Contains(body, "very-secret-path") {
				t.Errorf("the webhook's secret path leaks into the message: %s", body)
			}
			if !strings.HasPrefix(out.Message, "post-message: 127.0.0.1:") {
				t.Errorf("message does not name the action and host: %q", out.Message)
			}
		})
	}
}

func TestTimeoutAndUnreachable(t *testing.T) {
	tg := newTarget(t, 200, "")
	tg.wait = 5 * time.Second
	cfg := local
	cfg.Timeout = 100 * time.Millisecond
	// The target answers 200 only after 5 s: a 503 naming the 100 ms bound
	// shows the timeout cut the call short.
	code, body, _ := execute(t, newHandler(t, cfg), "post-message", map[string]any{"text": "hi", "webhook_url": tg.URL + "/secret"}, tokenAccount)
	if code != 503 || !strings.Contains(body, `did not answer within 100ms`) || !strings.Contains(body, `"tryLater":true`) {
		t.Errorf("slow target: %d %s", code, body)
	}

	closed := httptest.NewServer(http.NotFoundHandler())
	addr := closed.URL
	closed.Close()
	code, body, _ = execute(t, newHandler(t, local), "post-message", map[string]any{"text": "hi", "webhook_url": addr + "/secret"}, tokenAccount)
	if code != 503 || !strings.Contains(body, `cannot reach 127.0.0.1:`) || strings.Contains(body, "/secret") {
		t.Errorf("closed port: %d %s", code, body)
	}
}

func TestRefusedTargets(t *testing.T) {
	tg := newTarget(t, 200, "")
	for _, tc := range []struct {
		name string
		cfg  Config
		url  string
		want string
	}{
		{"http by default", Config{}, tg.URL + "/x", `webhook_url: the URL must use https`},
		{"loopback by default", Config{AllowHTTP: true}, tg.URL + "/x", `resolves to a private or local network address`},
		{"localhost name by default", Config{AllowHTTP: true}, strings.Replace(tg.URL, "127.0.0.1", "localhost", 1), `private or local network`},
		{"link-local metadata address", Config{}, "https://169.254.169.254/latest/meta-data", `private or local network`},
		{"not a URL", local, "::", `webhook_url: not`},
		{"relative", local, "/hooks/1", `webhook_url: not an https URL`},
		{"user info", local, "https://user:pw@hooks.example.com/x", `must not carry a user name`},
		{"too long", local, "https://hooks.example.com/" + strings.Repeat("a", MaxURL), `longer than 2048 bytes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := execute(t, newHandler(t, tc.cfg), "post-message", map[string]any{"text": "hi", "webhook_url": tc.url}, tokenAccount)
			if code != 400 || !strings.Contains(body, tc.want) {
				t.Errorf("got %d %s, want 400 containing %s", code, body, tc.want)
			}
		})
	}
	if n := len(tg.requests()); n != 0 {
		t.Errorf("a refused target got %d requests", n)
	}
}

func TestActionInput(t *testing.T) {
	tg := newTarget(t, 200, "")
	h := newHandler(t, local)
	hook := tg.URL + "/h"
	for _, tc := range []struct {
		name    string
		action  string
		args    map[string]any
		account map[string]any
		code    int
		want    string
	}{
		{"no text", "post-message", map[string]any{"webhook_url": hook}, tokenAccount, 400, `action.args.text: the argument \"Text\" is required`},
		{"empty text", "post-message", map[string]any{"webhook_url": hook, "text": "  "}, tokenAccount, 400, `post-message: text is required`},
		{"blank text", "post-message", map[string]any{"text": "  ", "webhook_url": hook}, tokenAccount, 400, `text is required`},
		{"text too long", "post-message", map[string]any{"text": strings.Repeat("a", MaxText+1), "webhook_url": hook}, tokenAccount, 400, `longer than 40000 bytes`},
		{"channel too long", "post-message", map[string]any{"text": "ok", "channel": strings.Repeat("c", MaxTitle+1), "webhook_url": hook}, tokenAccount, 400, `channel is longer than 256 bytes`},
		{"no target", "post-message", map[string]any{"text": "hi"}, tokenAccount, 400, `no target: give the webhook_url argument or set webhook_url in the account`},
		{"no title", "create-issue", map[string]any{"issues_url": hook}, tokenAccount, 400, `action.args.title: the argument \"Title\" is required`},
		{"empty title", "create-issue", map[string]any{"issues_url": hook, "title": ""}, tokenAccount, 400, `create-issue: title is required`},
		{"too many labels", "create-issue", map[string]any{"title": "t", "labels": strings.Repeat("a,b,c,d,e,", 5), "issues_url": hook}, tokenAccount, 200, ``},
		{"bad label", "create-issue", map[string]any{"title": "t", "labels": "ok,\x07bell", "issues_url": hook}, tokenAccount, 400, `control characters`},
		{"stale argument is dropped", "post-message", map[string]any{"text": "hi", "to": "x", "webhook_url": hook}, tokenAccount, 200, ``},
		{"unknown action", "send-fax", map[string]any{}, tokenAccount, 400, `unknown action \"send-fax\"`},
		{"bad token", "post-message", map[string]any{"text": "hi", "webhook_url": hook}, map[string]any{"token": "x"}, 401, `invalid token`},
		{"no account", "post-message", map[string]any{"text": "hi", "webhook_url": hook}, nil, 401, `token is missing`},
		{"bad basic", "post-message", map[string]any{"text": "hi", "webhook_url": hook}, map[string]any{"auth": "basic", "username": "ops", "password": "x"}, 401, `invalid username or password`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := execute(t, h, tc.action, tc.args, tc.account)
			if code != tc.code || !strings.Contains(body, tc.want) {
				t.Errorf("got %d %s, want %d containing %s", code, body, tc.code, tc.want)
			}
		})
	}
	// Only the "too many labels" call (which deduplicates to 5) and the call
	// with a stale argument (dropped by appkit) reached the target.
	if n := len(tg.requests()); n != 2 {
		t.Errorf("the target got %d requests, want 2", n)
	}
}

func TestParseLabels(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  bool
	}{
		{"", `[]`, false},
		{" , ,", `[]`, false},
		{"bug", `["bug"]`, false},
		{"bug, ui ,bug,UI", `["bug","ui","UI"]`, false},
		{strings.Repeat("x", MaxLabel+1), ``, true},
		{"a\nb", ``, true},
		{strings.TrimSuffix(strings.Repeat("l,", MaxLabels), ","), ``, false},
	} {
		got, err := ParseLabels(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseLabels(%q) error %v", tc.in, err)
			continue
		}
		if b, _ := json.Marshal(got); !tc.err && tc.want != "" && string(b) != tc.want {
			t.Errorf("ParseLabels(%q) = %s, want %s", tc.in, b, tc.want)
		}
	}
	many := make([]string, MaxLabels+1)
	for i := range many {
		many[i] = strings.Repeat("x", i+1)
	}
	if _, err := ParseLabels(strings.Join(many, ",")); err == nil {
		t.Errorf("%d labels accepted", len(many))
	}
}

func FuzzParseLabels(f *testing.F) {
	for _, s := range []string{"", "a,b", " a , a ", "\x00", strings.Repeat("ab,", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		labels, err := ParseLabels(s)
		if err != nil {
			return
		}
		if len(labels) > MaxLabels {
			t.Fatalf("%d labels", len(labels))
		}
		seen := map[string]bool{}
		for _, l := range labels {
			if l == "" || l != strings.TrimSpace(l) || len(l) > MaxLabel || strings.Contains(l, ",") || seen[l] {
				t.Fatalf("bad label %q in %q", l, labels)
			}
			seen[l] = true
		}
	})
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"7", 7 * time.Second}, {" 120 ", 2 * time.Minute}, {"0", 0}, {"-5", 0}, {"999999999999", time.Hour},
		{"Fri, 01 May 2026 12:00:30 GMT", 30 * time.Second}, {"Fri, 01 May 2026 11:00:00 GMT", 0},
		{"Sat, 02 May 2026 12:00:00 GMT", time.Hour}, {"soon", 0}, {"1.5", 0},
	} {
		if got := RetryAfter(tc.in, now); got != tc.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func FuzzCheckTarget(f *testing.F) {
	for _, s := range []string{"https://hooks.example.com/x", "http://a", "https://u:p@h/", "::", "https:///x", "https://[::1]:80/"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, raw string, allowHTTP bool) {
		u, err := checkTarget(raw, allowHTTP)
		if err != nil {
			return
		}
		if u.Hostname() == "" || u.User != nil || (u.Scheme != "https" && !(allowHTTP && u.Scheme == "http")) {
			t.Fatalf("checkTarget(%q) accepted %#v", raw, u)
		}
	})
}

func TestPublic(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		want bool
	}{
		{"93.184.216.34", true}, {"2606:4700::1111", true},
		{"127.0.0.1", false}, {"::1", false}, {"10.1.2.3", false}, {"172.16.0.1", false}, {"192.168.1.1", false},
		{"169.254.169.254", false}, {"fe80::1", false}, {"fc00::1", false}, {"0.0.0.0", false}, {"::", false},
		{"100.64.0.1", false}, {"224.0.0.1", false}, {"::ffff:127.0.0.1", false}, {"::ffff:10.0.0.1", false},
	} {
		if got := Public(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("Public(%s) = %v, want %v", tc.ip, got, tc.want)
		}
	}
}
