package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"time"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/loopback"
	"github.com/appkitgo/appkit/internal/netguard"
	"github.com/appkitgo/appkit/internal/observe"
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

const hostUsage = `Usage: appkit host [--addr ADDR] [--store DSN] [--token TOKEN] [--rate-limit N] [--metrics-addr ADDR]
                   [--admin-email EMAIL] [--admin-password PASSWORD] [--app-networks LIST]
                   [--trusted-proxies LIST]
                   [--app URL [--auth ID] [--account KEY=VALUE ...] [--every 15m]]

Serves the embedded workspace host: POST /api/commands, GET/PUT
/api/documents/<secret>, POST /api/login and GET/POST/DELETE /api/tokens.

Store DSNs: sqlite:PATH (a file, created if missing; the default is
sqlite:appkit.db in the working directory), sqlite::memory: (gone at exit),
postgres://user@host:port/db?sslmode=disable (several hosts may share it).

At first start the admin user is created from --admin-email/--admin-password
(or APPKIT_ADMIN_EMAIL/APPKIT_ADMIN_PASSWORD); without a password one is
generated and printed once on stderr; a chosen password has at least 12
characters. The settings stay authoritative at every start: a new password
ends the admin's sessions; a new e-mail replaces the admin (the previous
one is removed with its sessions and API tokens, and stderr says so).
--token (or APPKIT_TOKEN) registers that API token for the admin,
so scripts can call the API without signing in; it has at least 16 characters
(openssl rand -hex 16 makes one).
--rate-limit is per token and per second (the service's 3 by default; 0 turns
every limit off). The address it listens on is printed on stdout; SIGINT or
SIGTERM shuts it down gracefully.

The apps API (/api/apps: apps, accounts, syncs, runs, actions, OAuth set-up,
webhook events; POST /api/apps/syncs/ID/cancel cancels a sync's run) seals
account secrets with the key of APPKIT_SECRET_KEY (32 bytes, base64 or hex),
else of the file APPKIT_SECRET_KEY_FILE, else (SQLite file stores) of
PATH.key beside the store, created at first start. Every host process
sharing a PostgreSQL store needs the same key; the scheduled runs are shared
among them, and a cancelled run stops at its host's next lease renewal
(within 10 s).
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
--trusted-proxies (or APPKIT_TRUSTED_PROXIES) lists the reverse proxies in
front of the host, as addresses and CIDR prefixes (10.0.0.0/8,127.0.0.1): a
request from one of them is counted against the client address it forwarded
in X-Forwarded-For (read from the right, past the trusted proxies). By
default no forwarded header is believed: sign-in attempts, invalid tokens
and webhook events count against the connection's address (behind a proxy,
everyone's). IPv6 clients count by their /64.
--app registers the app at URL (again at every start), sets up its account
from --auth and --account (the stored one is kept when none is given) and
its sync, which runs at once, then every --every (15m for a new sync) and on
webhook events, while the APIs are served.
--demo also serves a small demo app (projects and tasks) in process,
registers it through the apps service with its account and an on-demand
sync (the console shows them; a restart on the same store moves the
registration to the app's new port), synchronizes it into the space demo
and prints an API token, a query and the GraphQL IDE's link; without
--token the demo's token, named demo, is kept in the store and the same at
every start.

--metrics-addr (or APPKIT_METRICS_ADDR) serves GET /metrics (Prometheus)
on that address, apart from the API's: runs, pages, items, app calls,
webhook events, requests, refusals, the scheduler and the store's pool
(docs/operations.md). GET /healthz and GET /readyz on the main address
say whether the host serves and whether its store answers. The standard
OTEL_* variables below trace each sync run (OTLP over HTTP, flushed at
exit): a span for the run, each type, page and call to the app, which
gets its W3C traceparent.

GraphQL's addFileFromUrl refuses loopback, private and other non-public
addresses unless APPKIT_GRAPHQL_ALLOW_PRIVATE_URLS=1 (a host on a private
network that trusts its users).

Exit status: 0 stopped by SIGINT or SIGTERM; 1 failed (could not listen,
open the store or start; the reason on stderr); 2 usage error.

Flags:
`

// hostEnv lists the environment variables "appkit host" reads.
var hostEnv = []envVar{
	envStore,
	{"APPKIT_TOKEN", "the default of --token"},
	{"APPKIT_ADMIN_EMAIL", "the default of --admin-email"},
	{"APPKIT_ADMIN_PASSWORD", "the default of --admin-password"},
	{"APPKIT_PUBLIC_URL", "the default of --public-url"},
	{"APPKIT_APP_NETWORKS", "the default of --app-networks"},
	{"APPKIT_TRUSTED_PROXIES", "the default of --trusted-proxies"},
	{"APPKIT_SECRET_KEY", "the key that seals account secrets: 32 bytes, base64 or hex"},
	{"APPKIT_SECRET_KEY_FILE", "a file holding that key, read when APPKIT_SECRET_KEY is unset"},
	{envGraphQLPrivateURLs, "1 lets GraphQL's addFileFromUrl reach loopback and private addresses"},
	{envMetricsAddr, "the default of --metrics-addr"},
}

// envGraphQLPrivateURLs is the security switch of GraphQL's addFileFromUrl.
const envGraphQLPrivateURLs = "APPKIT_GRAPHQL_ALLOW_PRIVATE_URLS"

// hostClockKey is the context key of a clock for the host's rate limits:
// set by tests only (a stopped clock makes rate-limit tests independent of
// the machine's speed), never by a flag.
type hostClockKey struct{}

// runHost implements "appkit host".
func runHost(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseHostFlags(args, stderr)
	if err != nil {
		return err
	}
	// Listen first: a taken or malformed address fails before the store is
	// touched.
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	log := zerolog.New(stderr).With().Timestamp().Str("component", "host").Logger()

	st, err := store.Open(ctx, o.dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	obs, stopObserve, err := startHostObserve(ctx, o.metricsAddr, st, stdout)
	if err != nil {
		return err
	}
	defer stopObserve()
	o.obs = obs
	if o.demo && o.token == "" {
		if o.token, err = demoToken(ctx, st); err != nil {
			return err
		}
		o.tokenName = "demo"
	}
	svc, h, err := newHostServices(ctx, o, st, ln.Addr().String(), log, stderr)
	if err != nil {
		return err
	}
	return serveHost(ctx, o, ln, st, svc, h, stdout, stderr)
}

// hostOptions are the flags of appkit host, checked.
type hostOptions struct {
	addr, dsn, token string
	// tokenName is the name token is registered under ("": "--token").
	tokenName                 string
	rateLimit, workspaceLimit float64
	adminEmail, adminPassword string
	appURL, appAuth, every    string
	appAccount                *kvFlag
	publicURL                 string
	networks                  netguard.Policy
	trustedProxies            []netip.Prefix
	metricsAddr               string
	demo                      bool
	// obs is the host's observation (nil: none), set up by runHost.
	obs *observe.Host
}

// parseHostFlags reads and checks the flags of appkit host; its errors
// are usage errors.
func parseHostFlags(args []string, stderr io.Writer) (*hostOptions, error) {
	fs := newFlagSet("host", hostUsage, hostEnv, stderr)
	addr := fs.String("addr", defaultHostAddr, "address to listen on (host:port; port 0 picks a free one)")
	dsn := storeFlag(fs)
	token := fs.String("token", os.Getenv("APPKIT_TOKEN"), "register this API token for the admin at start (env APPKIT_TOKEN)")
	rateLimit := fs.Float64("rate-limit", auth.DefaultRate, "requests per second per token; 0 turns rate limits off")
	workspaceLimit := fs.Float64("workspace-rate-limit", auth.DefaultWorkspaceRate, "requests per second over all tokens; 0 for none")
	adminEmail := fs.String("admin-email", os.Getenv("APPKIT_ADMIN_EMAIL"), "the admin's e-mail (env APPKIT_ADMIN_EMAIL; default admin@localhost)")
	adminPassword := fs.String("admin-password", os.Getenv("APPKIT_ADMIN_PASSWORD"), "the admin's password (env APPKIT_ADMIN_PASSWORD; generated when empty)")
	appURL := fs.String("app", "", "register the app at this address and keep it synchronized (see below)")
	appAuth := authFlag(fs, "with --app: ")
	appAccount := accountFlag(fs, "with --app: ")
	every := fs.String("every", "", "with --app: the sync's schedule, such as 15m (default: the stored one, 15m for a new sync)")
	publicURL := fs.String("public-url", os.Getenv("APPKIT_PUBLIC_URL"), "the host's address as apps and browsers reach it, for webhook and OAuth callbacks (env APPKIT_PUBLIC_URL; default http://ADDR)")
	appNetworks := fs.String("app-networks", envOr("APPKIT_APP_NETWORKS", apps.DefaultNetworks.String()), "networks the host may call apps at: any, or a list of public, private, loopback, link-local (env APPKIT_APP_NETWORKS)")
	trustedProxies := fs.String("trusted-proxies", os.Getenv("APPKIT_TRUSTED_PROXIES"), "reverse proxies whose X-Forwarded-For is believed: addresses and CIDR prefixes, comma-separated (env APPKIT_TRUSTED_PROXIES; none by default)")
	metricsAddr := fs.String("metrics-addr", os.Getenv(envMetricsAddr), "serve GET /metrics (Prometheus) on this address, apart from the API's (env "+envMetricsAddr+"; off when empty)")
	demo := fs.Bool("demo", false, "also serve a demo app in process, synchronize it into the store and print an API token, a query and the GraphQL IDE's link")
	if err := fs.parseFlags(args); err != nil {
		return nil, err
	}
	if *rateLimit < 0 || math.IsNaN(*rateLimit) || *workspaceLimit < 0 || math.IsNaN(*workspaceLimit) {
		return nil, usageErrorf("rate limits must be 0 or positive")
	}
	if *appURL == "" && (*appAuth != "" || len(appAccount.pairs) > 0 || *every != "") {
		return nil, usageErrorf("--auth, --account and --every go with --app")
	}
	networks, err := netguard.ParsePolicy(*appNetworks)
	if err != nil {
		return nil, usageErrorf("--app-networks: %v", err)
	}
	proxies, err := host.ParseTrustedProxies(*trustedProxies)
	if err != nil {
		return nil, usageErrorf("--trusted-proxies: %v", err)
	}
	if _, err := apps.ParseEvery(*every); err != nil {
		return nil, usageErrorf("--every: %v", err)
	}
	if *token != "" {
		if err := auth.ValidateTokenValue(*token); err != nil {
			return nil, usageErrorf("--token: %v", err)
		}
	}
	if *adminPassword != "" {
		if err := auth.ValidatePassword(*adminPassword); err != nil {
			return nil, usageErrorf("--admin-password: %v", err)
		}
	}
	return &hostOptions{
		addr: *addr, dsn: *dsn, token: *token,
		rateLimit: *rateLimit, workspaceLimit: *workspaceLimit,
		adminEmail: *adminEmail, adminPassword: *adminPassword,
		appURL: *appURL, appAuth: *appAuth, every: *every, appAccount: appAccount,
		publicURL: *publicURL, networks: networks, demo: *demo, metricsAddr: *metricsAddr,
		trustedProxies: proxies,
	}, nil
}

// apps is the apps service of "appkit host": --app-networks, the observer of
// --metrics-addr, and no bodies of the apps' upstream calls (a shared
// host keeps the calls only; the console's test read asks for bodies).
func (o *hostOptions) apps() appsSetup {
	return appsSetup{networks: o.networks, obs: o.obs}
}

// newHostServices starts the apps service (nil without a secret key) and
// builds the host's handler over st; listenAddr is the address the host
// listens on (the public address when --public-url is not set).
func newHostServices(ctx context.Context, o *hostOptions, st *store.Store, listenAddr string, log zerolog.Logger, stderr io.Writer) (*apps.Service, *host.Host, error) {
	base := o.publicURL
	if base == "" {
		base = "http://" + listenAddr
	}
	svc, err := startApps(ctx, st, o.dsn, base, o.apps(), log, stderr)
	if err != nil {
		return nil, nil, err
	}
	if o.appURL != "" && svc == nil {
		return nil, nil, errors.New("--app needs the apps service: set APPKIT_SECRET_KEY")
	}
	cfg := host.Config{
		Store:         st,
		RateLimit:     o.rateLimit,
		AdminEmail:    o.adminEmail,
		AdminPassword: o.adminPassword,
		Token:         o.token,
		TokenName:     o.tokenName,
		Logger:        log,
		Notice:        stderr,
		Apps:          host.AppsConfig{Service: svc},
		Observe:       o.obs,

		TrustedProxies: o.trustedProxies,

		GraphQLAllowPrivateURLs: os.Getenv(envGraphQLPrivateURLs) == "1",
	}
	cfg.Now, _ = ctx.Value(hostClockKey{}).(func() time.Time)
	if o.rateLimit > 0 {
		cfg.WorkspaceRateLimit = o.workspaceLimit
	}
	h, err := host.New(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return svc, h, nil
}

// serveHost serves h on ln, runs the apps' scheduler, registers the app of
// --app and the demo, and shuts down gracefully when ctx ends.
func serveHost(ctx context.Context, o *hostOptions, ln net.Listener, st *store.Store, svc *apps.Service, h *host.Host, stdout, stderr io.Writer) error {
	srv := &http.Server{
		Handler:           guardLoopback(h, ln, o.publicURL),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	stopSched := runScheduler(ctx, svc)
	defer stopSched()
	if o.appURL != "" {
		if err := keepApp(ctx, svc, o.appURL, o.appAuth, o.appAccount.last(), o.every, stdout); err != nil {
			return fmt.Errorf("--app: %w", err)
		}
	}
	// Printed once the app of --app is registered, so that a script
	// waiting for this line finds its sync.
	fmt.Fprintf(stdout, "appkit host: listening on http://%s (admin %s)\n", ln.Addr(), h.Admin().Email)
	fmt.Fprintf(stdout, "appkit host: the web console is at http://%s/ (sign in as %s)\n", ln.Addr(), h.Admin().Email)
	if o.demo {
		stopDemo, err := startDemo(ctx, st, svc, ln.Addr().String(), o.token, stdout, stderr)
		if err != nil {
			return err
		}
		defer stopDemo()
	}

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	stopSched()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(stdout, "appkit host: stopped")
	return nil
}

// guardLoopback wraps the host's handler when ln listens on a loopback
// address only: requests must then name the host by a loopback name and
// its port, or by the host name of publicURL (a reverse proxy's, a
// tunnel's); others are answered 421, so that a page of another site
// cannot reach the host through a browser by DNS rebinding.
func guardLoopback(h http.Handler, ln net.Listener, publicURL string) http.Handler {
	if !loopback.Only(ln.Addr()) {
		return h
	}
	var also []string
	if u, err := url.Parse(publicURL); err == nil && u.Hostname() != "" {
		also = append(also, u.Hostname())
	}
	return loopback.Guard(h, ln.Addr().(*net.TCPAddr).Port, also...)
}
