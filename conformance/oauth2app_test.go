package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/oauth/oauthtest"
)

// The oauth2app example is a command without an exported constructor: it is
// built, run against an in-process provider and checked at its URL, as a
// developer checks an app with appkit conform.
func TestOAuth2Example(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the example's binary")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the example with")
	}
	bin := filepath.Join(t.TempDir(), "oauth2app")
	if out, err := exec.Command(gotool, "build", "-o", bin, "github.com/appkitgo/appkit/examples/oauth2app").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	provider := oauthtest.NewOAuth2Server(t, oauthtest.OAuth2Config{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = []string{
		"PORT=" + port, "OAUTH2_CLIENT_ID=" + provider.ClientID, "OAUTH2_CLIENT_SECRET=" + provider.ClientSecret,
		"OAUTH2_AUTH_URL=" + provider.AuthURL, "OAUTH2_TOKEN_URL=" + provider.TokenURL, "OAUTH2_API_URL=" + provider.URL + "/api",
	}
	var logs testkit.Buffer // the app's stdout and stderr copiers write it
	listening := make(chan struct{})
	cmd.Stdout = &logs
	cmd.Stderr = &lineWatcher{w: &logs, line: "listening on", seen: listening}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cancel()
		<-exited
		if t.Failed() {
			t.Logf("the app's output:\n%s", logs.String())
		}
	})
	base := "http://127.0.0.1:" + port
	// The app says it listens just before it does: wait for that line,
	// then for its first answer (retried only while the listener opens).
	select {
	case <-listening:
	case <-exited:
		t.Fatalf("the app ended before listening:\n%s", logs.String())
	case <-time.After(time.Minute):
		t.Fatalf("the app did not say it listens within a minute:\n%s", logs.String())
	}
	retry := time.NewTicker(10 * time.Millisecond)
	defer retry.Stop()
	giveUp := time.After(time.Minute)
	for {
		resp, err := http.Get(base + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-retry.C:
		case <-exited:
			t.Fatalf("the app ended: %v", err)
		case <-giveUp:
			t.Fatalf("the app did not answer within a minute of listening: %v", err)
		}
	}

	// Connect an account as the service does: authorize, the user's
	// consent at the provider, access_token.
	const callback = "https://service.example/oauth/callback"
	var auth struct {
		RedirectURI string `json:"redirect_uri"`
	}
	postJSON(t, base+"/oauth2/v1/authorize", map[string]any{"callback_uri": callback, "state": "s-1"}, &auth)
	back, err := provider.Approve(t.Context(), auth.RedirectURI)
	if err != nil {
		t.Fatalf("consent: %v", err)
	}
	var account map[string]any
	postJSON(t, base+"/oauth2/v1/access_token", map[string]any{"fields": map[string]any{"callback_uri": callback}, "code": back.Query().Get("code")}, &account)

	rep := conformance.Test(t, conformance.Config{URL: base, Auth: "oauth2", Account: account})
	if rep.Warnings > 0 {
		t.Errorf("warnings: %v", rep.FailedIDs())
	}
}

// postJSON posts body and decodes a 200 answer into out.
func postJSON(t *testing.T, url string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
}

// lineWatcher copies to w and closes seen once line has been written.
type lineWatcher struct {
	w       io.Writer
	line    string
	seen    chan struct{}
	written bytes.Buffer
	once    sync.Once
}

func (l *lineWatcher) Write(p []byte) (int, error) {
	l.written.Write(p)
	if bytes.Contains(l.written.Bytes(), []byte(l.line)) {
		l.once.Do(func() { close(l.seen) })
	}
	return l.w.Write(p)
}
