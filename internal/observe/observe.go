// Package observe holds the host's metrics and traces: one Prometheus
// registry per host (not the global one, so that tests run in parallel),
// its instruments registered once, fed from the apps service's runs
// (apps.Observer), from a transport around the calls to apps, and from a
// middleware around the host's routes; and the tracer of the sync runs.
// cmd/appkit builds it from its flags and the standard environment and
// serves the registry on an address apart from the API's.
//
// Labels are bounded: app ids (an app's own space) and type ids, route
// families, endpoints of the app protocol, statuses; never item ids,
// tokens or URLs with their queries.
package observe

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/httprec"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// Config configures a Host's observation.
type Config struct {
	// Tracing, when set, traces the sync runs and the calls to apps (each
	// call carries its W3C traceparent); nil traces nothing.
	Tracing trace.TracerProvider
	// Store, when set, has its connection pool counted (go_sql_* with
	// db_name "appkit").
	Store *store.Store
}

// Host is a host's observation: the registry and its instruments, and
// the tracer of runs. A nil *Host observes nothing (every method is safe
// on nil).
type Host struct {
	// Registry holds every instrument, the Go runtime's and the process's
	// collectors included; serve it with promhttp.
	Registry *prometheus.Registry
	tracer   trace.Tracer

	runs         *prometheus.CounterVec
	runDuration  *prometheus.HistogramVec
	pages        *prometheus.CounterVec
	itemsIn      *prometheus.CounterVec
	items        *prometheus.CounterVec
	values       *prometheus.CounterVec
	pageDuration *prometheus.HistogramVec
	calls        *prometheus.CounterVec
	callDuration *prometheus.HistogramVec
	events       *prometheus.CounterVec
	requests     *prometheus.CounterVec
	reqDuration  *prometheus.HistogramVec
	refused      *prometheus.CounterVec
}

// Buckets of the durations: a run takes seconds to hours; a page, a call
// and a request milliseconds to a minute.
var (
	runBuckets  = []float64{0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 1800, 3600, 10800, 21600}
	fastBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}
)

// New registers the host's instruments in a registry of their own.
func New(cfg Config) *Host {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if cfg.Store != nil {
		r.MustRegister(collectors.NewDBStatsCollector(cfg.Store.DB(), "appkit"))
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		r.MustRegister(c)
		return c
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
		r.MustRegister(h)
		return h
	}
	h := &Host{Registry: r,
		runs:         counter("appkit_runs_total", "Sync runs ended, by app, trigger (schedule, manual, webhook) and status (succeeded, partial, failed, paused).", "app", "trigger", "status"),
		runDuration:  histogram("appkit_run_duration_seconds", "Time of a sync run from its start to its end (a resumed run from its first start), by app and trigger.", runBuckets, "app", "trigger"),
		pages:        counter("appkit_sync_pages_total", "Pages of data written, by app and type (as the runs' reports count them).", "app", "type"),
		itemsIn:      counter("appkit_sync_items_total", "Items the apps sent, by app and type (as the runs' reports count them).", "app", "type"),
		items:        counter("appkit_sync_items_written_total", "Items written, by app, type and outcome (created, updated, unchanged, removed, skipped).", "app", "type", "outcome"),
		values:       counter("appkit_sync_values_total", "Values not in their stated form, by app, type and outcome (coerced, dropped).", "app", "type", "outcome"),
		pageDuration: histogram("appkit_sync_page_duration_seconds", "Time per page written (since the type's previous page), by app and type.", fastBuckets, "app", "type"),
		calls:        counter("appkit_app_calls_total", "Calls of the host to apps, by protocol endpoint and HTTP status (0: no answer).", "endpoint", "status"),
		callDuration: histogram("appkit_app_call_duration_seconds", "Time of a call to an app until its answer's headers, by protocol endpoint.", fastBuckets, "endpoint"),
		events:       counter("appkit_webhook_events_total", "Webhook events by stage: received, verified (recorded for their sync), applied.", "stage"),
		requests:     counter("appkit_http_requests_total", "Requests to the host's API and console, by route family and HTTP status.", "route", "status"),
		reqDuration:  histogram("appkit_http_request_duration_seconds", "Time to answer a request, by route family.", fastBuckets, "route"),
		refused:      counter("appkit_http_refused_total", "Requests refused with 429, by limit: sign_in (the sign-in throttle), events (the throttle of refused webhook events), rate_limit (the rate limits per token and workspace, and the throttle of invalid API tokens).", "limit"),
	}
	if cfg.Tracing != nil {
		h.tracer = cfg.Tracing.Tracer("github.com/appkitgo/appkit/internal/observe")
	}
	return h
}

// Tracer is the tracer of sync runs (syncer.Options.Tracer); nil when
// the host does not trace.
func (h *Host) Tracer() trace.Tracer {
	if h == nil {
		return nil
	}
	return h.tracer
}

// RunEnded implements apps.Observer: the run by app, trigger and status,
// its duration, and per type what the run's report counts.
func (h *Host) RunEnded(e apps.RunEnd) {
	if h == nil {
		return
	}
	h.runs.WithLabelValues(e.App, e.Trigger, e.Status).Inc()
	h.runDuration.WithLabelValues(e.App, e.Trigger).Observe(e.Duration.Seconds())
	if e.Events > 0 {
		h.events.WithLabelValues("applied").Add(float64(e.Events))
	}
	for _, t := range e.Types {
		h.Report(e.App, t)
	}
}

// Report counts what one type's report says: pages, items sent, items
// written by outcome, values by outcome (a negative count, as a restarted
// type's difference can be, counts nothing).
func (h *Host) Report(app string, t *syncer.TypeReport) {
	if h == nil {
		return
	}
	add := func(c prometheus.Counter, n int) {
		if n > 0 {
			c.Add(float64(n))
		}
	}
	add(h.pages.WithLabelValues(app, t.Type), t.Pages)
	add(h.itemsIn.WithLabelValues(app, t.Type), t.Items)
	for _, o := range []struct {
		name string
		n    int
	}{{"created", t.Created}, {"updated", t.Updated}, {"unchanged", t.Unchanged}, {"removed", t.Removed}, {"skipped", t.Skipped}} {
		add(h.items.WithLabelValues(app, t.Type, o.name), o.n)
	}
	for _, v := range t.Values {
		add(h.values.WithLabelValues(app, t.Type, v.Outcome), v.Count)
	}
}

// PageWritten implements apps.Observer: the page's duration.
func (h *Host) PageWritten(app string, ev syncer.Event, took time.Duration) {
	if h == nil {
		return
	}
	h.pageDuration.WithLabelValues(app, ev.Type).Observe(took.Seconds())
}

// WatchScheduler counts the scheduler's state at each scrape (gauges
// appkit_scheduler_runs{status} and appkit_scheduler_due_syncs), read by
// state within a second.
func (h *Host) WatchScheduler(state func(context.Context) (apps.SchedulerState, error)) {
	if h == nil {
		return
	}
	h.Registry.MustRegister(&schedulerCollector{state: state})
}

var (
	runsDesc = prometheus.NewDesc("appkit_scheduler_runs", "Runs of every host of the store by status: queued, running, paused.", []string{"status"}, nil)
	dueDesc  = prometheus.NewDesc("appkit_scheduler_due_syncs", "Syncs due that no host holds yet.", nil, nil)
)

type schedulerCollector struct {
	state func(context.Context) (apps.SchedulerState, error)
}

func (c *schedulerCollector) Describe(ch chan<- *prometheus.Desc) { ch <- runsDesc; ch <- dueDesc }

func (c *schedulerCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, err := c.state(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(runsDesc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(runsDesc, prometheus.GaugeValue, float64(st.Queued), "queued")
	ch <- prometheus.MustNewConstMetric(runsDesc, prometheus.GaugeValue, float64(st.Running), "running")
	ch <- prometheus.MustNewConstMetric(runsDesc, prometheus.GaugeValue, float64(st.Paused), "paused")
	ch <- prometheus.MustNewConstMetric(dueDesc, prometheus.GaugeValue, float64(st.Due))
}

// appEndpoints are the protocol paths the calls to apps are counted by
// (the descriptor's "/" apart); another path counts as "other".
var appEndpoints = []string{
	protocol.PathValidate, protocol.PathLogo, protocol.PathConfig, protocol.PathSchema, protocol.PathData,
	protocol.PathDatalist, protocol.PathFilterValidate, protocol.PathResource, protocol.PathWebhooks,
	protocol.PathWebhookVerify, protocol.PathWebhookXform, protocol.PathActionExecute,
	protocol.PathOAuth1Auth, protocol.PathOAuth1Token, protocol.PathOAuth2Auth, protocol.PathOAuth2Token,
}

// endpointOf is the protocol endpoint of a call to an app (whose base
// address may have a path of its own).
func endpointOf(path string) string {
	for _, p := range appEndpoints {
		if strings.HasSuffix(path, p) {
			return p
		}
	}
	if path == "" || strings.HasSuffix(path, "/") {
		return protocol.PathDescriptor
	}
	return "other"
}

// Transport counts and traces the calls of base (nil:
// http.DefaultTransport) to apps; with tracing, each call is a span, a
// child of the request's context (a run's page), whose W3C traceparent the
// app receives.
func (h *Host) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	if h == nil {
		return base
	}
	return &transport{h: h, base: base}
}

// Client is c (nil: a zero client) with its transport wrapped by
// Transport; c itself is not changed.
func (h *Host) Client(c *http.Client) *http.Client {
	var cc http.Client
	if c != nil {
		cc = *c
	}
	cc.Transport = h.Transport(cc.Transport)
	return &cc
}

type transport struct {
	h    *Host
	base http.RoundTripper
}

// Propagator is the W3C trace context the host sends to apps.
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	endpoint := endpointOf(req.URL.Path)
	var span trace.Span
	if t.h.tracer != nil {
		var ctx context.Context
		ctx, span = t.h.tracer.Start(req.Context(), req.Method+" "+endpoint, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("http.request.method", req.Method), attribute.String("server.address", req.URL.Hostname()),
				attribute.String("url.path", endpoint)))
		req = req.Clone(ctx)
		Propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	}
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	t.h.calls.WithLabelValues(endpoint, strconv.Itoa(status)).Inc()
	t.h.callDuration.WithLabelValues(endpoint).Observe(time.Since(start).Seconds())
	if span != nil {
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		if err != nil || status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(status))
		}
		span.End()
	}
	return resp, err
}

// routeOf is the family of a host route: bounded whatever the path.
func routeOf(path string) string {
	switch {
	case path == "/healthz" || path == "/readyz":
		return path[1:]
	case path == "/api/login" || path == "/login":
		return "sign_in"
	case path == "/api/logout" || path == "/logout":
		return "sign_out"
	case strings.HasPrefix(path, "/api/tokens"):
		return "tokens"
	case path == "/api/commands":
		return "commands"
	case strings.HasPrefix(path, "/api/documents/"):
		return "documents"
	case strings.HasPrefix(path, "/api/graphql"):
		return "graphql"
	case strings.HasPrefix(path, "/api/apps/events/"):
		return "events"
	case strings.HasPrefix(path, "/api/apps/oauth/"):
		return "oauth"
	case path == "/api/apps" || strings.HasPrefix(path, "/api/apps/"):
		return "apps"
	case strings.HasPrefix(path, "/api/"):
		return "api_other"
	case strings.HasPrefix(path, "/static/"):
		return "console_static"
	default:
		return "console"
	}
}

// Middleware counts the requests of next by route family and status
// with their latency, the 429s by the limit that refused them, and the
// webhook events received and verified.
func (h *Host) Middleware(next http.Handler) http.Handler {
	if h == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := httprec.New(w)
		next.ServeHTTP(sw, r)
		status := sw.Status()
		route := routeOf(r.URL.Path)
		h.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
		h.reqDuration.WithLabelValues(route).Observe(time.Since(start).Seconds())
		if route == "events" && r.Method == http.MethodPost {
			h.events.WithLabelValues("received").Inc()
			if status >= 200 && status < 300 {
				h.events.WithLabelValues("verified").Inc()
			}
		}
		if status == http.StatusTooManyRequests {
			limit := "rate_limit"
			if route == "sign_in" || route == "events" {
				limit = route
			}
			h.refused.WithLabelValues(limit).Inc()
		}
	})
}
