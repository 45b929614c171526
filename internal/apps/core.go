package apps

import (
	"database/sql"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/appkitgo/appkit/internal/calllog"
	"github.com/appkitgo/appkit/internal/netguard"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/google/uuid"
	"github.com/rs/zerolog"
)

// core is what every part of the service shares: the configuration, the
// store and its database, the sealer, the clock, the logger, the host's
// own address and the scheduler's wake-up signal.
type core struct {
	cfg  Config
	st   *store.Store
	db   *sql.DB
	d    store.Dialect
	seal *sealer
	log  zerolog.Logger
	now  func() time.Time
	wake chan struct{}

	mu      sync.Mutex
	baseURL string

	// progress is the engine's progress of the runs in progress here.
	progress progressBoard
}

// newCore prepares the shared part from a validated Config.
func newCore(cfg Config, seal *sealer) *core {
	return &core{cfg: cfg, st: cfg.Store, db: cfg.Store.DB(), d: cfg.Store.Dialect(), seal: seal,
		log: cfg.Logger, now: cfg.Now, wake: make(chan struct{}, 1), baseURL: cfg.BaseURL}
}

// HostID is the name of this process in leases and runs.
func (s *core) HostID() string { return s.cfg.HostID }

// SetBaseURL sets the host's own address (once it is listening).
func (s *core) SetBaseURL(u string) {
	s.mu.Lock()
	s.baseURL = strings.TrimRight(u, "/")
	s.mu.Unlock()
}

// BaseURL is the host's own address, "" when unknown.
func (s *core) BaseURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.baseURL
}

// Wake makes the scheduler look for due syncs now.
func (s *core) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func newID() string { return uuid.NewString() }

// DefaultNetworks is the policy of Config.Networks when none is given:
// public, private and loopback addresses (apps on the developer's machine
// or network register), never link-local (cloud metadata) or reserved
// ones.
var DefaultNetworks = netguard.Local

// maxAnswerHeader bounds the header of an app's answer that the service's
// client reads: the largest report of upstream calls the host reads
// (calllog.MaxHeaderRead) and room for the other fields. A larger header
// fails the call before it is read into memory (the transport's default
// bound is 10 MB).
const maxAnswerHeader = calllog.MaxHeaderRead + 16<<10

// guardedClient calls apps only at addresses the policy allows, reading
// at most maxAnswerHeader bytes of an answer's header.
func guardedClient(p netguard.Policy) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxResponseHeaderBytes = maxAnswerHeader
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: p.Control}
	tr.DialContext = d.DialContext
	if p != netguard.Any {
		// Through a proxy, the address dialled would be the proxy's.
		tr.Proxy = nil
	}
	return &http.Client{Transport: tr}
}

// engineOptions are the options of a call of the engine: Config.Engine
// with the service's client, timeout, retry policy and batch size.
func (s *core) engineOptions(appURL string) syncer.Options {
	o := s.cfg.Engine
	o.AppURL, o.HTTPClient, o.RequestTimeout = appURL, s.cfg.HTTPClient, s.cfg.RequestTimeout
	if s.cfg.Retry.Attempts != 0 {
		o.Retry = s.cfg.Retry
	}
	if s.cfg.CommitItems != 0 {
		o.CommitItems = s.cfg.CommitItems
	}
	return o
}
