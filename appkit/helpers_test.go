package appkit_test

import (
	"context"
	"net/http/httptest"
)

type contextT = context.Context

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// must returns v when ok, else the zero value.
func must[T any](v T, ok bool) T {
	if !ok {
		var zero T
		return zero
	}
	return v
}
