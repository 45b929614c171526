package appkit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/appkitgo/appkit/appkit"
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

func newPost(path, body string) *http.Request {
	return httptest.NewRequest("POST", path, strings.NewReader(body))
}

// noItems is a data handler that declares items of type T and returns none:
// for types whose schema is under test, not their data.
func noItems[T any]() appkit.DataHandler {
	return appkit.All(func(context.Context, *appkit.DataRequest) ([]T, error) { return nil, nil })
}
