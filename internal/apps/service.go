package apps

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
)

// Service is the apps service, made of one part per job, each a type of
// its own that depends only on the parts listed before it:
//
//   - [Registry]: the registered apps and their sealed accounts;
//   - [Webhooks]: installing, deleting and receiving the syncs' webhooks;
//   - [SyncService]: the syncs, their runs and cancelling them;
//   - [Scheduler]: the due syncs, leased and run;
//   - [OAuthSetup]: connecting OAuth accounts;
//   - [Actions]: running actions.
//
// Each part is a field of the Service, named after its type; the host
// mounts its API on the parts. It is safe for concurrent use.
type Service struct {
	Registry    *Registry
	Webhooks    *Webhooks
	SyncService *SyncService
	Scheduler   *Scheduler
	OAuthSetup  *OAuthSetup
	Actions     *Actions

	core *core
}

// New prepares the service on an opened store (whose migrations made its
// tables): cfg
// is completed with [Config.WithDefaults] and validated (an error wrapping
// ErrConfig says every setting that is wrong).
func New(ctx context.Context, cfg Config) (*Service, error) {
	cfg = cfg.WithDefaults()
	key, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	seal, err := newSealer(key)
	if err != nil {
		return nil, err
	}
	c := newCore(cfg, seal)
	hist := &history{c}
	held := newHoldings()
	reg := &Registry{core: c}
	hooks := &Webhooks{core: c, reg: reg, hist: hist}
	syncs := &SyncService{core: c, reg: reg, hooks: hooks, hist: hist, held: held}
	return &Service{
		Registry:    reg,
		Webhooks:    hooks,
		SyncService: syncs,
		Scheduler:   &Scheduler{core: c, reg: reg, hooks: hooks, syncs: syncs, hist: hist, held: held},
		OAuthSetup:  &OAuthSetup{core: c, reg: reg},
		Actions:     &Actions{core: c, reg: reg},
		core:        c,
	}, nil
}

// HostID is the name of this process in leases and runs.
func (s *Service) HostID() string { return s.core.HostID() }

// SetBaseURL sets the host's own address (once it is listening).
func (s *Service) SetBaseURL(u string) { s.core.SetBaseURL(u) }

// BaseURL is the host's own address, "" when unknown.
func (s *Service) BaseURL() string { return s.core.BaseURL() }

// BaseURLFor is the host's own address: BaseURL when known, else the
// address r was sent to (its scheme and Host).
func (s *Service) BaseURLFor(r *http.Request) string {
	if b := s.BaseURL(); b != "" {
		return b
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// Wake makes the scheduler look for due syncs now.
func (s *Service) Wake() { s.core.Wake() }

// DeleteApp removes an app, its syncs (see DeleteSync) and accounts. The
// synchronized data stays in the store.
func (s *Service) DeleteApp(ctx context.Context, id string) ([]string, error) {
	if _, err := s.Registry.App(ctx, id); err != nil {
		return nil, err
	}
	var warns []string
	syncs, err := s.SyncService.Syncs(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, sy := range syncs {
		w, err := s.SyncService.DeleteSync(ctx, sy.ID)
		if err != nil {
			return warns, err
		}
		warns = append(warns, w...)
	}
	err = s.core.tx(ctx, func(tx *sql.Tx) error {
		return s.core.on(tx).deleteApp(ctx, id)
	})
	if err != nil {
		return warns, fmt.Errorf("delete the app: %w", err)
	}
	return warns, nil
}
