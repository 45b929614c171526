package appkittest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Main is a test of an app's main function: its server on a real port.
type Main struct {
	// URL is the server's base address, http://127.0.0.1:PORT.
	URL string
	// Descriptor is the body of GET / once the server answered.
	Descriptor string

	t      testing.TB
	cancel context.CancelFunc
	done   chan error
}

// ServeMain picks a free loopback port, starts serve(ctx, port) (an app's
// main logic, which must listen on that port until ctx is cancelled) and
// waits until GET / answers 200. Stop it with [Main.Stop].
func ServeMain(t testing.TB, serve func(ctx context.Context, port string) error) *Main {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	m := &Main{URL: "http://127.0.0.1:" + port, t: t, cancel: cancel, done: make(chan error, 1)}
	t.Cleanup(cancel)
	go func() { m.done <- serve(ctx, port) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(m.URL + "/")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("appkittest: GET / = %d %s", resp.StatusCode, body)
			}
			m.Descriptor = string(body)
			return m
		}
		select {
		case err := <-m.done:
			t.Fatalf("appkittest: the server stopped before answering: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("appkittest: the server did not answer within 10 s: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop cancels the server's context and returns what serve returned; a
// server that does not stop within 20 s fails the test.
func (m *Main) Stop() error {
	m.t.Helper()
	m.cancel()
	select {
	case err := <-m.done:
		return err
	case <-time.After(20 * time.Second):
		m.t.Fatal("appkittest: the server did not stop within 20 s of its context's cancellation")
		return nil
	}
}
