package host_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/appkit/telemetry"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
	"github.com/appkitgo/appkit/examples/supportdesk/fakedesk"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/observe"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/internal/testkit/testhost"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// newObservedEnv is a host with the apps service, observed by obs as
// appkit host wires it (the runs, the calls to apps, the routes).
func newObservedEnv(t *testing.T, dsn string, obs *observe.Host) *appsEnv {
	t.Helper()
	st := teststore.Open(t, dsn)
	acfg := apps.Config{Store: st, Key: testKey, Poll: 20 * time.Millisecond, LeaseTTL: 3 * time.Second, RequestTimeout: 5 * time.Second}.WithDefaults()
	acfg.HTTPClient = obs.Client(acfg.HTTPClient)
	acfg.Engine.Tracer = obs.Tracer()
	acfg.Observer = obs
	a := testhost.StartApps(t, acfg,
		host.Config{Store: st, PasswordCost: 4, AdminEmail: adminEmail, AdminPassword: adminPass, Token: appsToken, Notice: io.Discard, Now: stoppedClock(), Observe: obs},
		true)
	obs.WatchScheduler(a.Svc.Scheduler.State)
	return &appsEnv{env: &env{t: t, srv: a.Srv, client: a.Srv.Client(), host: a.Host, logs: a.Logs}, svc: a.Svc, st: st}
}

// get answers GET url's status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metricLine is a sample as the text format writes it.
func metricLine(name string, value int, labels ...string) string {
	var b strings.Builder
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i := 0; i < len(labels); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s=%q", labels[i], labels[i+1])
		}
		b.WriteByte('}')
	}
	fmt.Fprintf(&b, " %d\n", value)
	return b.String()
}

// After a sync of the tracker through the host, the host's /metrics
// (served apart from the API) counts the run and, per type, its pages,
// items and written items exactly as the run's report does; the app's own
// metrics count its data requests (one per page) and the items it
// answered. /healthz and /readyz answer on the main address, /metrics not.
func TestObserveSyncMetrics(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		obs := observe.New(observe.Config{})
		e := newObservedEnv(t, dsn, obs)
		ms, err := telemetry.ServeMetrics("127.0.0.1:0", obs.Registry)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ms.Close() })
		appMetrics := prometheus.NewRegistry()
		nop := zerolog.Nop()
		app := tracker.New(tracker.Config{Projects: 3, Tasks: 250, Logger: &nop})
		app.Observe = &appkit.Observe{Metrics: appMetrics}
		url := testapp.Serve(t, app)

		_, _, sy := e.newSync(url, map[string]any{"token": tracker.DemoToken}, map[string]any{"types": []string{"project", "task"}})
		runs := e.waitRuns(sy.ID, apps.TriggerSchedule, 1)
		run := runs[0]
		if run.Status != apps.StatusSucceeded || run.Report == nil || len(run.Report.Types) != 2 {
			t.Fatalf("run %+v: %s", run, run.Error)
		}

		code, text := get(t, "http://"+ms.Addr().String()+"/metrics")
		if code != http.StatusOK {
			t.Fatalf("GET /metrics: %d", code)
		}
		want := []string{metricLine("appkit_runs_total", 1, "app", "tracker", "status", "succeeded", "trigger", "schedule"),
			metricLine("appkit_run_duration_seconds_count", 1, "app", "tracker", "trigger", "schedule")}
		pages, items := 0, 0
		for _, tr := range run.Report.Types {
			if tr.Pages == 0 || tr.Items == 0 {
				t.Fatalf("type %s: nothing synchronized: %+v", tr.Type, tr)
			}
			pages += tr.Pages
			items += tr.Items
			want = append(want,
				metricLine("appkit_sync_pages_total", tr.Pages, "app", "tracker", "type", tr.Type),
				metricLine("appkit_sync_items_total", tr.Items, "app", "tracker", "type", tr.Type),
				metricLine("appkit_sync_items_written_total", tr.Created, "app", "tracker", "outcome", "created", "type", tr.Type),
				metricLine("appkit_sync_page_duration_seconds_count", tr.Pages, "app", "tracker", "type", tr.Type))
		}
		want = append(want, metricLine("appkit_app_calls_total", pages, "endpoint", protocol.PathData, "status", "200"),
			metricLine("appkit_http_requests_total", 3, "route", "apps", "status", "201"), // the app, its account and its sync
			"appkit_scheduler_runs{status=\"running\"}", "appkit_scheduler_due_syncs ", "go_goroutines ", "process_")
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("/metrics lacks %q", strings.TrimSpace(w))
			}
		}
		if t.Failed() {
			t.Logf("/metrics:\n%s", text)
		}
		// The app's own metrics: a data request per page, its items.
		appText := scrape(t, appMetrics)
		for _, w := range []string{
			metricLine("appkit_app_requests_total", pages, "endpoint", protocol.PathData, "status", "200"),
			metricLine("appkit_app_items_total", run.Report.Types[1].Items, "type", "task"),
			metricLine("appkit_app_items_total", run.Report.Types[0].Items, "type", "project"),
		} {
			if !strings.Contains(appText, w) {
				t.Errorf("the app's metrics lack %q\n%s", strings.TrimSpace(w), appText)
			}
		}
		if items == 0 {
			t.Error("no item reported")
		}

		// Health on the main address; metrics only on theirs.
		if code, body := get(t, e.srv.URL+"/healthz"); code != 200 || body != "ok\n" {
			t.Errorf("/healthz: %d %q", code, body)
		}
		if code, body := get(t, e.srv.URL+"/readyz"); code != 200 || body != "ready\n" {
			t.Errorf("/readyz: %d %q", code, body)
		}
		if _, body := get(t, e.srv.URL+"/metrics"); strings.Contains(body, "appkit_runs_total") {
			t.Error("the main address serves the metrics")
		}
		code, text = get(t, "http://"+ms.Addr().String()+"/metrics")
		if code != 200 || !strings.Contains(text, metricLine("appkit_http_requests_total", 1, "route", "healthz", "status", "200")) ||
			!strings.Contains(text, metricLine("appkit_http_requests_total", 1, "route", "readyz", "status", "200")) {
			t.Errorf("the health requests are not counted by route:\n%s", text)
		}
	})
}

// scrape is r in the text format, as /metrics serves it.
func scrape(t *testing.T, r *prometheus.Registry) string {
	t.Helper()
	ms, err := telemetry.ServeMetrics("127.0.0.1:0", r)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	_, text := get(t, "http://"+ms.Addr().String()+"/metrics")
	return text
}

// /healthz answers 200 whatever the store; /readyz 200 while the store
// answers a ping, 503 with a one-line reason once it is gone; neither needs
// a token nor says more.
func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		st := teststore.Open(t, dsn)
		h, err := host.New(context.Background(), host.Config{Store: st, PasswordCost: 4, AdminEmail: adminEmail, AdminPassword: adminPass, Notice: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		srv := serveApp(t, h)
		for _, path := range []string{"/healthz", "/readyz"} {
			if code, body := get(t, srv+path); code != 200 || strings.Count(body, "\n") != 1 {
				t.Errorf("%s: %d %q", path, code, body)
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if code, body := get(t, srv+"/healthz"); code != 200 || body != "ok\n" {
			t.Errorf("/healthz with the store gone: %d %q", code, body)
		}
		if code, body := get(t, srv+"/readyz"); code != http.StatusServiceUnavailable || body != "not ready: the store does not answer\n" {
			t.Errorf("/readyz with the store gone: %d %q", code, body)
		}
		resp, err := http.Head(srv + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("HEAD /readyz with the store gone: %d", resp.StatusCode)
		}
	})
}

// With tracing on, one trace holds the host's run span, its type and page
// spans, the host's call to the app, the app's request span and the
// upstream call's span, each the child of the one before: the host sends
// its traceparent to the app (the support desk), which continues it and
// sends its own to the help desk's API.
func TestObserveOneTrace(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	appRec := tracetest.NewSpanRecorder()
	appTP := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(appRec))
	obs := observe.New(observe.Config{Tracing: tp})
	e := newObservedEnv(t, "sqlite::memory:", obs)

	headers := make(chan http.Header, 100)
	fd := fakedesk.New(30, nil)
	deskURL := serveApp(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/tickets") {
			select {
			case headers <- r.Header.Clone():
			default:
			}
		}
		fd.ServeHTTP(w, r)
	}))
	nop := zerolog.Nop()
	app := desk.New(desk.Config{URL: deskURL + "/api", Logger: &nop})
	app.Observe = &appkit.Observe{Tracing: appTP}
	url := testapp.Serve(t, app)
	_, _, sy := e.newSync(url, map[string]any{"token": fakedesk.Token}, map[string]any{"types": []string{"ticket"}})
	run := e.waitRuns(sy.ID, apps.TriggerSchedule, 1)[0]
	if run.Status != apps.StatusSucceeded {
		t.Fatalf("run %+v: %s", run, run.Error)
	}
	// The host's spans end before the run is recorded as ended; the app's
	// request span once its answer is written.
	testkit.WaitUntil(t, "the app's span of a data request", func() bool {
		for _, s := range appRec.Ended() {
			if s.SpanKind() == trace.SpanKindServer && s.Name() == "POST "+protocol.PathData {
				return true
			}
		}
		return false
	})
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	var runSpan sdktrace.ReadOnlySpan
	for _, s := range append(rec.Ended(), appRec.Ended()...) {
		byID[s.SpanContext().SpanID()] = s
		if s.Name() == "sync.run" {
			runSpan = s
		}
	}
	if runSpan == nil {
		t.Fatal("no sync.run span")
	}
	// The upstream call of the first data page, climbed to the run.
	var upstreamSpan sdktrace.ReadOnlySpan
	for _, s := range appRec.Ended() {
		if s.SpanKind() == trace.SpanKindClient && strings.Contains(attr(s, "url.path"), "/tickets") {
			upstreamSpan = s
			break
		}
	}
	if upstreamSpan == nil {
		t.Fatal("no span of an upstream call to /tickets")
	}
	var chain []string
	for s := upstreamSpan; s != nil; s = byID[s.Parent().SpanID()] {
		if s.SpanContext().TraceID() != runSpan.SpanContext().TraceID() {
			t.Fatalf("span %s is in trace %s, the run in %s", s.Name(), s.SpanContext().TraceID(), runSpan.SpanContext().TraceID())
		}
		chain = append(chain, s.Name())
	}
	want := []string{"GET " + strings.TrimPrefix(deskURL, "http://"), "POST " + protocol.PathData, "POST " + protocol.PathData, "sync.page", "sync.type", "sync.run"}
	if strings.Join(chain, " < ") != strings.Join(want, " < ") {
		t.Errorf("the chain from the upstream call up is\n%s\nwant\n%s", strings.Join(chain, " < "), strings.Join(want, " < "))
	}
	if got := attr(runSpan, "appkit.app"); got == "" {
		t.Errorf("the run span names no app")
	}
	// The help desk received the traceparent of the upstream call's span.
	h := <-headers
	if tp := h.Get("traceparent"); !strings.Contains(tp, runSpan.SpanContext().TraceID().String()) {
		t.Errorf("the help desk got traceparent %q, not of the run's trace", tp)
	}
}

// attr is the string value of a span's attribute key.
func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.String()
		}
	}
	return ""
}
