package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// "appkit host" prints the web console's link, and the link serves the
// sign-in form.
func TestHostPrintsConsoleLink(t *testing.T) {
	t.Parallel()
	h := launchHost(context.Background(), "--addr", "127.0.0.1:0", "--store", "sqlite::memory:", "--admin-password", "console-link-test-pw")
	defer func() {
		h.cancel()
		<-h.done
	}()
	m := h.waitFor(t, regexp.MustCompile(`the web console is at (http://[0-9.]+:[0-9]+/) \(sign in as ([^)]+)\)`))
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `action="/login"`) || !strings.Contains(m[2], "@") {
		t.Errorf("GET %s: %d\n%s", m[1], resp.StatusCode, body)
	}
}
