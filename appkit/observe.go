package appkit

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/httprec"
)

// Observe is what an app tells its operator beyond its log: metrics and
// traces. Set [App.Observe] (appkit/telemetry builds one from a main's
// environment); nil, or a zero Observe, observes nothing. It is read when
// the handler is built; an [upstream] client of the app finds it in its
// handlers' context (see [ObserveFrom]).
//
// [upstream]: https://pkg.go.dev/github.com/appkitgo/appkit/appkit/upstream
type Observe struct {
	// Metrics, when set, receives the app's instruments, registered once
	// per registry (several apps may share one):
	//
	//	appkit_app_requests_total{endpoint, status}         requests by protocol endpoint and status
	//	appkit_app_request_duration_seconds{endpoint}       their latency (histogram)
	//	appkit_app_items_total{type}                        items answered by data pages, by type
	//	appkit_app_errors_total{endpoint, kind}             failures: tryLater, account, bad_request, internal
	//
	// Serve it on an address of its own ([Observe.MetricsHandler]), never
	// on the app's port: the host must not scrape what it calls.
	Metrics *prometheus.Registry
	// Tracing, when set, makes a span of each request the app serves,
	// continuing the caller's trace when the request carries a W3C
	// traceparent header (the host's run sends one with every call).
	Tracing trace.TracerProvider
}

// MetricsHandler serves o.Metrics in the Prometheus text format (404
// without a registry).
func (o *Observe) MetricsHandler() http.Handler {
	if o == nil || o.Metrics == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(o.Metrics, promhttp.HandlerOpts{})
}

type observeKey struct{}

// ObserveFrom returns the Observe of the app whose handler ctx belongs to
// (nil: none).
func ObserveFrom(ctx context.Context) *Observe {
	o, _ := ctx.Value(observeKey{}).(*Observe)
	return o
}

// WithObserve returns ctx carrying o, for code that calls an upstream
// client outside a handler (a test, a background job).
func WithObserve(ctx context.Context, o *Observe) context.Context {
	return context.WithValue(ctx, observeKey{}, o)
}

// Propagator is the propagation of traces between the host, apps and
// their upstreams: the W3C traceparent and tracestate headers.
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// RegisterOnce registers c in r, or returns the collector of the same
// description already registered there (by another App or Client sharing
// the registry).
func RegisterOnce[C prometheus.Collector](r prometheus.Registerer, c C) C {
	if err := r.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(err) // same name, another shape: a programming error
	}
	return c
}

// InstrumentsOf returns the instruments of kind T in r: those build makes
// (registering them with [RegisterOnce]) the first time, the same ones on
// every later call, so that the Apps and upstream Clients sharing a
// registry count into one set without building it anew for each call.
func InstrumentsOf[T any](r *prometheus.Registry, build func(*prometheus.Registry) *T) *T {
	key := instrumentsKey{r, reflect.TypeFor[T]()}
	if m, ok := instruments.Load(key); ok {
		return m.(*T)
	}
	actual, _ := instruments.LoadOrStore(key, build(r))
	return actual.(*T)
}

// instruments holds what InstrumentsOf built: instrumentsKey → *T.
var instruments sync.Map

// instrumentsKey names one kind of instruments in one registry.
type instrumentsKey struct {
	r    *prometheus.Registry
	kind reflect.Type
}

// appMetrics are the instruments of apps in one registry.
type appMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	items    *prometheus.CounterVec
	errors   *prometheus.CounterVec
}

// newAppMetrics registers the instruments of apps in r (see InstrumentsOf).
func newAppMetrics(r *prometheus.Registry) *appMetrics {
	return &appMetrics{
		requests: RegisterOnce(r, prometheus.NewCounterVec(prometheus.CounterOpts{Name: "appkit_app_requests_total",
			Help: "Requests the app served, by protocol endpoint and HTTP status."}, []string{"endpoint", "status"})),
		duration: RegisterOnce(r, prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "appkit_app_request_duration_seconds",
			Help: "Time to answer a request, by protocol endpoint.", Buckets: prometheus.DefBuckets}, []string{"endpoint"})),
		items: RegisterOnce(r, prometheus.NewCounterVec(prometheus.CounterOpts{Name: "appkit_app_items_total",
			Help: "Items answered by data pages, by type."}, []string{"type"})),
		errors: RegisterOnce(r, prometheus.NewCounterVec(prometheus.CounterOpts{Name: "appkit_app_errors_total",
			Help: "Failed requests by protocol endpoint and kind: tryLater, account, bad_request, internal."}, []string{"endpoint", "kind"})),
	}
}

// endpoints are the paths the app's metrics name; any other is "other", so
// that a scanner's paths never become labels.
var endpoints = map[string]bool{
	protocol.PathDescriptor: true, protocol.PathValidate: true, protocol.PathLogo: true,
	protocol.PathConfig: true, protocol.PathSchema: true, protocol.PathData: true, protocol.PathDatalist: true,
	protocol.PathFilterValidate: true, protocol.PathResource: true, protocol.PathWebhooks: true,
	protocol.PathWebhookVerify: true, protocol.PathWebhookXform: true, protocol.PathActionExecute: true,
	protocol.PathOAuth1Auth: true, protocol.PathOAuth1Token: true, protocol.PathOAuth2Auth: true, protocol.PathOAuth2Token: true,
	PathHealth: true,
}

func endpointOf(path string) string {
	if endpoints[path] {
		return path
	}
	return "other"
}

// errorKind names the kind of a failed answer by its status, as the
// error contract maps them: 503 is tryLater, 401 and 403 the account, other
// 4xx a bad request, other 5xx the app's own failure.
func errorKind(status int) string {
	switch {
	case status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests:
		return "tryLater"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "account"
	case status >= 500:
		return "internal"
	default:
		return "bad_request"
	}
}

// PathHealth is the health endpoint of an app built with appkit: GET (or
// HEAD) /healthz answers 200 "ok" while the process serves; the images'
// health check asks it.
const PathHealth = "/healthz"

// observed wraps the app's routes: /healthz, and with an Observe, the span
// and the metrics of every request.
func (s *server) observed(next http.Handler) http.Handler {
	o := s.app.Observe
	var m *appMetrics
	var tracer trace.Tracer
	if o != nil && o.Metrics != nil {
		m = InstrumentsOf(o.Metrics, newAppMetrics)
	}
	if o != nil && o.Tracing != nil {
		tracer = o.Tracing.Tracer("github.com/appkitgo/appkit/appkit")
	}
	s.metrics = m
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == PathHealth && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			health(w, r)
			return
		}
		if m == nil && tracer == nil {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		endpoint := endpointOf(r.URL.Path)
		ctx := WithObserve(r.Context(), o)
		var span trace.Span
		if tracer != nil {
			ctx = Propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
			ctx, span = tracer.Start(ctx, r.Method+" "+endpoint, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("http.route", endpoint)))
		}
		sw := httprec.New(w)
		next.ServeHTTP(sw, r.WithContext(ctx))
		status := sw.Status()
		if span != nil {
			span.SetAttributes(attribute.Int("http.response.status_code", status))
			if status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(status))
			}
			span.End()
		}
		if m != nil {
			code := strconv.Itoa(status)
			m.requests.WithLabelValues(endpoint, code).Inc()
			m.duration.WithLabelValues(endpoint).Observe(time.Since(start).Seconds())
			if status >= 400 {
				m.errors.WithLabelValues(endpoint, errorKind(status)).Inc()
			}
		}
	})
}

// countItems counts the items of a data page answered for a type.
func (s *server) countItems(typeID string, n int) {
	if s.metrics != nil && n > 0 {
		s.metrics.items.WithLabelValues(typeID).Add(float64(n))
	}
}

// health answers /healthz: the process serves.
func health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte("ok\n"))
	}
}
