package htmlpage

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestSet(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ctype string
		p     Policy
		want  http.Header
	}{
		{"page", HTML, Policy{CSP: []string{"default-src 'none'", "script-src 'self'"}, Cache: "no-store", Referrer: "no-referrer"}, http.Header{
			"Content-Type":            {HTML},
			"X-Content-Type-Options":  {"nosniff"},
			"Cache-Control":           {"no-store"},
			"Referrer-Policy":         {"no-referrer"},
			"Content-Security-Policy": {"default-src 'none'; script-src 'self'"},
		}},
		{"download", "application/pdf", Policy{CSP: []string{"default-src 'none'", "sandbox"}}, http.Header{
			"Content-Type":            {"application/pdf"},
			"X-Content-Type-Options":  {"nosniff"},
			"Content-Security-Policy": {"default-src 'none'; sandbox"},
		}},
		{"content type kept", "", Policy{CSP: []string{"default-src 'none'"}, Cache: "no-store"}, http.Header{
			"Content-Type":            {"text/plain"},
			"X-Content-Type-Options":  {"nosniff"},
			"Cache-Control":           {"no-store"},
			"Content-Security-Policy": {"default-src 'none'"},
		}},
		{"no policy", HTML, Policy{}, http.Header{
			"Content-Type":           {HTML},
			"X-Content-Type-Options": {"nosniff"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			rec.Header().Set("Content-Type", "text/plain")
			Set(rec, tc.ctype, tc.p)
			got := rec.Header()
			if len(got) != len(tc.want) {
				t.Errorf("headers = %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if g := got.Get(k); g != v[0] {
					t.Errorf("%s = %q, want %q", k, g, v[0])
				}
			}
		})
	}
}
