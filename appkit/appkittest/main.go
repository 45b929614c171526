package appkittest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/testhook"
)

// Server is an app served on a real loopback port by a test.
type Server struct {
	// URL is the server's base address, http://127.0.0.1:PORT.
	URL string
	// Port is the port it listens on.
	Port string
	// Descriptor is the body of GET / once the server answered.
	Descriptor string

	t      testing.TB
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	err    error
}

// mainMu serializes Main: the stop hook and PORT are process-wide.
var mainMu sync.Mutex

// Main runs an app's own main function, unchanged, as its process would:
// PORT is set to a free loopback port (env adds KEY=VALUE pairs to the
// environment for the test), main is started, and Main returns once GET /
// answers 200. When the test ends (or [Server.Stop] is called) the
// appkit.ListenAndServe inside main returns as it would on SIGTERM, and main
// is waited for. main must serve with appkit.ListenAndServe on ":"+PORT;
// a main that calls os.Exit on failure ends the test binary, as it would
// end the process. Tests using Main cannot run in parallel.
func Main(t testing.TB, main func(), env ...string) *Server {
	t.Helper()
	if len(env)%2 != 0 {
		t.Fatalf("appkittest.Main: env takes KEY, VALUE pairs, got %d strings", len(env))
	}
	mainMu.Lock()
	port := freePort(t)
	t.Setenv("PORT", port)
	for i := 0; i < len(env); i += 2 {
		t.Setenv(env[i], env[i+1])
	}
	ctx, cancel := context.WithCancel(context.Background())
	testhook.SetStop(ctx)
	s := &Server{URL: "http://127.0.0.1:" + port, Port: port, t: t, cancel: cancel, done: make(chan error, 1)}
	t.Cleanup(func() {
		_ = s.Stop()
		testhook.Clear()
		mainMu.Unlock()
	})
	go func() {
		main()
		s.done <- nil
	}()
	s.wait()
	return s
}

// ServeMain picks a free loopback port, starts serve(ctx, port) (an app's
// main logic, which must listen on that port until ctx is cancelled) and
// waits until GET / answers 200. Stop it with [Server.Stop]; it is stopped
// when the test ends.
func ServeMain(t testing.TB, serve func(ctx context.Context, port string) error) *Server {
	t.Helper()
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{URL: "http://127.0.0.1:" + port, Port: port, t: t, cancel: cancel, done: make(chan error, 1)}
	t.Cleanup(cancel)
	go func() { s.done <- serve(ctx, port) }()
	s.wait()
	return s
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	return port
}

// wait polls GET / until it answers, the server stops, or 10 s pass.
func (s *Server) wait() {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				s.t.Fatalf("appkittest: GET / = %d %s", resp.StatusCode, body)
			}
			s.Descriptor = string(body)
			return
		}
		select {
		case err := <-s.done:
			s.t.Fatalf("appkittest: the server stopped before answering: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("appkittest: the server did not answer within 10 s: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the server as SIGTERM would and returns what its serve
// function returned (nil for Main); a server that does not stop within 20 s
// fails the test.
func (s *Server) Stop() error {
	s.once.Do(func() {
		s.cancel()
		select {
		case s.err = <-s.done:
		case <-time.After(20 * time.Second):
			s.t.Error("appkittest: the server did not stop within 20 s of its stop")
		}
	})
	return s.err
}
