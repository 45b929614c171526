// Command github serves the GitHub example app (package
// [github.com/appkitgo/appkit/examples/github/githubapp]): the repositories,
// issues, pull requests, labels, milestones and users of a GitHub owner.
//
// Environment:
//
//	PORT                  port to listen on (default 8080)
//	HOST                  interface to listen on (default: every one; 127.0.0.1: this machine only)
//	METRICS_ADDR          serve GET /metrics (Prometheus) on this address (default: none)
//	OTEL_*                traces by OTLP over HTTP (OTEL_EXPORTER_OTLP_ENDPOINT; default: none)
//	GITHUB_API_URL        the API's base (default https://api.github.com;
//	                      GitHub Enterprise Server: https://HOST/api/v3)
//	GITHUB_CLIENT_ID      with GITHUB_CLIENT_SECRET, a GitHub OAuth app's
//	GITHUB_CLIENT_SECRET  credentials: OAuth 2 is offered next to the token
//
// SIGINT or SIGTERM shuts the server down gracefully.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/telemetry"
	"github.com/appkitgo/appkit/examples/github/githubapp"
)

func main() {
	if err := run(context.Background(), os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "github:", err)
		os.Exit(1)
	}
}

// run serves the app configured by getenv on l (nil: on $PORT) until ctx
// is cancelled or a signal arrives.
func run(ctx context.Context, getenv func(string) string, log io.Writer, l net.Listener) error {
	addr, cfg, err := config(getenv)
	if err != nil {
		return err
	}
	app, err := githubapp.New(cfg)
	if err != nil {
		return err
	}
	oauth := "off"
	if cfg.ClientID != "" {
		oauth = "on"
	}
	if l == nil {
		if l, err = net.Listen("tcp", addr); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "github: API %s, OAuth 2 %s, listening on %s\n", cfg.APIURL, oauth, l.Addr())
	return telemetry.ServeListener(ctx, l, app, getenv, log)
}

// config reads the listen address and the app's configuration from the
// environment; the client secret is never echoed.
func config(getenv func(string) string) (string, githubapp.Config, error) {
	addr, err := appkit.ListenAddr(getenv)
	if err != nil {
		return "", githubapp.Config{}, err
	}
	cfg := githubapp.Config{
		APIURL:       strings.TrimSpace(getenv("GITHUB_API_URL")),
		ClientID:     strings.TrimSpace(getenv("GITHUB_CLIENT_ID")),
		ClientSecret: getenv("GITHUB_CLIENT_SECRET"),
	}
	if cfg.APIURL == "" {
		cfg.APIURL = githubapp.DefaultAPIURL
	}
	if (cfg.ClientID == "") != (cfg.ClientSecret == "") {
		return "", githubapp.Config{}, fmt.Errorf("GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET: set both for OAuth 2, or neither")
	}
	return addr, cfg, nil
}
