// Command supportdesk serves the support-desk example app on PORT (default 8080) of HOST (default:
// every interface; 127.0.0.1: this machine only) over the help desk's API at DESK_URL (default
// http://127.0.0.1:8081/api; cmd/fakedesk serves a stand-in). METRICS_ADDR serves GET /metrics
// (Prometheus) on an address of its own; the standard OTEL_* variables send traces (OTLP over HTTP).
package main

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"os"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/telemetry"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
)

func main() {
	if err := run(context.Background(), os.Getenv, nil); err != nil {
		fmt.Fprintln(os.Stderr, "supportdesk:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string, l net.Listener) error {
	addr, err := appkit.ListenAddr(getenv)
	if err != nil {
		return err
	}
	if l == nil {
		if l, err = net.Listen("tcp", addr); err != nil {
			return err
		}
	}
	return telemetry.ServeListener(ctx, l, desk.New(desk.Config{URL: cmp.Or(getenv("DESK_URL"), "http://127.0.0.1:8081/api")}), getenv, os.Stderr)
}
