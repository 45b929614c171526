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

func TestHostDemo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"host", "--demo", "--addr", "127.0.0.1:0", "--store", "sqlite::memory:", "--rate-limit", "0"}, &out, &errb)
	}()
	tokenRe := regexp.MustCompile(`The host is at (http://\S+); your API token is (\S+)`)
	var m []string
	for deadline := time.Now().Add(30 * time.Second); m == nil; {
		select {
		case code := <-done:
			t.Fatalf("host exited with %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no token printed\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
		}
		m = tokenRe.FindStringSubmatch(out.String())
	}
	if !regexp.MustCompile(`task\s+full\s+1\s+\d+\s+\d+\s+0\s+0\s+0`).MatchString(out.String()) {
		t.Errorf("summary:\n%s", out.String())
	}
	// The query the demo prints answers the synchronized tasks.
	q := `[{"command":"platform.entity/query","args":{"query":{"q/from":"tracker/task","q/limit":2,"q/select":["tracker.task/name",{"tracker.task/project":["tracker.project/name"]}]}}}]`
	req, _ := http.NewRequest(http.MethodPost, m[1]+"/api/commands", strings.NewReader(q))
	req.Header.Set("Authorization", "Token "+m[2])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"success":true`) || !strings.Contains(string(body), `"tracker.project/name":"`) {
		t.Errorf("query: %d %s", resp.StatusCode, body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}
