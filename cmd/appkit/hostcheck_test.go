package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// hostAnswer posts an empty command batch to the host at base, addressed
// to host (the Host header), and returns the status and message.
func hostAnswer(t *testing.T, base, host, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/commands", strings.NewReader(`[]`))
	req.Header.Set("Content-Type", "application/json")
	req.Host = host
	code, body := do(t, req, token)
	var m struct{ Message string }
	json.Unmarshal(body, &m)
	return code, m.Message
}

// A host on a loopback address answers only requests that name it there
// (or by --public-url's host): a DNS-rebinding page's Host is refused
// with 421 before any route; on every interface the Host is not checked.
func TestHostChecksHostOnLoopback(t *testing.T) {
	t.Parallel()
	const token = "cli-test-token-0421"
	base, _, _ := startHost(t, "--addr", "127.0.0.1:0", "--store", "sqlite::memory:", "--token", token, "--rate-limit", "0",
		"--public-url", "https://appkit.example.com")
	u, _ := url.Parse(base)
	port := u.Port()
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "appkit.example.com", "appkit.example.com:443"} {
		if code, msg := hostAnswer(t, base, host, token); code != http.StatusOK {
			t.Errorf("Host %s: %d %s", host, code, msg)
		}
	}
	for _, host := range []string{"rebind.evil.example:" + port, "localhost:1", "localhost"} {
		if code, msg := hostAnswer(t, base, host, token); code != http.StatusMisdirectedRequest || !strings.Contains(msg, "localhost:"+port) {
			t.Errorf("Host %s: %d %q, want 421 naming the accepted addresses", host, code, msg)
		}
	}
	// Without a token too: the check comes before anything reads the request.
	if code, _ := hostAnswer(t, base, "rebind.evil.example:"+port, ""); code != http.StatusMisdirectedRequest {
		t.Errorf("a rebinding request without a token: %d, want 421", code)
	}

	h := launchHost(context.Background(), "--addr", ":0", "--store", "sqlite::memory:", "--token", token, "--rate-limit", "0")
	t.Cleanup(func() { h.cancel(); <-h.done })
	port = h.waitFor(t, regexp.MustCompile(`listening on http://\S+:(\d+) `))[1]
	local := "http://" + net.JoinHostPort("127.0.0.1", port)
	if code, msg := hostAnswer(t, local, "rebind.evil.example:"+port, token); code != http.StatusOK {
		t.Errorf("a host on every interface checked the Host header: %d %s", code, msg)
	}
}
