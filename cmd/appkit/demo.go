package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// "appkit host --demo": the tracker example app served in the same process
// on a loopback port, synchronized into the host's store before the host
// answers its first query, with an API token printed to query the result.

// newDemoToken returns a fresh API token for the demo.
func newDemoToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return "demo-" + base64.RawURLEncoding.EncodeToString(b)
}

// startDemo serves the tracker on 127.0.0.1, synchronizes it into st
// (progress on stderr, the summary and how to query it on stdout) and
// returns the function that stops the tracker.
func startDemo(ctx context.Context, st *store.Store, hostAddr, token string, stdout, stderr io.Writer) (func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	nop := zerolog.Nop()
	h, err := tracker.New(tracker.Config{Logger: &nop}).Handler()
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("demo: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "demo: tracker: %v\n", err)
		}
	}()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}
	appURL := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "demo: the tracker example app is served at %s; synchronizing it into the store\n", appURL)
	rep, err := runWithProgress(ctx, st, syncer.Options{AppURL: appURL, Account: map[string]string{"token": tracker.DemoToken}}, stderr)
	if rep != nil {
		printReport(stdout, rep)
	}
	if err != nil {
		stop()
		return nil, fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(stdout, `
The host is at http://%[1]s; your API token is %[2]s
Query the synchronized tasks (their project, through the relation) with:

  curl -s -H 'Authorization: Token %[2]s' http://%[1]s/api/commands -d '[{"command":"platform.entity/query",
    "args":{"query":{"q/from":"tracker/task","q/limit":5,"q/select":["tracker.task/name",
      {"tracker.task/status":["enum/name"]},{"tracker.task/project":["tracker.project/name"]}]}}}]'

`, hostAddr, token)
	return stop, nil
}
