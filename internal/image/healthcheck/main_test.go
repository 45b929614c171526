package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestProbe: /healthz first; an app without it (404) is asked for /.
func TestProbe(t *testing.T) {
	for _, tc := range []struct {
		health, root int
		ok           bool
		asked        string
	}{{200, 0, true, "/healthz"}, {503, 200, false, "/healthz"}, {404, 200, true, "/healthz /"}, {404, 500, false, "/healthz /"}} {
		var asked []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked = append(asked, r.URL.Path)
			if r.URL.Path == "/healthz" {
				w.WriteHeader(tc.health)
				return
			}
			w.WriteHeader(tc.root)
		}))
		err := probe(srv.URL)
		srv.Close()
		if (err == nil) != tc.ok || strings.Join(asked, " ") != tc.asked {
			t.Errorf("/healthz %d, / %d: %v after %v; want ok=%v after %s", tc.health, tc.root, err, asked, tc.ok, tc.asked)
		}
	}
}
