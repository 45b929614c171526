package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/examples/sqlsync/sqlsync"
)

// The main logic serves the demo database on a listener of the test and passes the
// conformance suite there, on SQLite and (with APPKIT_TEST_POSTGRES) on
// PostgreSQL.
func TestMain_servesAndConforms(t *testing.T) {
	s := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		env := map[string]string{}
		return run(ctx, func(k string) string { return env[k] }, io.Discard, l)
	})
	if !strings.Contains(s.Descriptor, `"name":"SQL database"`) {
		t.Fatalf("GET / = %s", s.Descriptor)
	}
	accounts := map[string]map[string]any{"sqlite": {
		"account": map[string]any{sqlsync.ConnectionField: "sqlite:" + sqlsync.DemoFile},
		"query":   sqlsync.DemoQuery,
	}}
	if dsn := os.Getenv("APPKIT_TEST_POSTGRES"); dsn != "" {
		accounts["postgres"] = map[string]any{
			"account": map[string]any{sqlsync.ConnectionField: dsn},
			"query":   "SELECT i AS id, 'Row ' || i AS name, i * 1.5 AS amount, DATE '2026-01-01' + i AS day FROM generate_series(1, 1200) AS i ORDER BY i",
		}
	}
	for name, a := range accounts {
		t.Run(name, func(t *testing.T) {
			rep := conformance.Test(t, conformance.Config{URL: s.URL, Account: a["account"].(map[string]any), Filter: map[string]any{"query": a["query"]}})
			if rep.Warnings > 0 {
				t.Errorf("%d conformance warnings", rep.Warnings)
			}
		})
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestConfig_refused(t *testing.T) {
	for _, env := range []map[string]string{{"PORT": "http"}, {"PORT": "70000"}, {"PORT": "0", "SQLSYNC_SQLITE_DIR": "/nonexistent"}} {
		var log bytes.Buffer
		if err := run(context.Background(), func(k string) string { return env[k] }, &log, nil); err == nil {
			t.Errorf("%v: run started", env)
		}
	}
}
