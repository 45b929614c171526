package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// "appkit host" prints the web console's link, and the link serves the
// sign-in form.
func TestHostPrintsConsoleLink(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, errb := newLockedBuffer(), &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"host", "--addr", "127.0.0.1:0", "--store", "sqlite::memory:", "--admin-password", "console-link-test-pw"}, stdout, errb)
	}()
	defer func() {
		cancel()
		<-done
	}()
	link := regexp.MustCompile(`the web console is at (http://[0-9.]+:[0-9]+/) \(sign in as ([^)]+)\)`)
	deadline := time.NewTimer(time.Minute) // a bound for a loaded machine
	defer deadline.Stop()
	var m []string
	for m == nil {
		if m = link.FindStringSubmatch(stdout.String()); m != nil {
			break
		}
		select {
		case <-stdout.written:
		case code := <-done:
			done <- code
			t.Fatalf("host exited with %d:\n%s", code, errb.String())
		case <-deadline.C:
			t.Fatalf("no console link in:\n%s", stdout.String())
		}
	}
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
