package apps

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/calllog"
	"github.com/appkitgo/appkit/internal/testkit"
)

// A run's history keeps each exchange's request id and the upstream calls
// the app reported for it, through the store (JSON) and back, as the apps
// API returns a run; with Config.UpstreamBodies, their bodies too.
//
// The bodies are asked whatever client the service is given: also one
// that wraps the defaults' client after WithDefaults, as appkit host does
// to measure the calls.
func TestUpstreamCallsInTheRunHistory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		bodies  bool
		wrapped bool
	}{
		{"calls", false, false},
		{"bodies", true, false},
		{"bodies through a wrapped client", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testkit.EachStore(t, func(t *testing.T, dsn string) {
				historyOfUpstreamCalls(t, dsn, func(c *Config) {
					c.UpstreamBodies = tc.bodies
					if tc.wrapped {
						*c = c.WithDefaults()
						c.HTTPClient = &http.Client{Transport: passOn{c.HTTPClient.Transport}}
					}
				}, tc.bodies)
			})
		})
	}
}

// passOn is a transport that passes every call on to its base.
type passOn struct{ base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (p passOn) RoundTrip(req *http.Request) (*http.Response, error) { return p.base.RoundTrip(req) }

// historyOfUpstreamCalls runs a sync of the e2e app with a service
// configured by tune and checks its history.
func historyOfUpstreamCalls(t *testing.T, dsn string, tune func(*Config), bodies bool) {
	base, log := e2eApp(t)
	svc, _ := testService(t, dsn, tune)
	_, sy := registerWithSync(t, svc, base)
	stop := schedule(t, svc)
	run := lastRun(t, svc, sy.ID, 0)
	stop()
	full, err := svc.SyncService.Run(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var data []Exchange
	for _, e := range full.Exchanges {
		if e.Path == protocol.PathData {
			data = append(data, e)
		}
	}
	if len(data) != 2 {
		t.Fatalf("bodies %v: %d data exchanges in %+v", bodies, len(data), full.Exchanges)
	}
	logged := log.loggedRequestIDs(t)
	// "things" makes 2 calls; "many" MaxCalls+7: with bodies, MaxCalls are
	// kept, else as many as calllog.MaxHeaderCalls holds, the rest counted.
	var things, many Exchange
	for _, e := range data {
		if !slices.Contains(logged, e.RequestID) {
			t.Errorf("bodies %v: request id %q not logged by the app", bodies, e.RequestID)
		}
		if len(e.Upstream) == 2 {
			things = e
		} else {
			many = e
		}
	}
	if len(things.Upstream) != 2 || (things.Upstream[1].Request != "") != bodies {
		t.Errorf("bodies %v: %+v", bodies, things.Upstream)
	}
	if len(many.Upstream)+many.UpstreamDropped != calllog.MaxCalls+7 || bodies && many.UpstreamDropped != 7 {
		t.Errorf("bodies %v: %d calls kept, %d dropped", bodies, len(many.Upstream), many.UpstreamDropped)
	}
	b, _ := json.Marshal(full)
	if strings.Contains(string(b), "account-token-42") || !strings.Contains(string(b), `"upstream":[{"method":"GET"`) ||
		!strings.Contains(string(b), `"requestId":"`) || !strings.Contains(string(b), `"upstreamDropped":`) {
		t.Errorf("bodies %v: the run's JSON: %s", bodies, b)
	}
}
