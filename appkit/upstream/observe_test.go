package upstream_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/appkit/upstream"
)

// observedApp is an app whose one type reads its items from an upstream
// through appkit/upstream, observed by obs.
func observedApp(t *testing.T, obs *appkit.Observe) (app http.Handler, upstreamHeaders chan http.Header) {
	t.Helper()
	upstreamHeaders = make(chan http.Header, 10)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upstreamHeaders <- r.Header.Clone()
		io.WriteString(w, `[{"id":"1","name":"one"},{"id":"2","name":"two"},{"id":"3","name":"three"}]`)
	}))
	t.Cleanup(up.Close)
	api := &upstream.Client{BaseURL: up.URL}
	logger := zerolog.Nop()
	a := &appkit.App{ID: "obs", Name: "Observed", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &logger, Observe: obs,
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "thing", Name: "Things", Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "Name")},
			Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]appkit.Item, error) {
				return upstream.Get[[]appkit.Item](ctx, api.For(req.Account), "/things", nil)
			})}}}}
	h, err := a.Handler()
	if err != nil {
		t.Fatal(err)
	}
	return h, upstreamHeaders
}

// TestObserveTraceAndMetrics: a data request carrying a traceparent is
// served in a span of that trace, the upstream call in a child span whose
// traceparent the upstream receives; the app's metrics count the request,
// its items and an error by kind, and the upstream call by host and status.
func TestObserveTraceAndMetrics(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reg := prometheus.NewRegistry()
	h, headers := observedApp(t, &appkit.Observe{Metrics: reg, Tracing: tp})

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	req := httptest.NewRequest(http.MethodPost, protocol.PathData, strings.NewReader(`{"requestedType":"thing","types":["thing"],"account":{}}`))
	req.Header.Set("traceparent", "00-"+traceID+"-"+parentID+"-01")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Fatalf("data: %d %s", w.Code, w.Body)
	}
	got := <-headers
	tp.ForceFlush(context.Background())
	spans := rec.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want the request's and the upstream call's", len(spans))
	}
	var server, client sdktrace.ReadOnlySpan
	for _, s := range spans {
		switch s.SpanKind() {
		case trace.SpanKindServer:
			server = s
		case trace.SpanKindClient:
			client = s
		}
	}
	if server == nil || client == nil {
		t.Fatalf("spans %v: want a server and a client span", spans)
	}
	if server.SpanContext().TraceID().String() != traceID || server.Parent().SpanID().String() != parentID || !server.Parent().IsRemote() {
		t.Errorf("the request's span is %s under %s, want trace %s under %s", server.SpanContext().TraceID(), server.Parent().SpanID(), traceID, parentID)
	}
	if server.Name() != "POST "+protocol.PathData {
		t.Errorf("the request's span is named %q", server.Name())
	}
	if client.Parent().SpanID() != server.SpanContext().SpanID() || client.SpanContext().TraceID() != server.SpanContext().TraceID() {
		t.Errorf("the upstream call's span is not the request span's child")
	}
	if want := "00-" + traceID + "-" + client.SpanContext().SpanID().String() + "-01"; got.Get("traceparent") != want {
		t.Errorf("the upstream got traceparent %q, want %q", got.Get("traceparent"), want)
	}

	// An unknown type: a bad request. /healthz is served, not counted.
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, protocol.PathData, strings.NewReader(`{"requestedType":"nope","types":["nope"],"account":{}}`)))
	if w.Code != http.StatusBadRequest {
		t.Fatalf("unknown type: %d", w.Code)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, appkit.PathHealth, nil))
	if w.Code != http.StatusOK || w.Body.String() != "ok\n" {
		t.Fatalf("/healthz: %d %q", w.Code, w.Body)
	}

	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"appkit_app_requests_total", []string{protocol.PathData, "200"}, 1},
		{"appkit_app_requests_total", []string{protocol.PathData, "400"}, 1},
		{"appkit_app_items_total", []string{"thing"}, 3},
		{"appkit_app_errors_total", []string{protocol.PathData, "bad_request"}, 1},
	} {
		if got := counter(t, reg, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	host := gotHost(t, reg)
	if got := counter(t, reg, "appkit_upstream_requests_total", host, "200"); got != 1 {
		t.Errorf("appkit_upstream_requests_total{%s,200} = %v, want 1", host, got)
	}
	if n := testutil.CollectAndCount(reg, "appkit_app_request_duration_seconds"); n != 1 {
		t.Errorf("%d request duration series, want 1 (the data endpoint)", n)
	}
}

// TestObserveOff: without Observe nothing is traced (no traceparent goes
// upstream) and /healthz is served all the same.
func TestObserveOff(t *testing.T) {
	t.Parallel()
	h, headers := observedApp(t, nil)
	req := httptest.NewRequest(http.MethodPost, protocol.PathData, strings.NewReader(`{"requestedType":"thing","types":["thing"],"account":{}}`))
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Fatalf("data: %d %s", w.Code, w.Body)
	}
	if tp := (<-headers).Get("traceparent"); tp != "" {
		t.Errorf("the upstream got traceparent %q from an app that traces nothing", tp)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodHead, appkit.PathHealth, nil))
	if w.Code != http.StatusOK {
		t.Errorf("HEAD /healthz: %d", w.Code)
	}
}

// counter is the value of the counter name with labels in reg.
func counter(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for i, l := range m.GetLabel() {
				if l.GetValue() != labels[i] {
					continue metrics
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// gotHost is the host label of the upstream calls counted.
func gotHost(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "appkit_upstream_requests_total" {
			for _, l := range mf.GetMetric()[0].GetLabel() {
				if l.GetName() == "host" {
					return l.GetValue()
				}
			}
		}
	}
	t.Fatal("no upstream call counted")
	return ""
}
