// Package testapp serves apps built with the SDK (the examples, say) to
// the tests of the packages that talk to apps (apps, console, host,
// devloop). It is apart from testkit so that testkit's users (the store's
// tests among them) do not depend on the SDK.
package testapp

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/appkitgo/appkit/appkit"
)

// Serve serves app on loopback until the test ends and returns its URL.
func Serve(t testing.TB, app *appkit.App) string {
	t.Helper()
	srv := httptest.NewServer(Handler(t, app))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Handler is app's HTTP handler (for a test that wraps it).
func Handler(t testing.TB, app *appkit.App) http.Handler {
	t.Helper()
	h, err := app.Handler()
	if err != nil {
		t.Fatalf("the app's handler: %v", err)
	}
	return h
}
