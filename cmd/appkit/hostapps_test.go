package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

// getJSON reads an API answer with the token.
func getJSON(t *testing.T, url, token string, out any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	code, b := do(t, req, token)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", url, code, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("GET %s: %q: %v", url, b, err)
	}
}

type cliRun struct {
	Trigger string `json:"trigger"`
	Status  string `json:"status"`
	Error   string `json:"error"`
}

// "appkit host --app URL --account token=demo --every 1s" registers the
// app, sets up its account and sync, runs it at once and then on the
// schedule, and serves the apps API meanwhile; a restart with --app alone
// keeps the account and the sync.
func TestHostAppFlags(t *testing.T) {
	t.Setenv("APPKIT_SECRET_KEY", "")
	t.Setenv("APPKIT_SECRET_KEY_FILE", "")
	appURL := serveTracker(t, tracker.Config{Projects: 2, Tasks: 12})
	const token = "cli-apps-token-0042"
	dbPath := filepath.Join(t.TempDir(), "host.db")
	args := []string{"--addr", "127.0.0.1:0", "--store", "sqlite:" + dbPath, "--token", token, "--rate-limit", "0",
		"--admin-password", "pw-for-tests-1"}
	base, stop, stderr := startHost(t, append(args, "--app", appURL, "--account", "token="+tracker.DemoToken, "--every", "1s")...)

	var syncs []struct {
		ID      string `json:"id"`
		Every   string `json:"every"`
		Account string `json:"account"`
	}
	getJSON(t, base+"/api/apps/syncs", token, &syncs)
	if len(syncs) != 1 || syncs[0].Every != "1s" {
		t.Fatalf("syncs: %+v", syncs)
	}
	// The first run (queued at start) and one fired by the schedule.
	deadline := time.NewTimer(time.Minute) // a bound for a loaded machine
	defer deadline.Stop()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		var runs []cliRun
		getJSON(t, base+"/api/apps/syncs/"+syncs[0].ID+"/runs", token, &runs)
		ok := 0
		for _, r := range runs {
			if r.Status == "failed" {
				t.Fatalf("a run failed: %s", r.Error)
			}
			if r.Status == "succeeded" && r.Trigger == "schedule" {
				ok++
			}
		}
		if ok >= 1 && len(runs) >= 2 {
			break
		}
		select {
		case <-poll.C:
		case <-deadline.C:
			t.Fatalf("no scheduled run: %+v\n%s", runs, stderr.String())
		}
	}
	code, body := post(t, base+"/api/commands", token, `[{"command":"platform.entity/query","args":{"query":{"q/from":"tracker/task","q/select":["tracker.task/name"],"q/limit":100}}}]`)
	if code != 200 || strings.Count(body, `"tracker.task/name"`) != 12 {
		t.Fatalf("tasks: %d %s", code, body)
	}
	if c := stop(); c != 0 {
		t.Fatalf("exit %d:\n%s", c, stderr.String())
	}
	if strings.Contains(stderr.String(), `"demo"`) || strings.Contains(stderr.String(), "token="+tracker.DemoToken) {
		t.Errorf("the account reached the logs:\n%s", stderr.String())
	}
	// The key sealing the account was created beside the store.
	if fi, err := os.Stat(dbPath + ".key"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v", err)
	}

	// Restart: --app alone keeps the account and the sync (and its
	// schedule).
	base, stop, _ = startHost(t, append(args, "--app", appURL)...)
	var again []struct {
		ID      string `json:"id"`
		Every   string `json:"every"`
		Account string `json:"account"`
	}
	getJSON(t, base+"/api/apps/syncs", token, &again)
	var accounts []map[string]any
	getJSON(t, base+"/api/apps/accounts", token, &accounts)
	if len(again) != 1 || again[0].ID != syncs[0].ID || again[0].Account != syncs[0].Account || again[0].Every != "1s" || len(accounts) != 1 {
		t.Fatalf("after restart: syncs %+v, accounts %v", again, accounts)
	}
	stop()
	// Again with the account and a new schedule: the account is updated in
	// place, the schedule replaced.
	base, stop, _ = startHost(t, append(args, "--app", appURL, "--account", "token="+tracker.DemoToken, "--every", "2h")...)
	getJSON(t, base+"/api/apps/syncs", token, &again)
	getJSON(t, base+"/api/apps/accounts", token, &accounts)
	if len(again) != 1 || again[0].Account != syncs[0].Account || again[0].Every != "2h" || len(accounts) != 1 {
		t.Fatalf("after a restart with --account: syncs %+v, accounts %v", again, accounts)
	}
	stop()
}

func TestHostAppFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--every", "15m"}, "go with --app"},
		{[]string{"--account", "a=b"}, "go with --app"},
		{[]string{"--app", "http://127.0.0.1:1", "--every", "1ms"}, "--every"},
		{[]string{"--app", "http://127.0.0.1:1", "--account", "novalue"}, "KEY=VALUE"},
		{[]string{"--app-networks", "everything"}, "--app-networks: netguard: unknown network class"},
		{[]string{"--app-networks", ""}, "--app-networks"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"host", "--store", "sqlite::memory:"}, tc.args...), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tc.msg) {
			t.Errorf("%v: exit %d, %q", tc.args, code, errb.String())
		}
	}
}

// --app-networks public keeps the host from calling an app on loopback;
// the default lets it register.
func TestHostAppNetworks(t *testing.T) {
	t.Parallel()
	appURL := serveTracker(t, tracker.Config{Projects: 1, Tasks: 2})
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"host", "--addr", "127.0.0.1:0", "--store", "sqlite::memory:", "--app-networks", "public",
		"--app", appURL, "--account", "token=" + tracker.DemoToken}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "--app: the app did not answer: no app answered") {
		t.Fatalf("a loopback app under --app-networks public: exit %d\n%s", code, errb.String())
	}
	base, stop, stderr := startHost(t, "--addr", "127.0.0.1:0", "--store", "sqlite::memory:", "--token", "nets-token-0123456789",
		"--app", appURL, "--account", "token="+tracker.DemoToken)
	var list []map[string]any
	getJSON(t, base+"/api/apps", "nets-token-0123456789", &list)
	if len(list) != 1 {
		t.Errorf("apps under the default policy: %v\n%s", list, stderr.String())
	}
	stop()
}
