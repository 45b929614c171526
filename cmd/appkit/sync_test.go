package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

func trackerServer(t *testing.T, cfg tracker.Config) *httptest.Server {
	t.Helper()
	nop := zerolog.Nop()
	cfg.Logger = &nop
	h, err := tracker.New(cfg).Handler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestSyncCommand(t *testing.T) {
	srv := trackerServer(t, tracker.Config{Projects: 2, Tasks: 30})
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"sync", "--store", dsn, "--app", srv.URL, "--account", "token=demo", "--type", "project"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if !regexp.MustCompile(`project\s+full\s+1\s+2\s+2\s+0\s+0\s+0`).MatchString(out.String()) {
		t.Errorf("summary:\n%s", out.String())
	}
	// Not a terminal: JSON log lines.
	if !strings.Contains(errb.String(), `"type":"project"`) || !strings.Contains(errb.String(), `"done":true`) {
		t.Errorf("stderr:\n%s", errb.String())
	}
	// The second run needs only --store and --app; nothing changed.
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"sync", "--store", dsn, "--app", srv.URL}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !regexp.MustCompile(`project\s+full\s+1\s+2\s+0\s+2\s+0\s+0`).MatchString(out.String()) || strings.Contains(out.String(), "task") {
		t.Errorf("second summary:\n%s", out.String())
	}
}

func TestSyncCommandFailures(t *testing.T) {
	srv := trackerServer(t, tracker.Config{Projects: 1, Tasks: 1})
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--store", dsn}, 2, "--app is required"},
		{[]string{"--store", dsn, "--app", srv.URL, "--account", "token"}, 2, "want KEY=VALUE"},
		{[]string{"--store", dsn, "--app", srv.URL, "--account", "token=bad"}, 1, "account rejected: invalid token"},
		{[]string{"--store", dsn, "--app", srv.URL, "--account", "token=demo", "--type", "nope"}, 1, `the app has no type "nope"`},
		{[]string{"--store", dsn, "--app", srv.URL, "--account", "token=demo", "--filter", "status=Nope"}, 1, `filter rejected`},
		{[]string{"--store", dsn, "--app", "ftp://x"}, 1, "want http(s)://"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"sync"}, tc.args...), &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
}
