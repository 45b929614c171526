package main

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/appkittest"
)

// env is the getenv of the given KEY, VALUE pairs.
var env = appkittest.Env

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func(string) string
		addr string
		err  string
	}{
		{"defaults", env(), ":8080", ""},
		{"everything", env("PORT", "9001", "NOTIFY_TOKEN", "t", "NOTIFY_USERNAME", "u", "NOTIFY_PASSWORD", "p",
			"NOTIFY_TIMEOUT", "3s", "NOTIFY_ALLOW_HTTP", "true", "NOTIFY_ALLOW_PRIVATE", "1"), ":9001", ""},
		{"bad port", env("PORT", "-1"), "", "PORT"},
		{"username without password", env("NOTIFY_USERNAME", "u"), "", "NOTIFY_PASSWORD"},
		{"bad timeout", env("NOTIFY_TIMEOUT", "10"), "", "NOTIFY_TIMEOUT"},
		{"timeout too long", env("NOTIFY_TIMEOUT", "1h"), "", "NOTIFY_TIMEOUT"},
		{"bad bool", env("NOTIFY_ALLOW_HTTP", "yes please"), "", "NOTIFY_ALLOW_HTTP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, cfg, err := config(tc.env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil || addr != tc.addr {
				t.Fatalf("got %q %v", addr, err)
			}
			if tc.name == "everything" && (cfg.Token != "t" || cfg.Username != "u" || cfg.Password != "p" ||
				cfg.Timeout != 3*time.Second || !cfg.AllowHTTP || !cfg.AllowPrivateNetworks) {
				t.Errorf("config %+v", cfg)
			}
		})
	}
}

// TestRun serves on $PORT, answers the descriptor, and stops when the
// context is cancelled.
func TestRun(t *testing.T) {
	m := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		return run(ctx, env("NOTIFY_TOKEN", "x"), io.Discard, l)
	})
	if !strings.Contains(m.Descriptor, `"action":"post-message"`) {
		t.Errorf("GET / = %s", m.Descriptor)
	}
	if err := m.Stop(); err != nil {
		t.Errorf("run: %v", err)
	}
	if err := run(context.Background(), env("NOTIFY_TIMEOUT", "x"), io.Discard, nil); err == nil {
		t.Error("run with a bad NOTIFY_TIMEOUT: want an error")
	}
}
