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
	"net/url"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// "appkit host --demo": the demo app (demoapp.go) served in the same
// process on a loopback port, synchronized into the host's store before the
// host answers its first query, with an API token, a query and the GraphQL
// IDE's link printed to explore the result.

// demoTokenKey is where the demo's API token is kept in the store, so that
// a restart on the same store prints and registers the same token instead
// of adding one per start.
const demoTokenKey = "appkit-host-demo/token"

// demoToken returns the demo's API token kept in st, made and kept at
// first use.
func demoToken(ctx context.Context, st *store.Store) (string, error) {
	var token string
	err := st.Write(ctx, func(tx *store.Tx) error {
		b, err := tx.SyncState(demoTokenKey)
		if err != nil {
			return err
		}
		if token = string(b); auth.ValidateTokenValue(token) == nil {
			return nil
		}
		r := make([]byte, 24)
		rand.Read(r)
		token = "demo-" + base64.RawURLEncoding.EncodeToString(r)
		return tx.SaveSyncState(demoTokenKey, []byte(token))
	})
	if err != nil {
		return "", fmt.Errorf("demo: the API token: %w", err)
	}
	return token, nil
}

// startDemo serves the demo app on 127.0.0.1, synchronizes it into st
// (progress on stderr, the summary and how to query it on stdout) and
// returns the function that stops the app.
func startDemo(ctx context.Context, st *store.Store, hostAddr, token string, stdout, stderr io.Writer) (func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	nop := zerolog.Nop()
	h, err := newDemoApp(&nop).Handler()
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("demo: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "demo: the demo app: %v\n", err)
		}
	}
	appURL := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "demo: the demo app is served at %s; synchronizing it into the store\n", appURL)
	rep, err := runWithProgress(ctx, st, syncer.Options{AppURL: appURL, Account: map[string]string{"token": demoAccountToken}}, stderr)
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
    "args":{"query":{"q/from":"demo/task","q/limit":5,"q/select":["demo.task/name",
      {"demo.task/status":["enum/name"]},{"demo.task/project":["demo.project/name"]}]}}}]'

or in the GraphQL IDE (the token is in the link's fragment, which the browser keeps to itself):

  http://%[1]s/api/graphql/space/%[3]s#token=%[2]s

`, hostAddr, token, url.PathEscape(rep.Space))
	return stop, nil
}
