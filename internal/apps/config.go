package apps

import (
	"cmp"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/internal/netguard"
	"github.com/appkitgo/appkit/internal/problems"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// Defaults of [Config].
const (
	DefaultLeaseTTL       = 30 * time.Second
	DefaultPoll           = time.Second
	DefaultWorkers        = 2
	DefaultPauseDelay     = time.Minute
	DefaultKeepExchanges  = 10
	DefaultRequestTimeout = 60 * time.Second
	// DefaultKeepActionRuns is the number of latest action runs kept per
	// app.
	DefaultKeepActionRuns = 1000
	// MinEvery is the shortest schedule a sync may have.
	MinEvery = time.Second
	// MaxEvery is the longest.
	MaxEvery = 366 * 24 * time.Hour
	// MinLeaseTTL is the shortest lease (it is renewed every third of it).
	MinLeaseTTL = 30 * time.Millisecond
)

// ErrConfig reports a Config that [New] cannot start with (wrapped with
// what is wrong).
var ErrConfig = errors.New("apps: invalid configuration")

// Config configures a [Service]. Store and a key (Key or KeyText) are
// required; [Config.WithDefaults] fills in the rest, and [New] validates
// the result. The service reads no environment variable: the command
// that starts it passes everything here.
type Config struct {
	// Store is the host's opened store.
	Store *store.Store
	// Key seals account secrets (KeySize bytes).
	Key []byte
	// KeyText is the key as written (KeySize bytes in base64 or hex, as in
	// a key file or an environment variable; see ParseKey), used when Key
	// is empty.
	KeyText string
	// HostID names this process in leases and runs (default: a random id).
	HostID string
	// BaseURL is the host's own address as apps and browsers reach it
	// (http://host:port): webhook event URLs and the OAuth callback page
	// are made from it (SetBaseURL changes it later).
	BaseURL string
	// Networks is the policy of the addresses the service may call apps at
	// (the zero Policy: DefaultNetworks). It is enforced on the address
	// actually dialled, after name resolution and on every redirect, by
	// the client the service makes when HTTPClient is nil; that client
	// uses no proxy unless the policy is netguard.Any.
	Networks netguard.Policy
	// HTTPClient calls the apps (nil: a client that enforces Networks and
	// reads at most 80 KiB of an answer's header); a given client is used
	// as it is.
	HTTPClient *http.Client
	// Engine holds the engine's options every run starts from (its run
	// bounds, say); the service sets the app, account, selection, client,
	// timeout and logging of each run over them.
	Engine syncer.Options
	// Observer, when set, is told about every run that ends and every page
	// a run writes (the host's metrics).
	Observer Observer
	// RequestTimeout bounds one call to an app (0: DefaultRequestTimeout).
	RequestTimeout time.Duration
	// Retry is the engine's policy for failures that may pass (zero: the
	// engine's default).
	Retry syncer.Retry
	// CommitItems bounds a batch of pages the engine commits together (0:
	// the engine's default).
	CommitItems int
	// LeaseTTL is how long a lease lasts unless renewed (0:
	// DefaultLeaseTTL; at least MinLeaseTTL); it is renewed every third of
	// it.
	LeaseTTL time.Duration
	// Poll is how often the scheduler looks for due syncs (0: DefaultPoll).
	Poll time.Duration
	// Workers is the number of syncs one process runs at once (0:
	// DefaultWorkers). Besides them, one more worker only applies webhook
	// events, so that runs never keep events waiting.
	Workers int
	// MaxRunsPerApp is the most syncs of one app that one process runs at
	// once (0: half of Workers, rounded up; at most Workers): an app whose
	// syncs are slow delays only its own, the other workers stay for other
	// apps, whose due syncs are claimed before more of an app already
	// running.
	MaxRunsPerApp int
	// PauseDelay is when a run paused by an app that kept failing is
	// resumed (0: DefaultPauseDelay).
	PauseDelay time.Duration
	// KeepExchanges is the number of latest runs per sync whose exchanges
	// with the app are kept (0: DefaultKeepExchanges).
	KeepExchanges int
	// KeepActionRuns is the number of latest action runs per app the
	// action history keeps (0: DefaultKeepActionRuns).
	KeepActionRuns int
	// UpstreamBodies asks the apps for the bodies of the calls they make
	// to their upstream APIs, besides the calls themselves (method, URL,
	// status, time, size), on every call of a run, an action or a webhook
	// event: each exchange then keeps them (at most 2 KiB each, masked).
	// For a developer's host (appkit dev); the console's test read always
	// asks for them.
	UpstreamBodies bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Logger receives what the scheduler does; never a secret.
	Logger zerolog.Logger
}

// WithDefaults returns a copy of c with every unset (zero) setting given
// its default: HostID, RequestTimeout, LeaseTTL, Poll, Workers,
// MaxRunsPerApp (from Workers), PauseDelay, KeepExchanges, KeepActionRuns,
// Networks, HTTPClient (a client that enforces Networks) and Now. Set values are kept as they are, even invalid ones,
// for validate to refuse.
func (c Config) WithDefaults() Config {
	if c.HostID == "" {
		b := make([]byte, 6)
		rand.Read(b)
		c.HostID = "host-" + base64.RawURLEncoding.EncodeToString(b)
	}
	c.RequestTimeout = cmp.Or(c.RequestTimeout, DefaultRequestTimeout)
	c.LeaseTTL = cmp.Or(c.LeaseTTL, DefaultLeaseTTL)
	c.Poll = cmp.Or(c.Poll, DefaultPoll)
	c.Workers = cmp.Or(c.Workers, DefaultWorkers)
	c.MaxRunsPerApp = cmp.Or(c.MaxRunsPerApp, (c.Workers+1)/2)
	c.PauseDelay = cmp.Or(c.PauseDelay, DefaultPauseDelay)
	c.KeepExchanges = cmp.Or(c.KeepExchanges, DefaultKeepExchanges)
	c.KeepActionRuns = cmp.Or(c.KeepActionRuns, DefaultKeepActionRuns)
	if c.Networks.IsZero() {
		c.Networks = DefaultNetworks
	}
	if c.HTTPClient == nil {
		c.HTTPClient = guardedClient(c.Networks)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c
}

// validate checks a Config after WithDefaults and returns the key to seal
// with; every error wraps ErrConfig.
func (c Config) validate() ([]byte, error) {
	var bad problems.List
	if c.Store == nil {
		bad.Add("Store is required")
	}
	key := c.Key
	switch {
	case len(key) > 0 && c.KeyText != "":
		bad.Add("give Key or KeyText, not both")
	case len(key) > 0:
		if len(key) != KeySize {
			bad.Add("the secret key has %d bytes, want %d", len(key), KeySize)
		}
	case c.KeyText != "":
		k, err := ParseKey(c.KeyText)
		if err != nil {
			bad.Add("KeyText: %w", err)
		}
		key = k
	default:
		bad.Add("a secret key (Key or KeyText) is required")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
		min  time.Duration
	}{
		{"RequestTimeout", c.RequestTimeout, time.Millisecond},
		{"LeaseTTL", c.LeaseTTL, MinLeaseTTL},
		{"Poll", c.Poll, time.Millisecond},
		{"PauseDelay", c.PauseDelay, time.Millisecond},
	} {
		if d.v < d.min {
			bad.Add("%s is %s, want at least %s", d.name, d.v, d.min)
		}
	}
	if c.Workers < 1 {
		bad.Add("Workers is %d, want at least 1", c.Workers)
	}
	if c.MaxRunsPerApp < 1 || c.MaxRunsPerApp > max(c.Workers, 1) {
		bad.Add("MaxRunsPerApp is %d, want 1 to Workers (%d)", c.MaxRunsPerApp, c.Workers)
	}
	if c.KeepExchanges < 1 {
		bad.Add("KeepExchanges is %d, want at least 1", c.KeepExchanges)
	}
	if c.KeepActionRuns < 1 {
		bad.Add("KeepActionRuns is %d, want at least 1", c.KeepActionRuns)
	}
	if c.CommitItems < 0 {
		bad.Add("CommitItems is %d, want 0 (the engine's default) or more", c.CommitItems)
	}
	if err := bad.Err(ErrConfig); err != nil {
		return nil, err
	}
	return key, nil
}
