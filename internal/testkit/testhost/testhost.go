// Package testhost starts a host with the apps service for tests.
package testhost

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/testkit"
)

// Apps is a host with the apps service, served on loopback.
type Apps struct {
	// Srv serves Host.
	Srv *httptest.Server
	// Svc is the apps service, its base URL Srv's.
	Svc *apps.Service
	// Host is the host, with Svc.
	Host *host.Host
	// Logs holds what the service and the host log.
	Logs *testkit.Buffer
}

// StartApps starts the apps service of acfg and a host of hcfg with it,
// both logging to one buffer shown when the test fails (their Logger and
// hcfg's Apps are set here), serves the host on loopback and gives the
// service its URL; with schedule, the scheduler runs until the test ends.
func StartApps(t *testing.T, acfg apps.Config, hcfg host.Config, schedule bool) *Apps {
	t.Helper()
	ctx := context.Background()
	logs := &testkit.Buffer{}
	acfg.Logger = zerolog.New(logs)
	svc, err := apps.New(ctx, acfg)
	if err != nil {
		t.Fatal(err)
	}
	hcfg.Logger = zerolog.New(logs)
	hcfg.Apps = host.AppsConfig{Service: svc}
	h, err := host.New(ctx, hcfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	svc.SetBaseURL(srv.URL)
	logs.ShowOnFailure(t, "host log")
	if schedule {
		testkit.Background(t, svc.Scheduler.Schedule) // stopped before the log is shown
	}
	return &Apps{Srv: srv, Svc: svc, Host: h, Logs: logs}
}
