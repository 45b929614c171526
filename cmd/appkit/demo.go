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

	"github.com/appkitgo/appkit/internal/apps"
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

// startDemo serves the demo app on 127.0.0.1, registers it with its
// account and an on-demand sync through svc, the apps service (so that the
// console shows the app, its runs and exchanges), waits for the sync's run
// (progress on stderr, the summary and how to query it on stdout) and
// returns the function that stops the app. A store used by an earlier demo
// keeps its registration (moved to the app's new address), its account
// and its sync; the space of a demo from before the apps service (its data
// owned by no sync) is adopted. Without the apps service (no secret key)
// the demo is synchronized directly into st.
func startDemo(ctx context.Context, st *store.Store, svc *apps.Service, hostAddr, token string, stdout, stderr io.Writer) (func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	nop := zerolog.Nop()
	appURL := "http://" + ln.Addr().String()
	h, err := newDemoApp(&nop, appURL+demoAPIPath).Handler()
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("demo: %w", err)
	}
	// The app and the API it reads share the listener: the API under
	// demoAPIPath, the app's endpoints everywhere else.
	mux := http.NewServeMux()
	mux.Handle(demoAPIPath+"/", http.StripPrefix(demoAPIPath, demoAPI()))
	mux.Handle("/", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
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
	fmt.Fprintf(stdout, "demo: the demo app is served at %s; synchronizing it into the store\n", appURL)
	var space string
	if svc == nil {
		rep, err := runWithProgress(ctx, st, syncer.Options{AppURL: appURL, Account: map[string]string{"token": demoAccountToken}}, stderr)
		if rep != nil {
			printReport(stdout, rep)
		}
		if err != nil {
			stop()
			return nil, fmt.Errorf("demo: %w", err)
		}
		space = rep.Space
	} else {
		if space, err = syncDemo(ctx, svc, appURL, stdout); err != nil {
			stop()
			return nil, fmt.Errorf("demo: %w", err)
		}
	}
	fmt.Fprintf(stdout, `
The host is at http://%[1]s; your API token is %[2]s
Query the synchronized tasks (their project, through the relation) with:

  curl -s -H 'Authorization: Token %[2]s' http://%[1]s/api/commands -d '[{"command":"platform.entity/query",
    "args":{"query":{"q/from":"demo/task","q/limit":5,"q/select":["demo.task/name",
      {"demo.task/status":["enum/name"]},{"demo.task/project":["demo.project/name"]}]}}}]'

or in the GraphQL IDE (the token is in the link's fragment, which the browser keeps to itself):

  http://%[1]s/api/graphql/space/%[3]s#token=%[2]s

`, hostAddr, token, url.PathEscape(space))
	return stop, nil
}

// syncDemo registers the demo app at appURL through svc (by its id: the
// registration of an earlier demo moves to appURL), sets up its account
// and an on-demand sync unless it has one, runs it, waits for the run and
// prints its report; it returns the sync's space.
func syncDemo(ctx context.Context, svc *apps.Service, appURL string, stdout io.Writer) (string, error) {
	app, err := svc.Registry.RegisterMoving(ctx, apps.RegisterSpec{URL: appURL, Adopt: true})
	if err != nil {
		return "", err
	}
	for _, w := range app.Warnings {
		fmt.Fprintf(stdout, "demo: warning: %s\n", w)
	}
	syncs, err := svc.SyncService.Syncs(ctx, app.ID)
	if err != nil {
		return "", err
	}
	var run *apps.Run
	var sy *apps.Sync
	if len(syncs) == 0 {
		fields, err := apps.TypedFields(app.Descriptor, app.Descriptor.Authentication[0].ID, map[string]string{"token": demoAccountToken})
		if err != nil {
			return "", err
		}
		acc, err := svc.Registry.CreateAccount(ctx, app.ID, "", fields)
		if err != nil {
			return "", fmt.Errorf("account: %w", err)
		}
		none := ""
		if sy, err = svc.SyncService.CreateSync(ctx, apps.SyncSpec{App: app.ID, Account: acc.ID, Every: &none, Adopt: true}); err != nil {
			return "", err
		}
		fmt.Fprintf(stdout, "demo: registered the app %s (%s) with its account %q and sync %s\n", app.Name, app.ID, acc.Name, sy.ID)
	} else {
		sy = syncs[0]
		fmt.Fprintf(stdout, "demo: the app %s (%s) and its sync %s are registered already\n", app.Name, app.ID, sy.ID)
		if run, err = svc.SyncService.RunNow(ctx, sy.ID); err != nil {
			return "", err
		}
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	// A new sync's first run is queued by the scheduler; an earlier run
	// still going is what RunNow answers.
	for run == nil || run.Status == apps.StatusQueued || run.Status == apps.StatusRunning {
		if run == nil {
			runs, err := svc.SyncService.Runs(ctx, sy.ID, 1)
			if err != nil {
				return "", err
			}
			if len(runs) > 0 {
				run = runs[0]
				continue
			}
		} else if run, err = svc.SyncService.Run(ctx, run.ID); err != nil {
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", context.Cause(ctx)
		case <-tick.C:
		}
	}
	took := (time.Duration(run.DurationMS) * time.Millisecond).Round(time.Millisecond)
	if run.Status != apps.StatusSucceeded {
		return "", fmt.Errorf("the run %s ended %s after %s: %s", run.ID, run.Status, took, run.Error)
	}
	fmt.Fprintf(stdout, "demo: run %s synchronized the space %q in %s (the console's Apps page shows it):\n", run.ID, sy.Space, took)
	if run.Report != nil {
		for _, t := range run.Report.Types {
			fmt.Fprintf(stdout, "  %s: %d items (%d created, %d updated, %d unchanged, %d removed)\n", t.Store, t.Items, t.Created, t.Updated, t.Unchanged, t.Removed)
		}
	}
	return sy.Space, nil
}
