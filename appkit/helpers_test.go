package appkit_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit"
)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// must returns v when ok, else the zero value.
func must[T any](v T, ok bool) T {
	if !ok {
		var zero T
		return zero
	}
	return v
}

// fetch makes a call over the network (a JSON body unless body is "") and
// returns the answer with its body read and closed.
func fetch(t *testing.T, method, url, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func newPost(path, body string) *http.Request {
	return httptest.NewRequest("POST", path, strings.NewReader(body))
}

// noRun is an action's Run that does nothing.
func noRun(context.Context, *appkit.ActionRequest) error { return nil }

// noItems is a data handler that declares items of type T and returns none:
// for types whose schema is under test, not their data.
func noItems[T any]() appkit.DataHandler {
	return appkit.All(func(context.Context, *appkit.DataRequest) ([]T, error) { return nil, nil })
}
