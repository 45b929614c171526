package main

import (
	"context"
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

// The unchanged main serves on $PORT over the desk at $DESK_URL (served in
// its own process) and passes the conformance suite there.
func TestMain_servesAndConforms(t *testing.T) {
	s := appkittest.Main(t, main, "DESK_URL", fakedesk.Start(t))
	if !strings.Contains(s.Descriptor, `"name":"Support desk"`) {
		t.Fatalf("GET / = %s", s.Descriptor)
	}
	rep, err := conformance.Run(context.Background(), conformance.Config{URL: s.URL, Account: map[string]any{"token": fakedesk.Token}, Client: http.DefaultClient})
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
