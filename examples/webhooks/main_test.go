package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/conformance"
)

// The main logic serves on a listener of the test and passes the conformance suite
// there, webhook checks included.
func TestMain_servesAndConforms(t *testing.T) {
	s := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		env := map[string]string{"SHOP_ORDERS": "450", "WEBHOOKS_KEY": "a key for the conformance test"}
		return run(ctx, func(k string) string { return env[k] }, io.Discard, l)
	})
	if !strings.Contains(s.Descriptor, `"name":"Shop orders"`) {
		t.Fatalf("GET / = %s", s.Descriptor)
	}
	rep := conformance.Test(t, conformance.Config{URL: s.URL, Account: map[string]any{"token": Token}})
	if rep.Warnings > 0 {
		t.Errorf("%d conformance warnings", rep.Warnings)
	}
	for _, r := range rep.Results {
		if strings.HasPrefix(r.ID, "webhooks.") && r.Status != conformance.Passed {
			t.Errorf("%s: %s", r.ID, r.Status)
		}
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestConfig_refused(t *testing.T) {
	for _, env := range []map[string]string{
		{"PORT": "http"}, {"PORT": "0", "SHOP_ORDERS": "-1"}, {"PORT": "0", "SHOP_ACTIVITY": "1ms"},
		{"PORT": "0", "WEBHOOKS_KEY": "short"},
	} {
		var log bytes.Buffer
		if err := run(context.Background(), func(k string) string { return env[k] }, &log, nil); err == nil {
			t.Errorf("%v: run started", env)
		}
	}
}
