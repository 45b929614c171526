package httprec_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/appkitgo/appkit/internal/httprec"
)

func TestRecorder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		written bool
		status  int
		bytes   int64
	}{
		{"nothing written", func(http.ResponseWriter, *http.Request) {}, false, 200, 0},
		{"a body alone", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") }, true, 200, 5},
		{"the first status wins", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(404)
			w.WriteHeader(500)
			io.WriteString(w, "no")
		}, true, 404, 2},
		{"a status after the body is not the answer's", func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, "x")
			w.WriteHeader(500)
		}, true, 200, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			under := httptest.NewRecorder()
			rec := httprec.New(under)
			tc.handler(rec, httptest.NewRequest(http.MethodGet, "/", nil))
			if rec.Written() != tc.written || rec.Status() != tc.status || rec.Bytes() != tc.bytes {
				t.Errorf("written %v, status %d, bytes %d; want %v, %d, %d", rec.Written(), rec.Status(), rec.Bytes(), tc.written, tc.status, tc.bytes)
			}
		})
	}
}

// Flush and http.ResponseController reach the writer underneath.
func TestRecorderStreams(t *testing.T) {
	t.Parallel()
	under := httptest.NewRecorder()
	rec := httprec.New(under)
	io.WriteString(rec, "part")
	if err := http.NewResponseController(rec).Flush(); err != nil || !under.Flushed {
		t.Fatalf("flush through the controller: %v, flushed %v", err, under.Flushed)
	}
	under.Flushed = false
	rec.Flush()
	if !under.Flushed {
		t.Error("Flush did not reach the writer underneath")
	}
}
