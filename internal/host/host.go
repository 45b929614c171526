// Package host wires the HTTP surface of the embedded workspace host: the
// command API, the per-space GraphQL API, documents, the apps service,
// sign-in and tokens, with authentication, rate
// limits, size limits, timeouts, panic recovery and one log line per request.
//
// Routes:
//
//	POST   /api/login              {email, password} → session cookie (401 on bad credentials)
//	POST   /api/logout             ends the session, clears the cookie (204)
//	GET    /api/tokens             the user's tokens [{id, name, created-at, last-used-at}]  (cookie only)
//	POST   /api/tokens             {name?} → {id, name, created-at, last-used-at, value}      (cookie only)
//	DELETE /api/tokens/<id>        204, 404 when the user has no such token                 (cookie only)
//	POST   /api/commands           the command API (internal/commands)        (Authorization: Token <token>)
//	GET    /api/documents/<secret> ?format=md|html|json (internal/documents)  (Authorization: Token <token>)
//	PUT    /api/documents/<secret> {"content": "..."}                         (Authorization: Token <token>)
//	POST   /api/graphql/space/<s>  the space's GraphQL API (internal/graphql)  (Authorization: Token <token>)
//	GET    /api/graphql/space/<s>  the GraphiQL IDE page; GET /api/graphql lists the spaces' endpoints
//	       /api/apps/...           apps, accounts, syncs (run now, cancel), runs, actions, webhook events
//	                               (internal/apps; see mountApps)
//	       /api/...                anything else: 404 {message}
//	GET    /healthz                200 "ok": the process serves (no token; see health.go)
//	GET    /readyz                 200 "ready" when the store answers a ping within 1 s, else 503 with
//	                               a one-line reason (no token)
//	GET    /                       the web console (internal/console): every path outside /api/
//
// The token endpoints accept only the session cookie, as the protocol says: an
// Authorization header there is ignored, so a token alone gets 401. The
// command and document endpoints accept only the token: 401 without a valid
// one. Beyond the limit of requests per second per token, or the optional
// limit over all tokens of the workspace, they answer 429 with Retry-After and
// a message naming the limit that was hit. Every error is JSON
// {"message": "..."} (the command API answers its own {success, result}
// shapes).
//
// Guessing is throttled per client address (an IPv6 address with its /64):
// sign-in attempts (all of them), invalid API tokens, and webhook events
// that are refused or name no sync each get a burst of 10 and then one per
// second, in three separate limiters (anonymous event POSTs never lock a
// valid token out); beyond that the address gets 429 with Retry-After,
// without its credentials being checked, until the bucket refills. A valid
// token is not counted. The client's address is the connection's peer,
// or, behind one of Config.TrustedProxies, the one it forwarded in
// X-Forwarded-For; no forwarded header is believed otherwise. Sign-in is
// also bounded per account, from any address: after 5 failures each
// attempt waits 1 s, then twice as long after each further failure, up to
// 30 s (429 with Retry-After, the password not checked; a delay, never a
// lock-out), and the host runs at most half its CPUs' worth of password
// checks at once (503 with Retry-After when too many wait). A
// webhook event is counted before the app is asked to verify it (and given
// back unless it was refused), and at most 4 events of one address and 8 of
// one sync are handled at once (429 beyond, without reading the body or
// calling the app), so that events sent at once cannot outrun the count.
//
// Requests that sign in or act on the session cookie and change state are
// refused (403) when their Origin header is not the host's own origin: the
// same scheme (https when the request came over TLS, else http), host and
// port (80 and 443 when absent). The cookie is SameSite=Lax, HttpOnly, and
// Secure over TLS.
//
// Logged paths never hold a document secret: anything shaped like a UUID
// (32 hex digits, hyphens optional, any case), wherever it is in the path,
// is logged as <secret>.
//
// The host uses net/http's ServeMux rather than echo: its surface is a few
// routes mounting plain http.Handlers (the command API, documents), and the
// SDK's echo setup is tuned for the app protocol, not for this.
package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"time"

	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/commands"
	"github.com/appkitgo/appkit/internal/console"
	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/httpjson"
	"github.com/appkitgo/appkit/internal/observe"
	"github.com/appkitgo/appkit/internal/problems"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/rs/zerolog"
)

// Defaults of [Config].
const (
	DefaultMaxBody        = 16 << 20
	DefaultRequestTimeout = 60 * time.Second
	// SessionCookie is the name of the sign-in cookie.
	SessionCookie = "appkit_session"
	maxSmallBody  = 16 << 10 // login and token bodies
)

// Config configures a [Host]. Only Store is required; the zero value of every
// other field works (no rate limits, a generated admin password, no logs).
// [Config.WithDefaults] fills in what is unset, and [New] validates the
// result.
type Config struct {
	// Store is the opened store; the host does not close it.
	Store *store.Store
	// RateLimit is the number of requests per second per token on the
	// command and document endpoints; 0 means no limit. The service's limit
	// is auth.DefaultRate (3).
	RateLimit float64
	// RateBurst is how many requests a token may send at once; 0 means
	// ceil(RateLimit).
	RateBurst int
	// WorkspaceRateLimit is a limit over all tokens together (the service
	// has 7 per second); 0 means none. It applies only when RateLimit is on.
	WorkspaceRateLimit float64
	// AdminEmail and AdminPassword configure the admin user (see
	// auth.Service.EnsureAdmin). An empty password on first start is
	// generated and written once to Notice. A new password ends the
	// admin's sessions; a new e-mail replaces the admin (the previous one
	// is removed with its sessions and tokens); Notice says so.
	AdminEmail    string
	AdminPassword string
	// Token, when set, is registered as an API token of the admin at start
	// (idempotent across restarts).
	Token string
	// TokenName is the name Token is registered under ("" for "--token",
	// the flag of appkit host that gives it).
	TokenName string
	// Logger receives one line per request and the errors; secrets (token
	// values, cookies, document secrets) are never logged.
	Logger zerolog.Logger
	// Notice receives the one-time message with a generated admin password
	// (and the admin's changes); nil discards it, so a command that starts
	// the host passes its standard error.
	Notice io.Writer
	// PasswordCost is the bcrypt cost (0: bcrypt's default; tests use 4).
	PasswordCost int
	// SessionTTL is how long a sign-in lasts (0: auth.DefaultSessionTTL;
	// negative is refused).
	SessionTTL time.Duration
	// MaxBody limits request bodies of the command endpoint in bytes (0:
	// DefaultMaxBody; negative is refused); document bodies are limited to the smaller of this and
	// documents.DefaultMaxBody.
	MaxBody int64
	// RequestTimeout bounds the handling of one request (0:
	// DefaultRequestTimeout; negative is refused).
	RequestTimeout time.Duration
	// Now is the clock of the rate limits and throttles (nil: time.Now;
	// tests stop it so that a slow machine cannot refill a bucket).
	Now func() time.Time
	// TrustedProxies are the reverse proxies whose X-Forwarded-For the
	// host believes (see ParseTrustedProxies): a request from one of them
	// is counted against the client address it forwarded. Empty, the
	// default, trusts no forwarded header: every request counts against
	// the address it came from (behind a proxy, the proxy's).
	TrustedProxies []netip.Prefix
	// GraphQLAllowPrivateURLs lets GraphQL's addFileFromUrl reach loopback,
	// private and other non-public addresses (a host on a private network
	// that trusts its users); off, it refuses them.
	GraphQLAllowPrivateURLs bool
	// Apps configures the apps service (registered apps, accounts,
	// scheduled syncs, webhooks, actions); see apps.go.
	Apps AppsConfig
	// Observe, when set, counts the requests by route family and status
	// (see internal/observe); nil counts nothing.
	Observe *observe.Host
}

// ErrConfig reports a Config that [New] cannot start with (wrapped with
// every problem found).
var ErrConfig = errors.New("host: invalid configuration")

// WithDefaults returns a copy of c with every unset (zero) setting given
// its default: MaxBody, RequestTimeout, Notice (io.Discard) and Now. Set
// values are kept as they are, even invalid ones, for validate to refuse.
func (c Config) WithDefaults() Config {
	c.MaxBody = cmp.Or(c.MaxBody, DefaultMaxBody)
	c.RequestTimeout = cmp.Or(c.RequestTimeout, DefaultRequestTimeout)
	if c.Notice == nil {
		c.Notice = io.Discard
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// validate checks a Config after WithDefaults and reports every problem at
// once, wrapped in ErrConfig.
func (c Config) validate() error {
	var bad problems.List
	if c.Store == nil {
		bad.Add("Store is required")
	}
	if c.RateLimit < 0 || c.WorkspaceRateLimit < 0 {
		bad.Add("negative rate limit %v/%v", c.RateLimit, c.WorkspaceRateLimit)
	}
	if c.RateBurst < 0 {
		bad.Add("RateBurst is %d, want 0 (from RateLimit) or more", c.RateBurst)
	}
	if c.MaxBody < 1 {
		bad.Add("MaxBody is %d, want at least 1", c.MaxBody)
	}
	if c.RequestTimeout < time.Millisecond {
		bad.Add("RequestTimeout is %s, want at least 1ms", c.RequestTimeout)
	}
	if c.SessionTTL < 0 {
		bad.Add("SessionTTL is %s, want 0 (the default) or more", c.SessionTTL)
	}
	if c.Token != "" {
		if err := auth.ValidateTokenValue(c.Token); err != nil {
			bad.Add("the start-up token: %w", err)
		}
	}
	if c.AdminPassword != "" {
		if err := auth.ValidatePassword(c.AdminPassword); err != nil {
			bad.Add("the admin password: %w", err)
		}
	}
	return bad.Err(ErrConfig)
}

// Host is the workspace host's HTTP handler.
type Host struct {
	cfg     Config
	log     zerolog.Logger
	auth    *auth.Service
	admin   auth.User
	limiter *auth.Limiter
	logins  *auth.Limiter
	// badTokens counts invalid API tokens per client address.
	badTokens *auth.Limiter
	// events admits webhook events per client address and sync (apart:
	// anonymous event POSTs must not lock a valid token out).
	eventGate *eventGate
	docs      *documents.Handler
	commands  http.Handler
	console   http.Handler
	handler   http.Handler
}

// New prepares the host on an opened store: it creates the host's tables,
// makes sure the admin user exists, registers cfg.Token, and builds the
// routes.
func New(ctx context.Context, cfg Config) (*Host, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	db, dialect := cfg.Store.DB(), cfg.Store.Dialect()
	svc, err := auth.New(ctx, db, dialect, auth.Options{PasswordCost: cfg.PasswordCost, SessionTTL: cfg.SessionTTL,
		Throttle: auth.NewAccountThrottle(auth.AccountThrottleOptions{Now: cfg.Now})})
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	docStore, err := documents.NewStore(ctx, db, dialect)
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	setup, err := svc.EnsureAdmin(ctx, cfg.AdminEmail, cfg.AdminPassword)
	if err != nil {
		return nil, fmt.Errorf("host: admin user: %w", err)
	}
	admin := setup.User
	adminNotice(cfg.Notice, setup)
	if cfg.Token != "" {
		name := cfg.TokenName
		if name == "" {
			name = "--token"
		}
		if _, err := svc.RegisterToken(ctx, admin.ID, cfg.Token, name); err != nil {
			return nil, fmt.Errorf("host: register the start-up token: %w", err)
		}
	}
	cmds := commands.New(cfg.Store)
	h := &Host{
		cfg:       cfg,
		log:       cfg.Logger,
		auth:      svc,
		admin:     admin,
		commands:  cmds,
		logins:    auth.NewLimiter(1, auth.LimiterOptions{Burst: 10, Now: cfg.Now}),
		badTokens: auth.NewLimiter(1, auth.LimiterOptions{Burst: 10, Now: cfg.Now}),
		eventGate: newEventGate(cfg.Now),
	}
	// Clients get platform.error/internal only; the cause goes to the log.
	cmds.InternalError = func(ctx context.Context, command string, err error) {
		h.log.Error().Err(err).Str("command", command).Msg("command failed internally")
	}
	if cfg.RateLimit > 0 {
		h.limiter = auth.NewLimiter(cfg.RateLimit, auth.LimiterOptions{Burst: cfg.RateBurst, Workspace: cfg.WorkspaceRateLimit, Now: cfg.Now})
	}
	docLimit := int64(documents.DefaultMaxBody)
	if cfg.MaxBody < docLimit {
		docLimit = cfg.MaxBody
	}
	h.docs = &documents.Handler{
		Store:   docStore,
		Exists:  cfg.Store.DocumentSecretExists,
		MaxBody: docLimit,
		OnError: func(r *http.Request, err error) { h.logError(r, err) },
		// A client's share of the conversion slots is its API token's,
		// known once withToken has run.
		ClientKey: func(r *http.Request) string {
			if ri := info(r.Context()); ri != nil && ri.tokenID != "" {
				return "token:" + ri.tokenID
			}
			return documents.DefaultClientKey(r)
		},
	}
	cons, err := console.New(console.Config{Auth: svc, Apps: cfg.Apps.Service, Store: cfg.Store, Documents: docStore,
		SessionCookie: SessionCookie, GraphQLPath: graphqlPrefix + "/space/", OnError: h.logError,
		AllowSignIn: func(r *http.Request) (bool, time.Duration) { return h.logins.Allow(limitKey(clientIP(r))) }})
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	h.console = cons
	if h.handler, err = h.routes(); err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	return h, nil
}

// adminNotice tells the operator what EnsureAdmin did that they must know:
// a password generated (shown this once), the previous admins removed by
// a new admin e-mail, the sessions a new admin password ended.
func adminNotice(w io.Writer, setup auth.AdminSetup) {
	for _, old := range setup.Replaced {
		fmt.Fprintf(w, "appkit host: the admin e-mail is now %s: the previous admin %s was removed, with its sessions and API tokens (it can no longer sign in)\n",
			setup.User.Email, old.Email)
	}
	if setup.Generated != "" {
		fmt.Fprintf(w, "appkit host: created the admin user %s with the password %s\n"+
			"appkit host: it is shown only this once; sign in with POST /api/login and create API tokens with POST /api/tokens\n",
			setup.User.Email, setup.Generated)
	}
	if setup.PasswordChanged {
		fmt.Fprintf(w, "appkit host: the admin password of %s changed: %d of its sessions were ended (API tokens stay)\n",
			setup.User.Email, setup.EndedSessions)
	}
}

// ServeHTTP implements http.Handler.
func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.handler.ServeHTTP(w, r) }

// Admin is the admin user made sure of at start.
func (h *Host) Admin() auth.User { return h.admin }

// Auth is the users, sessions and tokens service (for the CLI and tests).
func (h *Host) Auth() *auth.Service { return h.auth }

func (h *Host) routes() (http.Handler, error) {
	mux := http.NewServeMux()
	mux.Handle("/api/login", methods(h.sameOrigin(http.HandlerFunc(h.login)), http.MethodPost))
	mux.Handle("/api/logout", methods(h.sameOrigin(http.HandlerFunc(h.logout)), http.MethodPost))
	mux.Handle("/api/tokens", methods(h.withSession(h.sameOrigin(http.HandlerFunc(h.tokens))), http.MethodGet, http.MethodPost))
	mux.Handle("/api/tokens/{id}", methods(h.withSession(h.sameOrigin(http.HandlerFunc(h.deleteToken))), http.MethodDelete))
	mux.Handle("/api/commands", methods(h.withToken(h.admitQueries(h.limitBody(h.commands))), http.MethodPost))
	mux.Handle("/api/documents/{secret}", methods(h.withToken(h.docs), http.MethodGet, http.MethodPut))
	if err := h.mountGraphQL(mux); err != nil {
		return nil, err
	}
	h.mountApps(mux)
	h.mountHealth(mux)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		httpjson.Message(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+redactPath(r.URL.Path))
	})
	// Everything outside /api/ is the web console (internal/console).
	mux.Handle("/", h.console)
	return h.cfg.Observe.Middleware(h.logRequests(h.recoverPanics(h.timeout(mux)))), nil
}
