package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/netguard"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/rs/zerolog"
)

func init() {
	register(command{
		name:    "host",
		summary: "serve the embedded workspace host (command API, documents, tokens)",
		run:     runHost,
	})
}

// Defaults of "appkit host".
const (
	defaultHostAddr  = "127.0.0.1:8089"
	defaultHostStore = "sqlite:appkit.db"
	shutdownGrace    = 10 * time.Second
)

const hostUsage = `Usage: appkit host [--addr ADDR] [--store DSN] [--token TOKEN] [--rate-limit N]
                   [--admin-email EMAIL] [--admin-password PASSWORD] [--app-networks LIST]
                   [--app URL [--auth ID] [--account KEY=VALUE ...] [--every 15m]]

Serves the embedded workspace host: POST /api/commands, GET/PUT
/api/documents/<secret>, POST /api/login and GET/POST/DELETE /api/tokens.

Store DSNs: sqlite:PATH (a file, created if missing; the default is
sqlite:appkit.db in the working directory), sqlite::memory: (gone at exit),
postgres://user@host:port/db?sslmode=disable (several hosts may share it).

At first start the admin user is created from --admin-email/--admin-password
(or APPKIT_ADMIN_EMAIL/APPKIT_ADMIN_PASSWORD); without a password one is
generated and printed once on stderr; a chosen password has at least 12
characters. --token (or APPKIT_TOKEN) registers that API token for the admin,
so scripts can call the API without signing in; it has at least 16 characters
(openssl rand -hex 16 makes one).
--rate-limit is per token and per second (the service's 3 by default; 0 turns
every limit off). The address it listens on is printed on stdout; SIGINT or
SIGTERM shuts it down gracefully.

The apps API (/api/apps: apps, accounts, syncs, runs, actions, OAuth set-up,
webhook events) seals account secrets with the key of APPKIT_SECRET_KEY (32
bytes, base64 or hex), else of the file APPKIT_SECRET_KEY_FILE, else (SQLite
file stores) of PATH.key beside the store, created at first start. Every host
process sharing a PostgreSQL store needs the same key; the scheduled runs
are shared among them.
--app-networks (or APPKIT_APP_NETWORKS) lists the networks the host may
call apps at: any, or a comma-separated list of public, private (10/8,
172.16/12, 192.168/16, 100.64/10, fc00::/7), loopback and link-local
(169.254/16, fe80::/10: cloud metadata). The default,
public,private,loopback, lets apps on this machine or network register; a
host that serves registrations from users it does not trust runs with
--app-networks public. It is checked on the address dialled (after name
resolution, on every redirect), and a registration that reaches no app
gets one answer whatever the cause (refused, unreachable, another status
or content), so that it cannot scan the host's networks. Unless the
policy is any, apps are called without HTTP(S)_PROXY.
--app registers the app at URL (again at every start), sets up its account
from --auth and --account (the stored one is kept when none is given) and
its sync, which runs at once, then every --every (15m for a new sync) and on
webhook events, while the APIs are served.

Flags:
`

// runHost implements "appkit host".
func runHost(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("appkit host", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", defaultHostAddr, "address to listen on (host:port; port 0 picks a free one)")
	dsn := fs.String("store", envOr("APPKIT_STORE", defaultHostStore), "store DSN: sqlite:PATH, sqlite::memory: or postgres://... (env APPKIT_STORE)")
	token := fs.String("token", os.Getenv("APPKIT_TOKEN"), "register this API token for the admin at start (env APPKIT_TOKEN)")
	rateLimit := fs.Float64("rate-limit", auth.DefaultRate, "requests per second per token; 0 turns rate limits off")
	workspaceLimit := fs.Float64("workspace-rate-limit", auth.DefaultWorkspaceRate, "requests per second over all tokens; 0 for none")
	adminEmail := fs.String("admin-email", os.Getenv("APPKIT_ADMIN_EMAIL"), "the admin's e-mail (env APPKIT_ADMIN_EMAIL; default admin@localhost)")
	adminPassword := fs.String("admin-password", os.Getenv("APPKIT_ADMIN_PASSWORD"), "the admin's password (env APPKIT_ADMIN_PASSWORD; generated when empty)")
	appURL := fs.String("app", "", "register the app at this address and keep it synchronized (see below)")
	appAuth := fs.String("auth", "", "with --app: the authentication id of the account (default: the app's only one, else none, else the first)")
	var appAccount multiFlag
	fs.Var(&appAccount, "account", "with --app: an account field, KEY=VALUE (repeatable)")
	every := fs.String("every", "", "with --app: the sync's schedule, such as 15m (default: the stored one, 15m for a new sync)")
	publicURL := fs.String("public-url", os.Getenv("APPKIT_PUBLIC_URL"), "the host's address as apps and browsers reach it, for webhook and OAuth callbacks (env APPKIT_PUBLIC_URL; default http://ADDR)")
	appNetworks := fs.String("app-networks", envOr("APPKIT_APP_NETWORKS", apps.DefaultNetworks.String()), "networks the host may call apps at: any, or a list of public, private, loopback, link-local (env APPKIT_APP_NETWORKS)")
	demo := fs.Bool("demo", false, "also serve the tracker example app in process, synchronize it into the store and print an API token to query it (see demo.go)")
	fs.Usage = func() {
		fmt.Fprint(stderr, hostUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "appkit host: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if *rateLimit < 0 || math.IsNaN(*rateLimit) || *workspaceLimit < 0 || math.IsNaN(*workspaceLimit) {
		fmt.Fprintln(stderr, "appkit host: rate limits must be 0 or positive")
		return 2
	}
	if *appURL == "" && (*appAuth != "" || len(appAccount) > 0 || *every != "") {
		fmt.Fprintln(stderr, "appkit host: --auth, --account and --every go with --app")
		return 2
	}
	networks, err := netguard.ParsePolicy(*appNetworks)
	if err != nil {
		fmt.Fprintf(stderr, "appkit host: --app-networks: %v\n", err)
		return 2
	}
	if _, err := apps.ParseEvery(*every); err != nil {
		fmt.Fprintf(stderr, "appkit host: --every: %v\n", err)
		return 2
	}
	accountFields, err := keyValues("account", appAccount)
	if err != nil {
		fmt.Fprintf(stderr, "appkit host: %v\n", err)
		return 2
	}
	if *demo && *token == "" {
		*token = newDemoToken()
	}
	if *token != "" {
		if err := auth.ValidateTokenValue(*token); err != nil {
			fmt.Fprintf(stderr, "appkit host: --token: %v\n", err)
			return 2
		}
	}
	if *adminPassword != "" {
		if err := auth.ValidatePassword(*adminPassword); err != nil {
			fmt.Fprintf(stderr, "appkit host: --admin-password: %v\n", err)
			return 2
		}
	}
	// Listen first: a taken or malformed address fails before the store is
	// touched.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "appkit host: %v\n", err)
		return 1
	}
	defer ln.Close()
	log := zerolog.New(stderr).With().Timestamp().Str("component", "host").Logger()

	st, err := store.Open(ctx, *dsn)
	if err != nil {
		fmt.Fprintf(stderr, "appkit host: %v\n", err)
		return 1
	}
	defer st.Close()
	base := *publicURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	svc, err := startApps(ctx, st, *dsn, base, networks, log, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "appkit host: %v\n", err)
		return 1
	}
	if *appURL != "" && svc == nil {
		fmt.Fprintln(stderr, "appkit host: --app needs the apps service: set APPKIT_SECRET_KEY")
		return 1
	}
	cfg := host.Config{
		Store:         st,
		RateLimit:     *rateLimit,
		AdminEmail:    *adminEmail,
		AdminPassword: *adminPassword,
		Token:         *token,
		Logger:        log,
		Notice:        stderr,
		Apps:          host.AppsConfig{Service: svc},
	}
	if *rateLimit > 0 {
		cfg.WorkspaceRateLimit = *workspaceLimit
	}
	h, err := host.New(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "appkit host: %v\n", err)
		return 1
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	schedCtx, stopSched := context.WithCancel(ctx)
	scheduled := make(chan struct{})
	if svc != nil {
		go func() { defer close(scheduled); svc.Schedule(schedCtx) }()
	} else {
		close(scheduled)
	}
	defer func() { stopSched(); <-scheduled }()
	if *appURL != "" {
		flat := map[string]string{}
		for k, v := range accountFields {
			flat[k] = v[len(v)-1]
		}
		if err := keepApp(ctx, svc, *appURL, *appAuth, flat, *every, stdout); err != nil {
			fmt.Fprintf(stderr, "appkit host: --app: %v\n", err)
			return 1
		}
	}
	// Printed once the app of --app is registered, so that a script
	// waiting for this line finds its sync.
	fmt.Fprintf(stdout, "appkit host: listening on http://%s (admin %s)\n", ln.Addr(), h.Admin().Email)
	fmt.Fprintf(stdout, "appkit host: the web console is at http://%s/ (sign in as %s)\n", ln.Addr(), h.Admin().Email)
	if *demo {
		stopDemo, err := startDemo(ctx, st, ln.Addr().String(), *token, stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "appkit host: %v\n", err)
			return 1
		}
		defer stopDemo()
	}

	select {
	case err := <-served:
		fmt.Fprintf(stderr, "appkit host: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	stopSched()
	<-scheduled
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "appkit host: shutdown: %v\n", err)
		return 1
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "appkit host: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "appkit host: stopped")
	return 0
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}
