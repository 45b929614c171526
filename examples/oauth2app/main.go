// Command oauth2app is an example synchronization app behind OAuth 2: the
// user connects an account at a configurable provider (authorization-code
// grant, optional PKCE), and the app synchronizes the items of the API the
// provider protects. Tokens are refreshed through /validate.
//
// Environment:
//
//	PORT                  port to listen on (default 8080)
//	HOST                  interface to listen on (default: every one; 127.0.0.1: this machine only)
//	METRICS_ADDR          serve GET /metrics (Prometheus) on this address (default: none)
//	OTEL_*                traces by OTLP over HTTP (OTEL_EXPORTER_OTLP_ENDPOINT; default: none)
//	OAUTH2_CLIENT_ID      the app's client id at the provider (required)
//	OAUTH2_CLIENT_SECRET  its client secret (empty for a public client)
//	OAUTH2_AUTH_URL       the provider's authorization endpoint (required)
//	OAUTH2_TOKEN_URL      the provider's token endpoint (required)
//	OAUTH2_SCOPES         scopes, separated by spaces or commas
//	OAUTH2_PKCE           "true" to send a PKCE S256 challenge
//	OAUTH2_PKCE_KEY       key of the PKCE verifiers, at least 16 bytes, the same on
//	                      every replica; required for PKCE without a client secret
//	OAUTH2_API_URL        base URL of the API: GET /me and GET /items?page=N (required)
//
// SIGINT or SIGTERM shuts the server down gracefully.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/telemetry"
)

func main() {
	if err := run(context.Background(), os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "oauth2app:", err)
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
	app := newApp(cfg)
	if err := app.Check(); err != nil {
		return err
	}
	fmt.Fprintf(log, "oauth2app: provider %s, API %s, listening on %s\n", cfg.AuthURL, cfg.APIURL, addr)
	if l == nil {
		var err error
		if l, err = net.Listen("tcp", addr); err != nil {
			return err
		}
	}
	return telemetry.ServeListener(ctx, l, app, getenv, log)
}

// config reads the listen address and the provider from the environment.
// The secret is never echoed in errors.
func config(getenv func(string) string) (string, Config, error) {
	addr, err := appkit.ListenAddr(getenv)
	if err != nil {
		return "", Config{}, err
	}
	cfg := Config{
		ClientID:     strings.TrimSpace(getenv("OAUTH2_CLIENT_ID")),
		ClientSecret: getenv("OAUTH2_CLIENT_SECRET"),
		AuthURL:      strings.TrimSpace(getenv("OAUTH2_AUTH_URL")),
		TokenURL:     strings.TrimSpace(getenv("OAUTH2_TOKEN_URL")),
		APIURL:       strings.TrimSpace(getenv("OAUTH2_API_URL")),
		Scopes:       strings.FieldsFunc(getenv("OAUTH2_SCOPES"), func(r rune) bool { return r == ',' || r == ' ' }),
	}
	var missing []string
	for _, v := range []struct{ name, value string }{
		{"OAUTH2_CLIENT_ID", cfg.ClientID}, {"OAUTH2_AUTH_URL", cfg.AuthURL},
		{"OAUTH2_TOKEN_URL", cfg.TokenURL}, {"OAUTH2_API_URL", cfg.APIURL},
	} {
		if v.value == "" {
			missing = append(missing, v.name)
		}
	}
	if len(missing) > 0 {
		return "", Config{}, fmt.Errorf("missing environment: %s", strings.Join(missing, ", "))
	}
	if u, err := url.Parse(cfg.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", Config{}, fmt.Errorf("OAUTH2_API_URL: want an absolute http(s) URL, got %q", cfg.APIURL)
	}
	if s := getenv("OAUTH2_PKCE"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return "", Config{}, fmt.Errorf("OAUTH2_PKCE: want true or false, got %q", s)
		}
		cfg.PKCE = b
	}
	if k := getenv("OAUTH2_PKCE_KEY"); k != "" {
		if len(k) < 16 {
			return "", Config{}, fmt.Errorf("OAUTH2_PKCE_KEY: want at least 16 bytes, got %d", len(k))
		}
		cfg.PKCEKey = []byte(k)
	}
	return addr, cfg, nil
}
