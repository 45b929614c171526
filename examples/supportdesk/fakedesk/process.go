package fakedesk

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// childEnv marks the test binary started by Start as the desk's process.
const childEnv = "FAKEDESK_CHILD"

// Epoch is the desk's clock in a process started by Start (moved by
// POST /admin/clock): the last of its 120 tickets was created an hour
// before.
var Epoch = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// ServeIfChild serves the desk and exits when the process is one started
// by Start; otherwise it returns at once. Call it first in TestMain.
func ServeIfChild() {
	if os.Getenv(childEnv) != "1" {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakedesk:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String()) // the parent reads the address
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // the parent closed the pipe, or died
		os.Exit(0)
	}()
	srv := &http.Server{Handler: New(120, func() time.Time { return Epoch }), ReadHeaderTimeout: 10 * time.Second}
	_ = srv.Serve(ln)
	os.Exit(1)
}

// Start runs the desk in its own process (the test binary again, whose
// TestMain calls ServeIfChild) and returns its API root, http://HOST:PORT/api.
// The process ends with the test.
func Start(tb testing.TB) string {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("fakedesk: the desk's process did not say its address: %v", err)
	}
	return "http://" + strings.TrimSpace(addr) + "/api"
}
