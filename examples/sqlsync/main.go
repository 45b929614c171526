// Command sqlsync serves the SQL database example app (package
// [github.com/appkitgo/appkit/examples/sqlsync/sqlsync]): the rows of a SQL
// query on PostgreSQL or SQLite, with the schema of its result.
//
// Environment:
//
//	PORT                port to listen on (default 8080)
//	HOST                interface to listen on (default: every one; 127.0.0.1: this machine only)
//	METRICS_ADDR        serve GET /metrics (Prometheus) on this address (default: none)
//	OTEL_*              traces by OTLP over HTTP (OTEL_EXPORTER_OTLP_ENDPOINT; default: none)
//	SQLSYNC_SQLITE_DIR  directory of the SQLite files that sqlite:FILE may
//	                    name; unset: a fresh temporary directory holding
//	                    only the demo database demo.db
//
// The demo account's connection string is "sqlite:demo.db"; try the query
// "SELECT id, name, email, vip, since, balance, updated_at FROM customers
// ORDER BY id". SIGINT or SIGTERM shuts the server down gracefully.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/telemetry"
	"github.com/appkitgo/appkit/examples/sqlsync/sqlsync"
)

func main() {
	if err := run(context.Background(), os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "sqlsync:", err)
		os.Exit(1)
	}
}

// run serves the app configured by getenv on l (nil: on $PORT) until ctx
// is cancelled or a signal arrives.
func run(ctx context.Context, getenv func(string) string, log io.Writer, l net.Listener) error {
	addr, err := appkit.ListenAddr(getenv)
	if err != nil {
		return err
	}
	dir := getenv("SQLSYNC_SQLITE_DIR")
	if dir == "" {
		tmp, err := os.MkdirTemp("", "sqlsync-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := sqlsync.SeedDemo(ctx, filepath.Join(tmp, sqlsync.DemoFile)); err != nil {
			return err
		}
		dir = tmp
		fmt.Fprintf(log, "sqlsync: demo database sqlite:%s (%d customers)\n", sqlsync.DemoFile, sqlsync.DemoCustomers)
	} else if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("SQLSYNC_SQLITE_DIR: %q is not a directory", dir)
	}
	dbs := &sqlsync.Databases{SQLiteDir: dir}
	defer dbs.Close()
	fmt.Fprintf(log, "sqlsync: listening on %s\n", addr)
	if l == nil {
		if l, err = net.Listen("tcp", addr); err != nil {
			return err
		}
	}
	return telemetry.ServeListener(ctx, l, sqlsync.New(dbs), getenv, log)
}
