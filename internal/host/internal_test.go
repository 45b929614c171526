package host

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestRecoverPanics(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	h := &Host{log: zerolog.New(&logs)}
	handler := h.logRequests(h.recoverPanics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("boom with detail")
	})))
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest("POST", "/api/commands", nil))
	if rec.Code != 500 || strings.TrimSpace(rec.Body.String()) != `{"message":"internal error"}` {
		t.Fatalf("%d %q", rec.Code, rec.Body.String())
	}
	if !strings.Contains(logs.String(), "boom with detail") || !strings.Contains(logs.String(), `"status":500`) {
		t.Fatalf("logs: %s", logs.String())
	}
}

func TestParseAuthorization(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"Token abc", "abc", true},
		{"token abc", "abc", true},
		{"TOKEN   abc  ", "abc", true},
		{"", "", false},
		{"Token", "", false},
		{"Token ", "", false},
		{"Bearer abc", "", false},
		{"Basic YWxhZGRpbjpvcGVuc2VzYW1l", "", false},
		{"Token abc def", "", false},
		{"Token ab\x00c", "", false},
		{"Token " + strings.Repeat("a", 513), "", false},
		{"Token été", "", false},
	} {
		got, err := ParseAuthorization(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseAuthorization(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{"Token abc", "token  x", "Bearer y", "Token a b", "Token \xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := ParseAuthorization(s)
		if err != nil {
			if tok != "" {
				t.Fatalf("token %q with error %v", tok, err)
			}
			return
		}
		if tok == "" || len(tok) > 512 || strings.ContainsAny(tok, " \t\r\n") {
			t.Fatalf("accepted %q from %q", tok, s)
		}
		if !strings.Contains(s, tok) {
			t.Fatalf("token %q not in header %q", tok, s)
		}
	})
}

func TestRedactPath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/api/documents/0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10":                          "/api/documents/<secret>",
		"//api/documents/0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10":                         "//api/documents/<secret>",
		"/api/./documents/0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10":                        "/api/./documents/<secret>",
		"/api//documents/0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10":                         "/api//documents/<secret>",
		"/API/documents/0B8F3F8E-5D55-4F43-9C39-5D0B1A7C2F10":                          "/API/documents/<secret>",
		"/api/documents/0b8f3f8e5d554f439c395d0b1a7c2f10/x":                            "/api/documents/<secret>/x",
		"/x/0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10/0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f11": "/x/<secret>/<secret>",
		"/" + strings.Repeat("x", 190) + "0b8f3f8e-5d55-4f43-9c39-5d0b1a7c2f10":        "/" + strings.Repeat("x", 190) + "<secret>",
		"/api/documents/":              "/api/documents/",
		"/api/commands":                "/api/commands",
		"/" + strings.Repeat("x", 300): "/" + strings.Repeat("x", 199) + "...",
	} {
		if got := redactPath(in); got != want {
			t.Errorf("redactPath(%.30q) = %.30q", in, got)
		}
	}
}
