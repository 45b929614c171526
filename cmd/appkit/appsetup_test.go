package main

import (
	"context"
	"io"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/internal/store"
)

// A dev session's apps service asks the apps for the bodies of their
// upstream calls (the developer's own host); appkit host's does not.
func TestAppsSetupUpstreamBodies(t *testing.T) {
	t.Setenv("APPKIT_SECRET_KEY", "")
	t.Setenv("APPKIT_SECRET_KEY_FILE", "")
	st, err := store.Open(context.Background(), "sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hostOpts, err := parseHostFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  appsSetup
		want bool
	}{
		{"dev", devApps, true},
		{"host", hostOpts.apps(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ok, err := appsConfig(st, "sqlite::memory:", "http://127.0.0.1:1", tc.set, zerolog.Nop(), io.Discard)
			if err != nil || !ok {
				t.Fatalf("appsConfig: %v, %v", ok, err)
			}
			if cfg.UpstreamBodies != tc.want {
				t.Errorf("UpstreamBodies = %v, want %v", cfg.UpstreamBodies, tc.want)
			}
		})
	}
}
