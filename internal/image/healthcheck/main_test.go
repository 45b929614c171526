package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		status int
		ok     bool
	}{{200, true}, {404, false}, {503, false}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" || r.Method != http.MethodGet {
				t.Errorf("got %s %s, want GET /", r.Method, r.URL.Path)
			}
			w.WriteHeader(tc.status)
		}))
		err := check(srv.URL + "/")
		srv.Close()
		if (err == nil) != tc.ok {
			t.Errorf("status %d: check = %v, want ok=%v", tc.status, err, tc.ok)
		}
	}
	if err := check("http://127.0.0.1:1/"); err == nil {
		t.Error("check of a closed port succeeded")
	}
}
