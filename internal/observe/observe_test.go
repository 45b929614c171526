package observe

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/syncer"
)

// Labels stay bounded: any path is one of a few route families, any call
// to an app one of the protocol's endpoints or "other".
func TestBoundedLabels(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/api/commands": "commands", "/api/documents/0f8fad5b-d9cb-469f-a165-70867728950e": "documents",
		"/api/apps/events/abc?token=secret": "events", "/api/apps/syncs/x/run": "apps", "/api/nope/../x": "api_other",
		"/login": "sign_in", "/api/login": "sign_in", "/healthz": "healthz", "/data/tracker/task?id=42": "console", "/static/app.css": "console_static",
	} {
		if got := routeOf(strings.Split(path, "?")[0]); got != want {
			t.Errorf("routeOf(%q) = %q, want %q", path, got, want)
		}
	}
	for path, want := range map[string]string{
		"/": protocol.PathDescriptor, "/prefix/": protocol.PathDescriptor, protocol.PathData: protocol.PathData,
		"/prefix" + protocol.PathSchema: protocol.PathSchema, "/items/42": "other",
	} {
		if got := endpointOf(path); got != want {
			t.Errorf("endpointOf(%q) = %q, want %q", path, got, want)
		}
	}
}

// The middleware counts requests by route and status, 429s by the limit,
// webhook events received and verified; a nil Host observes nothing.
func TestMiddleware(t *testing.T) {
	t.Parallel()
	h := New(Config{})
	status := map[string]int{"/api/login": 429, "/api/commands": 429, "/api/apps/events/s1": 202, "/api/apps/events/s2": 401}
	mw := h.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status[r.URL.Path]) }))
	for path := range status {
		mw.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, path, nil))
	}
	for _, c := range []struct {
		got  float64
		want float64
	}{
		{testutil.ToFloat64(h.refused.WithLabelValues("sign_in")), 1},
		{testutil.ToFloat64(h.refused.WithLabelValues("rate_limit")), 1},
		{testutil.ToFloat64(h.events.WithLabelValues("received")), 2},
		{testutil.ToFloat64(h.events.WithLabelValues("verified")), 1},
		{testutil.ToFloat64(h.requests.WithLabelValues("events", "401")), 1},
	} {
		if c.got != c.want {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
	var none *Host
	if none.Middleware(mw) == nil || none.Tracer() != nil || none.Transport(nil) != http.DefaultTransport {
		t.Error("a nil Host is not a no-op")
	}
	none.RunEnded(apps.RunEnd{})
}

// A run's end counts the run and each type's report; a negative
// difference (a restarted type) counts nothing.
func TestRunEnded(t *testing.T) {
	t.Parallel()
	h := New(Config{})
	h.RunEnded(apps.RunEnd{App: "tracker", Trigger: "schedule", Status: "partial", Types: []*syncer.TypeReport{
		{Type: "task", Pages: 3, Items: 250, Created: 200, Updated: 50, Values: []*syncer.ValueReport{{Field: "due", Outcome: "dropped", Count: 2}}},
		{Type: "project", Pages: -1, Items: -10},
	}})
	for _, c := range []struct {
		got, want float64
	}{
		{testutil.ToFloat64(h.runs.WithLabelValues("tracker", "schedule", "partial")), 1},
		{testutil.ToFloat64(h.pages.WithLabelValues("tracker", "task")), 3},
		{testutil.ToFloat64(h.itemsIn.WithLabelValues("tracker", "task")), 250},
		{testutil.ToFloat64(h.items.WithLabelValues("tracker", "task", "updated")), 50},
		{testutil.ToFloat64(h.values.WithLabelValues("tracker", "task", "dropped")), 2},
		{testutil.ToFloat64(h.pages.WithLabelValues("tracker", "project")), 0},
	} {
		if c.got != c.want {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
}
