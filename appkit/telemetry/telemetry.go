// Package telemetry sets up the metrics and traces of a command: an app
// built with appkit (its main) or the appkit CLI. It reads no environment
// itself: a main passes its getenv (os.Getenv, or a test's stand-in) to
// [FromEnv], which reads the standard OpenTelemetry variables, and gets a
// [Config] to start from.
//
// Traces go out by OTLP over HTTP, batched; they are off when no endpoint
// is set or OTEL_SDK_DISABLED is true, and [Tracing.Shutdown] flushes them
// before the command exits. Metrics are served in the Prometheus text
// format on an address of their own ([ServeMetrics]), never on the
// address the command serves its API on.
//
// An app's main does both in one call, [ForApp]:
//
//	obs, stop, err := telemetry.ForApp(ctx, getenv, "tracker", log)
//	if err != nil {
//		return err
//	}
//	defer stop()
//	app := tracker.New(cfg)
//	app.Observe = obs
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/appkitgo/appkit/appkit"
)

// The standard variables [FromEnv] reads.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvServiceName    = "OTEL_SERVICE_NAME"
	EnvDisabled       = "OTEL_SDK_DISABLED"
	// EnvMetricsAddr is the variable of an app's metrics address.
	EnvMetricsAddr = "METRICS_ADDR"
)

// Config says where traces go.
type Config struct {
	// ServiceName names the process in its traces (service.name).
	ServiceName string
	// Endpoint is the OTLP/HTTP base address (http://collector:4318):
	// traces go to Endpoint/v1/traces.
	Endpoint string
	// TracesEndpoint, when set, is the full address traces go to, in
	// place of Endpoint's.
	TracesEndpoint string
	// Disabled turns tracing off whatever the endpoints say.
	Disabled bool
}

// FromEnv reads the tracing variables with getenv: OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_SERVICE_NAME (default service)
// and OTEL_SDK_DISABLED (true turns everything off).
func FromEnv(getenv func(string) string, service string) (Config, error) {
	c := Config{
		ServiceName:    strings.TrimSpace(getenv(EnvServiceName)),
		Endpoint:       strings.TrimSpace(getenv(EnvEndpoint)),
		TracesEndpoint: strings.TrimSpace(getenv(EnvTracesEndpoint)),
	}
	switch d := strings.ToLower(strings.TrimSpace(getenv(EnvDisabled))); d {
	case "", "false":
	case "true":
		c.Disabled = true
	default:
		return c, fmt.Errorf("%s: want true or false, got %q", EnvDisabled, d)
	}
	if c.ServiceName == "" {
		c.ServiceName = service
	}
	for name, v := range map[string]string{EnvEndpoint: c.Endpoint, EnvTracesEndpoint: c.TracesEndpoint} {
		if v == "" {
			continue
		}
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("%s: want an http(s) URL (OTLP over HTTP), got %q", name, v)
		}
	}
	return c, nil
}

// Enabled reports whether the Config sends traces.
func (c Config) Enabled() bool { return !c.Disabled && (c.Endpoint != "" || c.TracesEndpoint != "") }

// tracesURL is where spans are posted.
func (c Config) tracesURL() string {
	if c.TracesEndpoint != "" {
		return c.TracesEndpoint
	}
	return strings.TrimRight(c.Endpoint, "/") + "/v1/traces"
}

// TracesHost is the scheme and host traces go to (for a log line: no
// path, query or credentials).
func (c Config) TracesHost() string {
	u, err := url.Parse(c.tracesURL())
	if err != nil {
		return "?"
	}
	return u.Scheme + "://" + u.Host
}

// Tracing is a tracer provider and its flush.
type Tracing struct {
	// Provider makes the spans; a no-op provider when tracing is off.
	Provider trace.TracerProvider
	shutdown func(context.Context) error
}

// StartTracing starts the exporter of c (a no-op Tracing when c is not
// Enabled). Nothing is dialled before the first batch of spans.
func StartTracing(ctx context.Context, c Config) (*Tracing, error) {
	if !c.Enabled() {
		return &Tracing{Provider: noop.NewTracerProvider()}, nil
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(c.tracesURL()))
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	return NewTracing(sdktrace.NewBatchSpanProcessor(exp), c.ServiceName), nil
}

// NewTracing is a Tracing whose spans go to sp (a test's
// tracetest.SpanRecorder, say), every span sampled; service names the
// process.
func NewTracing(sp sdktrace.SpanProcessor, service string) *Tracing {
	res := resource.NewSchemaless(attribute.String("service.name", service))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sp), sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())))
	return &Tracing{Provider: tp, shutdown: tp.Shutdown}
}

// Shutdown sends the spans not sent yet and stops the exporter (at most
// until ctx ends).
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// NewRegistry is a metrics registry with the Go runtime's and the
// process's collectors.
func NewRegistry() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// MetricsServer serves GET /metrics on an address of its own.
type MetricsServer struct {
	srv *http.Server
	ln  net.Listener
}

// ServeMetrics listens on addr (host:port; port 0 picks a free one) and
// serves g there at GET /metrics, and nothing else, until Close.
func ServeMetrics(addr string, g prometheus.Gatherer) (*MetricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	m := &MetricsServer{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

// Addr is the address served.
func (m *MetricsServer) Addr() net.Addr { return m.ln.Addr() }

// Close stops serving.
func (m *MetricsServer) Close() error {
	if err := m.srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ForApp sets up an app's [appkit.Observe] from its main's environment:
// metrics (the Go runtime's and the process's included) served on
// METRICS_ADDR when it is set, and traces as [FromEnv] says, service
// naming the app by default. It says on log what it serves. stop closes
// the metrics address and flushes the traces (within 5 s); call it before
// the main returns. Neither set, it returns a nil Observe.
func ForApp(ctx context.Context, getenv func(string) string, service string, log io.Writer) (obs *appkit.Observe, stop func(), err error) {
	cfg, err := FromEnv(getenv, service)
	if err != nil {
		return nil, nil, err
	}
	addr := strings.TrimSpace(getenv(EnvMetricsAddr))
	if addr == "" && !cfg.Enabled() {
		return nil, func() {}, nil
	}
	obs = &appkit.Observe{}
	var ms *MetricsServer
	if addr != "" {
		obs.Metrics = NewRegistry()
		if ms, err = ServeMetrics(addr, obs.Metrics); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", EnvMetricsAddr, err)
		}
		fmt.Fprintf(log, "%s: metrics at http://%s/metrics\n", service, ms.Addr())
	}
	tr, err := StartTracing(ctx, cfg)
	if err != nil {
		if ms != nil {
			ms.Close()
		}
		return nil, nil, err
	}
	if cfg.Enabled() {
		obs.Tracing = tr.Provider
		fmt.Fprintf(log, "%s: traces to %s as %q\n", service, cfg.TracesHost(), cfg.ServiceName)
	}
	return obs, func() {
		if ms != nil {
			ms.Close()
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = tr.Shutdown(sctx)
	}, nil
}

// ServeListener is [appkit.ServeListener] with the app observed as
// [ForApp] sets it up from getenv (the app's ID names it; an Observe the
// app already has is kept), the metrics address closed and the traces
// flushed when it returns. It is what the examples' mains and `appkit
// new`'s template call.
func ServeListener(ctx context.Context, l net.Listener, app *appkit.App, getenv func(string) string, log io.Writer) error {
	if log == nil {
		log = io.Discard
	}
	obs, stop, err := ForApp(ctx, getenv, app.ID, log)
	if err != nil {
		l.Close()
		return err
	}
	defer stop()
	if app.Observe == nil {
		app.Observe = obs
	}
	return appkit.ServeListener(ctx, l, app)
}
