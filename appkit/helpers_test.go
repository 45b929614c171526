package appkit_test

import (
	"context"
	"net/http/httptest"
)

type contextT = context.Context

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
