package httpjson

import (
	"math"
	"net/http/httptest"
	"testing"
)

func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		v      any
		want   string
		code   int
	}{
		{"value", 201, map[string]int{"n": 1}, "{\"n\":1}\n", 201},
		{"unencodable", 200, math.Inf(1), "{\"message\":\"internal error\"}\n", 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Write(rec, tc.status, tc.v)
			if rec.Code != tc.code || rec.Body.String() != tc.want {
				t.Fatalf("got %d %q, want %d %q", rec.Code, rec.Body, tc.code, tc.want)
			}
			for k, v := range map[string]string{"Content-Type": "application/json", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"} {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestMessage(t *testing.T) {
	rec := httptest.NewRecorder()
	Message(rec, 404, `no "such" thing`)
	if rec.Code != 404 || rec.Body.String() != "{\"message\":\"no \\\"such\\\" thing\"}\n" {
		t.Fatalf("got %d %q", rec.Code, rec.Body)
	}
}
