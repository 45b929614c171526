package syncer

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// span starts a span of the run named name when Options.Tracer is set (nil
// otherwise: endSpan takes it).
func (e *engine) span(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if e.opts.Tracer == nil {
		return ctx, nil
	}
	return e.opts.Tracer.Start(ctx, name, trace.WithAttributes(attrs...))
}

// endSpan ends a span of span, noting err.
func endSpan(s trace.Span, err error, attrs ...attribute.KeyValue) {
	if s == nil {
		return
	}
	s.SetAttributes(attrs...)
	if err != nil {
		s.RecordError(err)
		s.SetStatus(codes.Error, err.Error())
	}
	s.End()
}

// runAttrs describe a run's span once it ended.
func runAttrs(rep *Report) []attribute.KeyValue {
	if rep == nil {
		return nil
	}
	return []attribute.KeyValue{attribute.String("appkit.app", rep.App), attribute.String("appkit.space", rep.Space),
		attribute.String("appkit.operation_id", rep.OperationID)}
}
