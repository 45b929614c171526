package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
)

// The main logic serves on a listener of the test and passes the conformance suite there.
func TestMain_servesAndConforms(t *testing.T) {
	s := appkittest.ServeMain(t, func(ctx context.Context, l net.Listener) error {
		return run(ctx, func(k string) string { return map[string]string{"DESK_TICKETS": "80"}[k] }, l)
	})
	if !strings.Contains(s.Descriptor, `"name":"Support desk"`) {
		t.Fatalf("GET / = %s", s.Descriptor)
	}
	rep, err := conformance.Run(context.Background(), conformance.Config{URL: s.URL, Account: map[string]any{"token": desk.Token}, Client: http.DefaultClient})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Warnings > 0 {
		var b strings.Builder
		_ = rep.WriteText(&b)
		t.Fatalf("conformance:\n%s", b.String())
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
}
