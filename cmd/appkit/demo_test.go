package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
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
	if !regexp.MustCompile(`task\s+completed\s+full\s+1\s+12\s+12\s+0\s+0\s+0`).MatchString(out.String()) {
		t.Errorf("summary:\n%s", out.String())
	}
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
}
