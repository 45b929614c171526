package graphql

import (
	"net/http/httptest"
	"testing"
)

// GraphiQL's page keeps the headers it needs: its inline script and styles,
// data: images and fonts, no framing, no cache, no referrer.
func TestServeIDEHeaders(t *testing.T) {
	rec := httptest.NewRecorder()
	ServeIDE(rec, httptest.NewRequest("GET", "/ide", nil), "main", "/api/graphql", "/ide/assets", "")
	for k, v := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Cache-Control":           "no-store",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
	} {
		if got := rec.Header().Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}
