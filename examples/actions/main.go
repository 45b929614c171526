// Command actions serves the notify example app (package
// [github.com/appkitgo/appkit/examples/actions/notify]): external actions
// that post messages to chat webhooks and open issues.
//
// Environment:
//
//	PORT                   port to listen on (default 8080)
//	HOST                   interface to listen on (default: every one; 127.0.0.1: this machine only)
//	METRICS_ADDR           serve GET /metrics (Prometheus) on this address (default: none)
//	OTEL_*                 traces by OTLP over HTTP (OTEL_EXPORTER_OTLP_ENDPOINT; default: none)
//	NOTIFY_TOKEN           the accepted account token (default "demo": set it in production)
//	NOTIFY_USERNAME        with NOTIFY_PASSWORD, enables basic authentication
//	NOTIFY_PASSWORD
//	NOTIFY_TIMEOUT         timeout of one outgoing request (default 10s)
//	NOTIFY_ALLOW_HTTP      "true" allows http:// targets (for local testing)
//	NOTIFY_ALLOW_PRIVATE   "true" allows targets on private and local networks
//
// SIGINT or SIGTERM shuts the server down gracefully.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/telemetry"
	"github.com/appkitgo/appkit/examples/actions/notify"
)

func main() {
	if err := run(context.Background(), os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "notify:", err)
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
	if cfg.Token == "" {
		fmt.Fprintln(log, "notify: NOTIFY_TOKEN is not set: the demo token \"demo\" is accepted")
	}
	fmt.Fprintf(log, "notify: listening on %s\n", addr)
	if l == nil {
		var err error
		if l, err = net.Listen("tcp", addr); err != nil {
			return err
		}
	}
	return telemetry.ServeListener(ctx, l, notify.New(cfg), getenv, log)
}

// config reads the listen address and the app's configuration from the
// environment.
func config(getenv func(string) string) (string, notify.Config, error) {
	cfg := notify.Config{
		Token:    getenv("NOTIFY_TOKEN"),
		Username: getenv("NOTIFY_USERNAME"),
		Password: getenv("NOTIFY_PASSWORD"),
	}
	addr, err := appkit.ListenAddr(getenv)
	if err != nil {
		return "", cfg, err
	}
	if (cfg.Username == "") != (cfg.Password == "") {
		return "", cfg, fmt.Errorf("NOTIFY_USERNAME and NOTIFY_PASSWORD: set both or neither")
	}
	if v := getenv("NOTIFY_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > 5*time.Minute {
			return "", cfg, fmt.Errorf("NOTIFY_TIMEOUT: want a duration up to 5m such as 10s, got %q", v)
		}
		cfg.Timeout = d
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"NOTIFY_ALLOW_HTTP", &cfg.AllowHTTP}, {"NOTIFY_ALLOW_PRIVATE", &cfg.AllowPrivateNetworks}} {
		if v := getenv(b.name); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return "", cfg, fmt.Errorf("%s: want true or false, got %q", b.name, v)
			}
			*b.dst = on
		}
	}
	return addr, cfg, nil
}
