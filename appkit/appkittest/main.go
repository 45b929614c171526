package appkittest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// Server is an app's main logic served on a real loopback port by a test.
type Server struct {
	// URL is the server's base address, http://127.0.0.1:PORT.
	URL string
	// Port is the port it listens on.
	Port string
	// Descriptor is the body of GET / once the server answered.
	Descriptor string

	t           testing.TB
	cancel      context.CancelFunc
	done        chan error
	once        sync.Once
	err         error
	stopped     bool // Stop was called
	failedStart bool // the start already failed the test
}

// ServeMain opens a listener on a free loopback port, starts serve(ctx, l)
// (an app's main logic, which must serve on l, typically with
// appkit.ServeListener, until ctx is cancelled) and waits until GET /
// answers 200. The listener is open before serve starts, so no port is
// picked, released and raced for, and tests using ServeMain may run in
// parallel. Stop it with [Server.Stop]; it is stopped when the test ends.
//
// An app's main is written for it as a thin shell over a run function that
// takes its listener (nil: listen on $PORT):
//
//	func main() {
//		if err := run(context.Background(), os.Getenv, nil); err != nil { ... }
//	}
//
// and its test runs that function: appkittest.ServeMain(t, func(ctx
// context.Context, l net.Listener) error { return run(ctx, getenv, l) }).
func ServeMain(t testing.TB, serve func(ctx context.Context, l net.Listener) error) *Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("appkittest: listen on a loopback port: %v", err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{URL: "http://127.0.0.1:" + port, Port: port, t: t, cancel: cancel, done: make(chan error, 1)}
	t.Cleanup(func() {
		if s.failedStart {
			// The start failed the test already: end whatever still runs.
			cancel()
			l.Close()
			return
		}
		stopped := s.stopped
		if err := s.Stop(); err != nil && !stopped {
			t.Errorf("appkittest: the serve function returned %v when stopped at the end of the test", err)
		}
		l.Close()
	})
	go func() { s.done <- serve(ctx, l) }()
	s.wait()
	return s
}

// readyTimeout bounds the wait for a server's first answer.
const readyTimeout = 30 * time.Second

// wait asks GET / once (the listener is open: the request waits in its
// queue until the server accepts it) and fails the test if the server
// stops first, answers anything but 200, or does not answer in time.
func (s *Server) wait() {
	s.t.Helper()
	type answer struct {
		status int
		body   []byte
		err    error
	}
	started := false
	defer func() { s.failedStart = !started }() // also when a Fatalf below ends the test
	got := make(chan answer, 1)
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		got <- answer{resp.StatusCode, body, err}
	}()
	select {
	case err := <-s.done:
		s.done <- err // for Stop
		s.t.Fatalf("appkittest: the server stopped before answering: %v", err)
	case a := <-got:
		switch {
		case errors.Is(a.err, context.DeadlineExceeded):
			s.t.Fatalf("appkittest: the server did not answer GET / within %v", readyTimeout)
		case a.err != nil:
			s.t.Fatalf("appkittest: GET /: %v", a.err)
		case a.status != http.StatusOK:
			s.t.Fatalf("appkittest: GET / = %d %s", a.status, a.body)
		}
		s.Descriptor = string(a.body)
		started = true
	}
}

// Stop stops the server as SIGTERM would and returns what its serve
// function returned; a server that does not stop within 20 s fails the
// test. A server the test did not stop is stopped when the test ends, and
// an error its serve function returns then fails the test.
func (s *Server) Stop() error {
	s.once.Do(func() {
		s.stopped = true
		s.cancel()
		select {
		case s.err = <-s.done:
		case <-time.After(20 * time.Second):
			s.t.Error("appkittest: the server did not stop within 20 s of its stop")
		}
	})
	return s.err
}

// Env is a getenv over the given KEY, VALUE pairs, for a main's run
// function under test: run(ctx, appkittest.Env("PORT", "9001"), l). A key
// not given reads as empty, as an unset variable does; a trailing key
// without a value is ignored.
func Env(kv ...string) func(key string) string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(key string) string { return m[key] }
}
