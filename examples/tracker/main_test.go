package main

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
)

// env is the getenv of the given KEY, VALUE pairs.
var env = appkittest.Env

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      func(string) string
		addr     string
		projects int
		tasks    int
		err      string
	}{
		{"defaults", env(), ":8080", 10, 500, ""},
		{"port", env("PORT", "9000"), ":9000", 10, 500, ""},
		{"sizes", env("TRACKER_PROJECTS", "3", "TRACKER_TASKS", "1000000"), ":8080", 3, 1_000_000, ""},
		{"bad port", env("PORT", "http"), "", 0, 0, "PORT"},
		{"port out of range", env("PORT", "70000"), "", 0, 0, "PORT"},
		{"zero tasks", env("TRACKER_TASKS", "0"), "", 0, 0, "TRACKER_TASKS"},
		{"too many projects", env("TRACKER_PROJECTS", "100001"), "", 0, 0, "TRACKER_PROJECTS"},
		{"not a number", env("TRACKER_TASKS", "1e6"), "", 0, 0, "TRACKER_TASKS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, cfg, err := config(tc.env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil || addr != tc.addr || cfg.Projects != tc.projects || cfg.Tasks != tc.tasks {
				t.Errorf("got %q %+v %v", addr, cfg, err)
			}
		})
	}
}

// TestRun serves on $PORT and answers the descriptor, then stops when the
// context is cancelled.
func TestRun(t *testing.T) {
	m := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		return run(ctx, env("TRACKER_TASKS", "20"), io.Discard, l)
	})
	if !strings.Contains(m.Descriptor, `"name":"Tracker"`) {
		t.Errorf("GET / = %s", m.Descriptor)
	}
	if err := m.Stop(); err != nil {
		t.Errorf("run: %v", err)
	}
	if err := run(context.Background(), env("PORT", "x"), io.Discard, nil); err == nil {
		t.Error("run with a bad PORT: want an error")
	}
}
