// Package httprec records what an HTTP handler answered, its status and
// size, for the middleware that logs, measures or traces a request (the
// host's request log and metrics, an app's metrics and spans), without
// getting in the way of streaming: Flush and http.ResponseController reach
// the connection underneath.
package httprec

import "net/http"

// Recorder is an http.ResponseWriter that notes the status and the bytes
// of the answer written through it.
type Recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

// New wraps w.
func New(w http.ResponseWriter) *Recorder { return &Recorder{ResponseWriter: w} }

// WriteHeader notes the first status written.
func (w *Recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write notes 200 when nothing was written before, and counts the bytes.
func (w *Recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush lets a streamed answer through.
func (w *Recorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *Recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Written reports whether anything (a status or a body) was written.
func (w *Recorder) Written() bool { return w.status != 0 }

// Status is the status answered: 200 when the handler wrote nothing, as
// net/http then answers.
func (w *Recorder) Status() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Bytes counts the body's bytes written.
func (w *Recorder) Bytes() int64 { return w.bytes }
