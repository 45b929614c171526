package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/examples/github/githubapp"
	"github.com/appkitgo/appkit/examples/github/standin"
)

// env is the getenv of the given KEY, VALUE pairs.
var env = appkittest.Env

func TestConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		env       func(string) string
		addr, api string
		oauth     bool
		err       string
	}{
		{"defaults", env(), ":8080", githubapp.DefaultAPIURL, false, ""},
		{"enterprise", env("PORT", "9000", "GITHUB_API_URL", "https://ghe.example.com/api/v3"), ":9000", "https://ghe.example.com/api/v3", false, ""},
		{"oauth", env("GITHUB_CLIENT_ID", "id", "GITHUB_CLIENT_SECRET", "s3cret-value"), ":8080", githubapp.DefaultAPIURL, true, ""},
		{"bad port", env("PORT", "http"), "", "", false, "PORT"},
		{"id without secret", env("GITHUB_CLIENT_ID", "id"), "", "", false, "GITHUB_CLIENT_SECRET"},
		{"secret without id", env("GITHUB_CLIENT_SECRET", "s3cret-value"), "", "", false, "GITHUB_CLIENT_ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, cfg, err := config(tc.env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "s3cret") {
					t.Errorf("err = %v, want one naming %s (and not the secret)", err, tc.err)
				}
				return
			}
			if err != nil || addr != tc.addr || cfg.APIURL != tc.api || (cfg.ClientID != "") != tc.oauth {
				t.Errorf("got %q %+v %v", addr, cfg, err)
			}
		})
	}
	if err := run(context.Background(), env("GITHUB_API_URL", "ftp://x"), io.Discard, nil); err == nil {
		t.Error("run with an ftp API URL: want an error")
	}
}

// The command serves on $PORT against $GITHUB_API_URL and passes the
// conformance suite with a token of the stand-in and an owner; with
// GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET it offers OAuth 2 too.
func TestRunConforms(t *testing.T) {
	t.Parallel()
	gh := standin.New(t, standin.Generate(2, 5), nil)
	m := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		return run(ctx, env("GITHUB_API_URL", gh.URL), io.Discard, l)
	})
	if !strings.Contains(m.Descriptor, `"id":"token"`) || strings.Contains(m.Descriptor, `"oauth2"`) {
		t.Errorf("GET / = %s", m.Descriptor)
	}
	if rep := conformance.Test(t, conformance.Config{
		URL: m.URL, Account: map[string]any{"token": standin.Token}, Filter: map[string]any{"owner": "octo-org"}, Client: http.DefaultClient,
	}); rep.Warnings > 0 {
		t.Errorf("warnings: %v", rep.FailedIDs())
	}
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}

	o := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		return run(ctx, env("GITHUB_API_URL", gh.URL, "GITHUB_CLIENT_ID", "Iv1.standin", "GITHUB_CLIENT_SECRET", "standin-secret"), io.Discard, l)
	})
	if !strings.Contains(o.Descriptor, `"id":"oauth2"`) || !strings.Contains(o.Descriptor, `"id":"token"`) {
		t.Errorf("GET / with OAuth 2 = %s", o.Descriptor)
	}
	if rep := conformance.Test(t, conformance.Config{
		URL: o.URL, Auth: "token", Account: map[string]any{"token": standin.Token}, Filter: map[string]any{"owner": "octocat"}, Client: http.DefaultClient,
	}); rep.Warnings > 0 {
		t.Errorf("warnings with OAuth 2 offered: %v", rep.FailedIDs())
	}
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
}
