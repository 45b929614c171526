package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/appkitgo/appkit/appkit/telemetry"
	"github.com/appkitgo/appkit/internal/observe"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// envMetricsAddr is the default of appkit host's --metrics-addr.
const envMetricsAddr = "APPKIT_METRICS_ADDR"

// tracingEnv lists the standard OpenTelemetry variables the commands that
// synchronize read.
var tracingEnv = []envVar{
	{telemetry.EnvEndpoint, "OTLP over HTTP: traces go to this base address's /v1/traces (tracing is off when no endpoint is set)"},
	{telemetry.EnvTracesEndpoint, "OTLP over HTTP: the full address of traces, in place of the base's"},
	{telemetry.EnvServiceName, "the service name of the traces (default appkit-host, appkit-sync)"},
	{telemetry.EnvDisabled, "true turns tracing off"},
}

// flushGrace bounds the flush of the spans at exit.
const flushGrace = 5 * time.Second

// startTracing starts the tracing the environment asks for (a no-op one
// when it asks for none); stop flushes it.
func startTracing(ctx context.Context, service string) (*telemetry.Tracing, func(), error) {
	cfg, err := telemetry.FromEnv(os.Getenv, service)
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	tr, err := telemetry.StartTracing(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if !cfg.Enabled() {
		return nil, func() {}, nil
	}
	return tr, func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushGrace)
		defer cancel()
		_ = tr.Shutdown(sctx)
	}, nil
}

// startHostObserve sets up the host's observation: traces as the
// environment says, metrics served on metricsAddr when it is set. Neither
// asked for, it returns nil (nothing observed). stop closes the metrics
// address and flushes the traces.
func startHostObserve(ctx context.Context, metricsAddr string, st *store.Store, stdout io.Writer) (*observe.Host, func(), error) {
	tr, stopTracing, err := startTracing(ctx, "appkit-host")
	if err != nil {
		return nil, nil, err
	}
	if tr == nil && metricsAddr == "" {
		return nil, stopTracing, nil
	}
	cfg := observe.Config{Store: st}
	if tr != nil {
		cfg.Tracing = tr.Provider
	}
	obs := observe.New(cfg)
	var ms *telemetry.MetricsServer
	if metricsAddr != "" {
		if ms, err = telemetry.ServeMetrics(metricsAddr, obs.Registry); err != nil {
			stopTracing()
			return nil, nil, fmt.Errorf("--metrics-addr: %w", err)
		}
		fmt.Fprintf(stdout, "appkit host: metrics at http://%s/metrics\n", ms.Addr())
	}
	return obs, func() {
		if ms != nil {
			ms.Close()
		}
		stopTracing()
	}, nil
}

// traceSync makes opts trace the run when the environment asks for it;
// stop flushes the spans.
func traceSync(ctx context.Context, opts *syncer.Options) (stop func(), err error) {
	tr, stop, err := startTracing(ctx, "appkit-sync")
	if err != nil || tr == nil {
		return stop, err
	}
	obs := observe.New(observe.Config{Tracing: tr.Provider})
	opts.Tracer = obs.Tracer()
	opts.HTTPClient = obs.Client(opts.HTTPClient)
	return stop, nil
}

// The host's help lists the tracing variables with its own.
func init() { hostEnv = append(hostEnv, tracingEnv...) }
