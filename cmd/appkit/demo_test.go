package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/testkit"
)

var (
	demoTokenLine = regexp.MustCompile(`The host is at (http://\S+); your API token is (\S+)`)
	demoIDELine   = regexp.MustCompile(`(http://\S+/api/graphql/space/[^\s#]+)#token=(\S+)`)
)

// runDemo runs "appkit host --demo" on dsn until it prints how to query it,
// and returns its stdout so far and the function that stops it.
func runDemo(t *testing.T, dsn string) (stdout *testkit.Buffer, stop func() int) {
	t.Helper()
	h := launchHost(context.Background(), "--demo", "--addr", "127.0.0.1:0", "--store", dsn, "--rate-limit", "0", "--admin-password", "pw-for-the-demo")
	h.waitFor(t, demoIDELine)
	stop = func() int {
		h.cancel()
		select {
		case code := <-h.done:
			if code != 0 {
				t.Errorf("exit %d: %s", code, h.stderr.String())
			}
			return code
		case <-time.After(20 * time.Second):
			t.Fatal("host did not stop")
		}
		return -1
	}
	return h.stdout, stop
}

func TestHostDemo(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "demo.db")
	out, stop := runDemo(t, dsn)
	m := demoTokenLine.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no token line:\n%s", out.String())
	}
	base, token := m[1], m[2]
	if !strings.Contains(out.String(), "demo/task: 12 items (12 created, 0 updated, 0 unchanged, 0 removed)") || strings.Contains(out.String(), "warning") {
		t.Errorf("summary:\n%s", out.String())
	}
	// Registered through the apps service: the apps API and the console's
	// Apps page list it, with its sync and its run; the token is "demo".
	demoRegistered(t, base, token, 1)
	// The query the demo prints answers the synchronized tasks.
	q := `[{"command":"platform.entity/query","args":{"query":{"q/from":"demo/task","q/limit":2,"q/select":["demo.task/name",{"demo.task/project":["demo.project/name"]}]}}}]`
	if code, body := post(t, base+"/api/commands", token, q); code != 200 || !strings.Contains(body, `"success":true`) || !strings.Contains(body, `"demo.project/name":"`) {
		t.Errorf("query: %d %s", code, body)
	}
	// The GraphQL IDE's link: the page of the demo's space, with the token.
	ide := demoIDELine.FindStringSubmatch(out.String())
	if ide[2] != token || !strings.HasPrefix(ide[1], base+"/") {
		t.Errorf("IDE link %q, want the host %s and the token %s", ide[0], base, token)
	}
	resp, err := http.Get(ide[1])
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "graphiql") {
		t.Errorf("IDE page: %d %.200s", resp.StatusCode, page)
	}
	space := ide[1][strings.LastIndex(ide[1], "/")+1:]
	if code, body := post(t, base+"/api/graphql/space/"+space, token, `{"query":"{ me { email } }"}`); code != 200 || !strings.Contains(body, `"email"`) {
		t.Errorf("GraphQL with the demo's token: %d %s", code, body)
	}
	stop()

	// A restart on the same store prints and accepts the same token.
	out, stop = runDemo(t, dsn)
	defer stop()
	m2 := demoTokenLine.FindStringSubmatch(out.String())
	if m2 == nil || m2[2] != token {
		t.Fatalf("after a restart the token is %q, want %q:\n%s", m2, token, out.String())
	}
	if code, body := post(t, m2[1]+"/api/commands", token, q); code != 200 || !strings.Contains(body, `"success":true`) {
		t.Errorf("query after a restart: %d %s", code, body)
	}
	if !strings.Contains(out.String(), "registered already") || !strings.Contains(out.String(), "12 unchanged") {
		t.Errorf("second demo:\n%s", out.String())
	}
	demoRegistered(t, m2[1], token, 2)
}

// demoRegistered checks that the demo app, its sync and runs are
// what the apps API and the console show, and that the demo's token is
// named demo.
func demoRegistered(t *testing.T, base, token string, runs int) {
	t.Helper()
	body := get(t, base+"/api/apps", token, 200)
	var list []struct{ ID, Name, Space string }
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list) != 1 || list[0].Space != "demo" {
		t.Fatalf("GET /api/apps: %v %s", err, body)
	}
	body = get(t, base+"/api/apps/syncs?app="+list[0].ID, token, 200)
	var syncs []struct{ ID, Space string }
	if err := json.Unmarshal([]byte(body), &syncs); err != nil || len(syncs) != 1 || syncs[0].Space != "demo" {
		t.Fatalf("syncs: %v %s", err, body)
	}
	body = get(t, base+"/api/apps/syncs/"+syncs[0].ID+"/runs", token, 200)
	if n := strings.Count(body, `"status":"succeeded"`); n != runs {
		t.Errorf("%d succeeded runs, want %d: %s", n, runs, body)
	}
	var history []struct{ ID string }
	if err := json.Unmarshal([]byte(body), &history); err != nil || len(history) == 0 {
		t.Fatalf("runs: %v %s", err, body)
	}
	// The demo app reads its API through appkit/upstream: the run's
	// exchanges hold the calls it made, in the apps API and on the
	// console's run page.
	var run struct {
		Exchanges []struct {
			Path, Response string
			Upstream       []struct{ Method, URL string }
		}
	}
	body = get(t, base+"/api/apps/runs/"+history[0].ID, token, 200)
	if err := json.Unmarshal([]byte(body), &run); err != nil {
		t.Fatalf("run: %v %s", err, body)
	}
	var called []string
	for _, ex := range run.Exchanges {
		// The account's token is masked in what the host keeps; it is
		// not a word of the demo's own texts (its id, "demo").
		if ex.Path == "/" && !strings.Contains(ex.Response, `"id":"demo"`) {
			t.Errorf("the descriptor's exchange: %.300s", ex.Response)
		}
		for _, c := range ex.Upstream {
			_, at, _ := strings.Cut(strings.TrimPrefix(c.URL, "http://"), "/")
			called = append(called, ex.Path+" → "+c.Method+" /"+at)
		}
	}
	if want := []string{"/api/v1/synchronizer/data → GET /upstream/projects", "/api/v1/synchronizer/data → GET /upstream/tasks"}; !slices.Equal(called, want) {
		t.Errorf("the run's upstream calls: %q, want %q", called, want)
	}
	cookie := demoSignIn(t, base)
	if page := getCookie(t, base+"/runs/"+history[0].ID, cookie, 200); !strings.Contains(page, "/upstream/tasks") {
		t.Errorf("the console's run page does not show the upstream calls: %.3000s", page)
	}
	page := getCookie(t, base+"/apps", cookie, 200)
	if strings.Contains(page, "No app is registered yet") || !strings.Contains(page, "Demo") {
		t.Errorf("console's Apps page: %.2000s", page)
	}
	if tokens := getCookie(t, base+"/api/tokens", cookie, 200); !strings.Contains(tokens, `"name":"demo"`) {
		t.Errorf("tokens: %s", tokens)
	}
}

// demoSignIn signs in as the demo's admin and returns the session cookie.
func demoSignIn(t *testing.T, base string) *http.Cookie {
	t.Helper()
	resp, err := http.Post(base+"/api/login", "application/json", strings.NewReader(`{"email":"admin@localhost","password":"pw-for-the-demo"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "appkit_session" {
			return c
		}
	}
	t.Fatalf("sign-in: %d, no session cookie", resp.StatusCode)
	return nil
}

// get answers GET url with token, checking the status.
func get(t *testing.T, url, token string, want int) string {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	return checked(t, req, token, want)
}

// getCookie answers GET url with the session cookie c, checking the status.
func getCookie(t *testing.T, url string, c *http.Cookie, want int) string {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.AddCookie(c)
	return checked(t, req, "", want)
}

// checked is do checking the status.
func checked(t *testing.T, req *http.Request, token string, want int) string {
	t.Helper()
	code, b := do(t, req, token)
	if code != want {
		t.Errorf("%s %s: %d, want %d: %.500s", req.Method, req.URL, code, want, b)
	}
	return string(b)
}
