package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/examples/supportdesk/fakedesk"
)

func TestMain(m *testing.M) {
	fakedesk.ServeIfChild()
	os.Exit(m.Run())
}

// The main logic serves on a listener of the test over the desk at
// $DESK_URL (served in its own process) and passes the conformance suite.
func TestMain_servesAndConforms(t *testing.T) {
	desk := fakedesk.Start(t)
	s := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		return run(ctx, func(k string) string { return map[string]string{"DESK_URL": desk}[k] }, l)
	})
	if !strings.Contains(s.Descriptor, `"name":"Support desk"`) {
		t.Fatalf("GET / = %s", s.Descriptor)
	}
	if rep := conformance.Test(t, conformance.Config{URL: s.URL, Account: map[string]any{"token": fakedesk.Token}, Client: http.DefaultClient}); rep.Warnings > 0 {
		t.Errorf("warnings: %v", rep.FailedIDs())
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
}

// A PORT that is not a port number stops the app before it listens.
func TestMain_badPort(t *testing.T) {
	if err := run(context.Background(), appkittest.Env("PORT", "http"), nil); err == nil || !strings.Contains(err.Error(), "PORT") {
		t.Fatalf("run = %v, want an error naming PORT", err)
	}
}
