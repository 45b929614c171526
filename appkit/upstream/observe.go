package upstream

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/appkitgo/appkit/appkit"
)

// callMetrics are the instruments of upstream calls in one registry.
type callMetrics struct {
	calls       *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	retries     *prometheus.CounterVec
	waits       *prometheus.CounterVec
	waitSeconds *prometheus.CounterVec
	limited     *prometheus.CounterVec
}

// newCallMetrics registers the instruments of upstream calls in r (see
// appkit.InstrumentsOf).
func newCallMetrics(r *prometheus.Registry) *callMetrics {
	host := []string{"host"}
	return &callMetrics{
		calls: appkit.RegisterOnce(r, prometheus.NewCounterVec(prometheus.CounterOpts{Name: "appkit_upstream_requests_total",
			Help: "Calls to upstream APIs (each attempt), by host and HTTP status (0: no answer)."}, []string{"host", "status"})),
		duration: appkit.RegisterOnce(r, prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "appkit_upstream_request_duration_seconds",
			Help: "Time of one attempt of an upstream call, by host.", Buckets: prometheus.DefBuckets}, host)),
		retries: appkit.RegisterOnce(r, prometheus.NewCounterVec(prometheus.CounterOpts{Name: "appkit_upstream_retries_total",
			Help: "Attempts of upstream calls after the first (5xx, timeouts, network errors), by host."}, host)),
		waits: appkit.RegisterOnce(r, prometheus.NewCounterVec(prometheus.CounterOpts{Name: "appkit_upstream_rate_limit_waits_total",
			Help: "Calls that waited for the client's per-account rate limit, by host."}, host)),
		waitSeconds: appkit.RegisterOnce(r, prometheus.NewCounterVec(prometheus.CounterOpts{Name: "appkit_upstream_rate_limit_wait_seconds_total",
			Help: "Time waited for the client's per-account rate limit, by host."}, host)),
		limited: appkit.RegisterOnce(r, prometheus.NewCounterVec(prometheus.CounterOpts{Name: "appkit_upstream_rate_limited_total",
			Help: "Answers of upstreams that said to slow down (429, or a rate-limit 403), by host."}, host)),
	}
}

// observe is the Observe of a call: the Client's, else the app's from the
// handler's context.
func (s *Session) observe(ctx context.Context) *appkit.Observe {
	if s.c.Observe != nil {
		return s.c.Observe
	}
	return appkit.ObserveFrom(ctx)
}

func (s *Session) metrics(ctx context.Context) *callMetrics {
	if o := s.observe(ctx); o != nil && o.Metrics != nil {
		return appkit.InstrumentsOf(o.Metrics, newCallMetrics)
	}
	return nil
}

// startSpan starts the span of one attempt, a child of the request's span
// (the handler's, continuing the host's trace), and puts its traceparent
// on req. Without a tracer (none in the Observe, no recording span in the
// context) the span records nothing and nothing is sent.
func (s *Session) startSpan(req *http.Request, u *url.URL, attempt int) (*http.Request, trace.Span) {
	ctx := req.Context()
	tp := trace.SpanFromContext(ctx).TracerProvider()
	if o := s.observe(ctx); o != nil && o.Tracing != nil {
		tp = o.Tracing
	}
	ctx, span := tp.Tracer("github.com/appkitgo/appkit/appkit/upstream").Start(ctx, req.Method+" "+u.Host,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("http.request.method", req.Method), attribute.String("server.address", u.Hostname()),
			attribute.String("url.path", s.mask(u.EscapedPath())), attribute.Int("http.request.resend_count", attempt)))
	if !span.SpanContext().IsValid() {
		return req, span
	}
	req = req.WithContext(ctx)
	appkit.Propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	return req, span
}

// ended logs an attempt, ends its span and counts it.
func (s *Session) ended(ctx context.Context, span trace.Span, method string, u *url.URL, status int, d time.Duration, attempt int, err error) {
	s.log(ctx, method, u, status, d, attempt, err)
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if err != nil || status >= 500 || status == 0 {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
	span.End()
	m := s.metrics(ctx)
	if m == nil {
		return
	}
	host := s.c.base.Host
	m.calls.WithLabelValues(host, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(host).Observe(d.Seconds())
	if attempt > 0 {
		m.retries.WithLabelValues(host).Inc()
	}
}

// rateWait counts a wait for the per-account rate limit.
func (s *Session) rateWait(ctx context.Context, d time.Duration) {
	if m := s.metrics(ctx); m != nil {
		m.waits.WithLabelValues(s.c.base.Host).Inc()
		m.waitSeconds.WithLabelValues(s.c.base.Host).Add(d.Seconds())
	}
}

// rateLimited counts an answer that said to slow down.
func (s *Session) rateLimited(ctx context.Context) {
	if m := s.metrics(ctx); m != nil {
		m.limited.WithLabelValues(s.c.base.Host).Inc()
	}
}
