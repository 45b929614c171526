package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/netguard"
	"github.com/appkitgo/appkit/internal/observe"
	"github.com/appkitgo/appkit/internal/store"
)

// defaultEvery is the schedule of a sync set up by --app without --every.
const defaultEvery = "15m"

// appsSetup is what sets the apps service of "appkit host" and "appkit
// dev" apart.
type appsSetup struct {
	// networks is the address policy of the calls to apps.
	networks netguard.Policy
	// obs counts and traces the runs and the calls to apps (nil: none).
	obs *observe.Host
	// upstreamBodies asks the apps for the bodies of their upstream calls
	// (apps.Config.UpstreamBodies): a developer's own host, not a shared
	// one.
	upstreamBodies bool
}

// startApps opens the apps service of a host on st (see appsConfig); nil
// (the apps API off, with a notice) when there is no key to use.
func startApps(ctx context.Context, st *store.Store, dsn, base string, set appsSetup, log zerolog.Logger, stderr io.Writer) (*apps.Service, error) {
	cfg, ok, err := appsConfig(st, dsn, base, set, log, stderr)
	if err != nil || !ok {
		return nil, err
	}
	svc, err := apps.New(ctx, cfg)
	if err == nil && set.obs != nil {
		set.obs.WatchScheduler(svc.Scheduler.State)
	}
	return svc, err
}

// appsConfig is the apps config of a host on st with the secret key of the
// environment, else of the key file beside a SQLite file store (a key of
// its own for a store in memory); ok is false, with a notice on stderr,
// when there is no key to use.
func appsConfig(st *store.Store, dsn, base string, set appsSetup, log zerolog.Logger, stderr io.Writer) (cfg apps.Config, ok bool, err error) {
	keyFile := ""
	if p, ok := strings.CutPrefix(dsn, "sqlite:"); ok && p != ":memory:" {
		keyFile = p + ".key"
	}
	key, err := loadSecretKey(os.Getenv, keyFile)
	if errors.Is(err, errNoKey) && dsn == "sqlite::memory:" {
		key, err = make([]byte, apps.KeySize), nil
		rand.Read(key) // gone with the store at exit
	}
	if errors.Is(err, errNoKey) {
		fmt.Fprintf(stderr, "appkit host: the apps API is off: %v\n", err)
		return apps.Config{}, false, nil
	}
	if err != nil {
		return apps.Config{}, false, err
	}
	cfg = apps.Config{Store: st, Key: key, BaseURL: base, Networks: set.networks, UpstreamBodies: set.upstreamBodies,
		Logger: log.With().Str("component", "apps").Logger()}
	if set.obs != nil {
		// The runs are counted and traced, their calls to apps too (the
		// client that enforces Networks, wrapped).
		cfg = cfg.WithDefaults()
		cfg.HTTPClient = set.obs.Client(cfg.HTTPClient)
		cfg.Engine.Tracer = set.obs.Tracer()
		cfg.Observer = set.obs
	}
	return cfg, true, nil
}

// runScheduler runs the apps' scheduler of svc (nothing when svc is nil)
// until ctx ends or stop is called; stop returns once the scheduler has
// ended, and may be called more than once.
func runScheduler(ctx context.Context, svc *apps.Service) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	scheduled := make(chan struct{})
	if svc != nil {
		go func() { defer close(scheduled); svc.Scheduler.Schedule(ctx) }()
	} else {
		close(scheduled)
	}
	return func() { cancel(); <-scheduled }
}

// keepApp registers the app of --app, sets up or updates its account and
// its sync, and queues a first run.
func keepApp(ctx context.Context, svc *apps.Service, url, auth string, account map[string]string, every string, stdout io.Writer) error {
	app, err := svc.Registry.RegisterApp(ctx, url)
	if err != nil {
		return err
	}
	for _, w := range app.Warnings {
		fmt.Fprintf(stdout, "appkit host: %s: warning: %s\n", app.Name, w)
	}
	syncs, err := svc.SyncService.Syncs(ctx, app.ID)
	if err != nil {
		return err
	}
	var sy *apps.Sync
	if len(syncs) > 0 {
		sy = syncs[0]
	}
	var accountID string
	var existing *apps.Account
	if sy != nil {
		if existing, err = svc.Registry.Account(ctx, sy.AccountID); err != nil {
			return err
		}
	}
	switch {
	case existing != nil && len(account) == 0 && (auth == "" || auth == existing.Auth):
		accountID = existing.ID
	case existing != nil && (auth == "" || auth == existing.Auth):
		// New values for the sync's account: merged and validated again.
		fields, err := apps.TypedFields(app.Descriptor, existing.Auth, account)
		if err != nil {
			return err
		}
		acc, err := svc.Registry.UpdateAccount(ctx, existing.ID, fields)
		if err != nil {
			return err
		}
		accountID = acc.ID
		fmt.Fprintf(stdout, "appkit host: %s: account %q updated (%s)\n", app.Name, acc.Name, acc.ID)
	default:
		pick := auth
		if pick == "" && len(app.Descriptor.Authentication) == 1 {
			pick = app.Descriptor.Authentication[0].ID
		}
		fields, err := apps.TypedFields(app.Descriptor, pick, account)
		if err != nil {
			return err
		}
		acc, err := svc.Registry.CreateAccount(ctx, app.ID, auth, fields)
		if err != nil {
			return err
		}
		accountID = acc.ID
		fmt.Fprintf(stdout, "appkit host: %s: account %q set up (%s)\n", app.Name, acc.Name, acc.ID)
	}
	if sy == nil {
		e := every
		if e == "" {
			e = defaultEvery
		}
		if sy, err = svc.SyncService.CreateSync(ctx, apps.SyncSpec{App: app.ID, Account: accountID, Every: &e}); err != nil {
			return err
		}
	} else {
		spec := apps.SyncSpec{Account: accountID}
		if every != "" {
			spec.Every = &every
		}
		if sy, err = svc.SyncService.UpdateSync(ctx, sy.ID, spec); err != nil {
			return err
		}
		if existing != nil && existing.ID != accountID {
			// The account of another authentication replaced it.
			if err := svc.Registry.DeleteAccount(ctx, existing.ID); err != nil {
				fmt.Fprintf(stdout, "appkit host: %s: the replaced account %s stays: %v\n", app.Name, existing.ID, err)
			}
		}
	}
	run, err := svc.SyncService.RunNow(ctx, sy.ID)
	if err != nil {
		return err
	}
	sched := sy.Every
	if sched == "" {
		sched = "on demand"
	} else {
		sched = "every " + sched
	}
	fmt.Fprintf(stdout, "appkit host: %s (app %s) synchronized %s and on webhook events: sync %s, run %s queued\n", app.Name, app.ID, sched, sy.ID, run.ID)
	return nil
}
