// Command tracker serves the tracker example app (package
// [github.com/appkitgo/appkit/examples/tracker/tracker]): a task tracker's
// projects and tasks, generated deterministically.
//
// Environment:
//
//	PORT              port to listen on (default 8080)
//	HOST              interface to listen on (default: every one; 127.0.0.1: this machine only)
//	METRICS_ADDR      serve GET /metrics (Prometheus) on this address (default: none)
//	OTEL_*            traces by OTLP over HTTP (OTEL_EXPORTER_OTLP_ENDPOINT; default: none)
//	TRACKER_PROJECTS  number of projects (default 10, at most 100000)
//	TRACKER_TASKS     number of tasks (default 500, at most 100000000)
//
// The demo token is "demo". SIGINT or SIGTERM shuts the server down
// gracefully.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/telemetry"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

func main() {
	if err := run(context.Background(), os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "tracker:", err)
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
	fmt.Fprintf(log, "tracker: %d projects, %d tasks, listening on %s\n", cfg.Projects, cfg.Tasks, addr)
	if l == nil {
		var err error
		if l, err = net.Listen("tcp", addr); err != nil {
			return err
		}
	}
	return telemetry.ServeListener(ctx, l, tracker.New(cfg), getenv, log)
}

// config reads the listen address and the dataset size from the
// environment.
func config(getenv func(string) string) (string, tracker.Config, error) {
	var cfg tracker.Config
	addr, err := appkit.ListenAddr(getenv)
	if err != nil {
		return "", cfg, err
	}
	if cfg.Projects, err = count(getenv, "TRACKER_PROJECTS", tracker.DefaultProjects, tracker.MaxProjects); err != nil {
		return "", cfg, err
	}
	if cfg.Tasks, err = count(getenv, "TRACKER_TASKS", tracker.DefaultTasks, tracker.MaxTasks); err != nil {
		return "", cfg, err
	}
	return addr, cfg, nil
}

func count(getenv func(string) string, name string, def, max int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > max {
		return 0, fmt.Errorf("%s: want a whole number 1..%d, got %q", name, max, v)
	}
	return n, nil
}
