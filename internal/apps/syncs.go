package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/appkitgo/appkit/daterange"
	"github.com/appkitgo/appkit/internal/syncer"
)

// SyncService keeps the syncs of the apps (their account, types, filter
// and schedule) and their runs: it queues, lists and cancels runs; the
// Scheduler runs them.
type SyncService struct {
	*core
	reg   *Registry
	hooks *Webhooks
	hist  *history
	held  *holdings

	// beforeUpdateWrite, when set (by tests), runs in UpdateSync between
	// reading the sync and writing the change.
	beforeUpdateWrite func()
}

// Sync is a synchronization of an app's types into the store with one
// account, on a schedule.
type Sync struct {
	// ID identifies the sync.
	ID string `json:"id"`
	// AppID and AccountID name the app and the account.
	AppID     string `json:"app"`
	AccountID string `json:"account"`
	// Space is the namespace of the store that the sync owns: its types,
	// entities and the engine's state ("tracker": tracker/task). The first
	// sync of an app gets the app's space, the next ones the app's space
	// and a number ("tracker-2") unless they name one.
	Space string `json:"space"`
	// Types are the app's types (empty: the app's defaults).
	Types []string `json:"types"`
	// Filter holds filter values by filter id (as `appkit sync --filter`).
	Filter map[string][]string `json:"filter"`
	// Every is the schedule ("15m"; "" for runs on demand only).
	Every string `json:"every"`
	// NextAt is when the sync is due next (nil: not scheduled).
	NextAt *time.Time `json:"nextAt"`
	// Webhook is the webhook object the app answered at install (nil: none
	// installed).
	Webhook json.RawMessage `json:"webhook,omitempty"`
	// WebhookTypes are the types the webhook was installed for.
	WebhookTypes []string `json:"webhookTypes,omitempty"`
	// RunID is the run queued, in progress or paused ("" when none).
	RunID string `json:"run,omitempty"`
	// LeaseOwner is the host process working on the sync, until
	// LeaseUntil.
	LeaseOwner string     `json:"leaseOwner,omitempty"`
	LeaseUntil *time.Time `json:"leaseUntil,omitempty"`
	// CreatedAt is when the sync was set up.
	CreatedAt time.Time `json:"createdAt"`

	// sent is the filter as the last successful run sent it (date
	// statements evaluated then; nil before).
	sent map[string]json.RawMessage
	// selection is the types and filter as stored (UpdateSync writes its
	// change only over the selection it read).
	selection string
}

// spaceOf is the sync's space: its own, else (a sync whose app row was
// missing when the store was upgraded) its app's.
func (sy *Sync) spaceOf(a *App) string {
	if sy.Space != "" {
		return sy.Space
	}
	return a.Space
}

// SyncSpec sets up or changes a sync.
type SyncSpec struct {
	// App and Account name the app and account (required to create).
	App     string `json:"app"`
	Account string `json:"account"`
	// Space, when creating, names the sync's space (lower-case letters,
	// digits and dashes, not used by another sync or app); empty picks
	// one. It cannot change.
	Space string `json:"space,omitempty"`
	// Adopt, when creating, lets the sync take over the space it names
	// when the store holds data there that no sync owns (left by `appkit
	// sync`, `appkit host --demo` or a removed sync or app); without it
	// such a space is refused (ErrConflict). A space another sync or app
	// owns is never taken.
	Adopt bool `json:"adopt,omitempty"`
	// Types, when not nil, replace the types.
	Types []string `json:"types"`
	// Filter, when not nil, replaces the filter.
	Filter map[string][]string `json:"filter"`
	// Every, when not nil, replaces the schedule ("" for none).
	Every *string `json:"every"`
}

type selectionDoc struct {
	Types  []string            `json:"types"`
	Filter map[string][]string `json:"filter"`
}

// ParseEvery reads a schedule: a Go duration between MinEvery and
// MaxEvery, or "" for none.
func ParseEvery(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < MinEvery || d > MaxEvery {
		return 0, fmt.Errorf("%w: every %q: want a duration such as 15m or 1h, from %s to %s", ErrInvalid, s, MinEvery, MaxEvery)
	}
	return d, nil
}

// FormatEvery writes a schedule as ParseEvery reads it, without zero units
// ("2h", "1h30m", "15m", "90s").
func FormatEvery(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func checkSelection(types []string, filter map[string][]string) error {
	if len(types) > 100 || len(filter) > 100 {
		return fmt.Errorf("%w: at most 100 types and 100 filters", ErrInvalid)
	}
	for _, t := range types {
		if t == "" || len(t) > 200 {
			return fmt.Errorf("%w: a type id has 1 to 200 bytes", ErrInvalid)
		}
	}
	if len(mustJSON(filter)) > 64<<10 {
		return fmt.Errorf("%w: the filter is larger than 64 KiB", ErrInvalid)
	}
	return nil
}

// CreateSync sets up a sync of an app, which may have any number: each
// owns a space of the store (see Sync.Space); its first run is due at once.
func (s *SyncService) CreateSync(ctx context.Context, spec SyncSpec) (*Sync, error) {
	a, err := s.reg.App(ctx, spec.App)
	if err != nil {
		return nil, err
	}
	acc, _, err := s.reg.account(ctx, spec.Account)
	if err != nil {
		return nil, err
	}
	if acc.AppID != a.ID {
		return nil, fmt.Errorf("%w: account %s belongs to another app", ErrInvalid, acc.ID)
	}
	every := ""
	if spec.Every != nil {
		every = *spec.Every
	}
	d, err := ParseEvery(every)
	if err != nil {
		return nil, err
	}
	if err := checkSelection(spec.Types, spec.Filter); err != nil {
		return nil, err
	}
	if spec.Space != "" && !syncer.ValidSpace(spec.Space) {
		return nil, fmt.Errorf("%w: space %q: want 1 to 60 lower-case letters, digits and dashes", ErrInvalid, spec.Space)
	}
	space, err := s.pickSpace(ctx, a, spec.Space, spec.Adopt)
	if err != nil {
		return nil, fmt.Errorf("create the sync: %w", err)
	}
	now := s.now()
	sy := &Sync{ID: newID(), AppID: a.ID, AccountID: acc.ID, Space: space, Types: spec.Types, Filter: spec.Filter, Every: every, CreatedAt: now.UTC()}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		// Taken meanwhile by another sync or app?
		if owner, err := s.spaceOwner(ctx, tx, space, a.ID); err != nil || owner != "" {
			if err == nil {
				err = fmt.Errorf("%w: the space %q belongs to %s", ErrConflict, space, owner)
			}
			return err
		}
		return s.on(tx).insertSync(ctx, sy, d, now)
	})
	if err != nil {
		return nil, fmt.Errorf("create the sync: %w", err)
	}
	s.Wake()
	return s.Sync(ctx, sy.ID)
}

// Sync returns one sync.
func (s *SyncService) Sync(ctx context.Context, id string) (*Sync, error) { return s.readSync(ctx, id) }

// readSync reads one sync (ErrNotFound when there is none).
func (s *core) readSync(ctx context.Context, id string) (*Sync, error) {
	sy, err := s.on(s.db).syncByID(ctx, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: no sync %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("read the sync: %w", err)
	}
	return sy, nil
}

// lockSync reads one sync in tx, its row locked until tx ends (FOR UPDATE
// on PostgreSQL; SQLite serializes write transactions); ErrNotFound when
// there is none.
func (s *core) lockSync(ctx context.Context, tx *sql.Tx, id string) (*Sync, error) {
	sy, err := s.on(tx).syncForUpdate(ctx, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: no sync %q", ErrNotFound, id)
	}
	return sy, err
}

// Syncs lists the syncs, of one app when appID is not empty.
func (s *SyncService) Syncs(ctx context.Context, appID string) ([]*Sync, error) {
	syncs, err := s.on(s.db).listSyncs(ctx, appID)
	if err != nil {
		return nil, fmt.Errorf("list syncs: %w", err)
	}
	return syncs, nil
}

// UpdateSync changes a sync's account, types, filter or schedule. Changed
// types re-register the webhook after the next run. A change of account,
// types or filter cancels the run in progress, queued or paused (see
// CancelSync), and the sync is due again at once; a change of schedule
// alone lets it go on. Two changes at once both apply: one made to a
// sync another change altered after it was read is made again over the
// new one (ErrConflict after updateAttempts).
func (s *SyncService) UpdateSync(ctx context.Context, id string, spec SyncSpec) (*Sync, error) {
	// The run this change cancels here is followed by the next only once
	// the change is written and the run before it cancelled.
	done := s.held.change(id)
	defer func() { done(); s.Wake() }()
	for range updateAttempts {
		written, selectionChanged, err := s.writeChange(ctx, id, spec)
		if err != nil {
			return nil, err
		}
		if !written {
			continue // changed meanwhile: read it again
		}
		if selectionChanged {
			if _, err := s.cancelRun(ctx, id, cancelByChange); err != nil {
				return nil, err
			}
		}
		return s.Sync(ctx, id)
	}
	return nil, fmt.Errorf("%w: the sync kept changing while this change was made; try again", ErrConflict)
}

// updateAttempts bounds how often UpdateSync reads a sync again that other
// changes altered meanwhile.
const updateAttempts = 5

// writeChange makes UpdateSync's change over the sync as it reads it now;
// written is false when another change altered its account or selection
// first (nothing is written then).
func (s *SyncService) writeChange(ctx context.Context, id string, spec SyncSpec) (written, selectionChanged bool, err error) {
	sy, err := s.Sync(ctx, id)
	if err != nil {
		return false, false, err
	}
	readAccount := sy.AccountID
	selectionChanged = spec.Account != "" && spec.Account != sy.AccountID || spec.Types != nil || spec.Filter != nil
	running := ""
	if selectionChanged {
		if running, err = s.activeRun(ctx, s.db, sy); err != nil {
			return false, false, err
		}
	}
	if spec.App != "" && spec.App != sy.AppID {
		return false, false, fmt.Errorf("%w: a sync's app cannot change", ErrInvalid)
	}
	if spec.Space != "" && spec.Space != sy.Space {
		return false, false, fmt.Errorf("%w: a sync's space cannot change", ErrInvalid)
	}
	if spec.Account != "" && spec.Account != sy.AccountID {
		acc, _, err := s.reg.account(ctx, spec.Account)
		if err != nil {
			return false, false, err
		}
		if acc.AppID != sy.AppID {
			return false, false, fmt.Errorf("%w: account %s belongs to another app", ErrInvalid, acc.ID)
		}
		sy.AccountID = acc.ID
	}
	if spec.Types != nil {
		sy.Types = spec.Types
	}
	if spec.Filter != nil {
		sy.Filter = spec.Filter
	}
	if err := checkSelection(sy.Types, sy.Filter); err != nil {
		return false, false, err
	}
	var every time.Duration
	if spec.Every != nil {
		if every, err = ParseEvery(*spec.Every); err != nil {
			return false, false, err
		}
	}
	if running != "" {
		// A run of this process stops before the write below, which its
		// long writes would otherwise hold up.
		s.held.cancelHere(id, cancelByChange)
	}
	// Only what the change names is written: a run ending meanwhile (here
	// or on another host process) sets the sync's next time and the filter
	// it sent, which the values read above would otherwise put back.
	change := syncChange{accountID: sy.AccountID, selection: mustJSON(selectionDoc{sy.Types, sy.Filter}),
		setEvery: spec.Every != nil, every: every} // every 0: runs on demand only
	if spec.Every != nil && every != 0 {
		// Due within the new interval: an unscheduled sync or one due later
		// than that moves to it; one due sooner keeps its time.
		change.dueBy = s.now().Add(every)
	}
	// The filter sent stays until a run sends the new one.
	change.clearSent = spec.Filter != nil
	if s.beforeUpdateWrite != nil {
		s.beforeUpdateWrite()
	}
	// Written over the account and selection read: a change made meanwhile
	// by another call leaves this one nothing to update, and it reads again.
	written, err = s.on(s.db).updateSyncChange(ctx, id, readAccount, sy.selection, change)
	if err != nil {
		return false, false, fmt.Errorf("update the sync: %w", err)
	}
	return written, selectionChanged, nil
}

// DeleteSync removes a sync, its webhook at the app (a failure is
// returned as a warning: the sync is removed all the same), its run history
// and events. A sync that a host is working on is stopped first (its run
// cancelled; see CancelSync), which takes until that host's next lease
// renewal; ErrConflict when it still holds the sync after LeaseTTL.
func (s *SyncService) DeleteSync(ctx context.Context, id string) ([]string, error) {
	sy, err := s.Sync(ctx, id)
	if err != nil {
		return nil, err
	}
	if live, err := s.leaseLive(ctx, s.db, sy); err != nil {
		return nil, err
	} else if live {
		// Its run is cancelled and its holder stops first.
		stopped, err := s.stopHolder(ctx, id, cancelByDeleted)
		if err != nil {
			return nil, err
		}
		if !stopped {
			return nil, fmt.Errorf("%w: host %s still holds the sync; try again", ErrConflict, sy.LeaseOwner)
		}
	}
	var warns []string
	if len(sy.Webhook) > 0 {
		if err := s.hooks.deleteWebhook(ctx, sy); err != nil {
			warns = append(warns, "the webhook could not be deleted at the app: "+err.Error())
		}
	}
	err = s.tx(ctx, func(tx *sql.Tx) error { return s.on(tx).deleteSyncWithHistory(ctx, id) })
	if err != nil {
		return warns, fmt.Errorf("delete the sync: %w", err)
	}
	return warns, nil
}

// webhookFilter is the filter sent to webhook calls: as the run that just
// ended evaluated it, else as the service sends it now (evaluatedFilter).
func webhookFilter(rep *syncer.Report, sy *Sync, now time.Time) any {
	if rep != nil && rep.Filter != nil {
		return rep.Filter
	}
	return evaluatedFilter(sy, now)
}

// evaluatedFilter is the sync's filter as the service sends it at now: as
// the last successful run sent it (list titles mapped to values, numbers
// and booleans typed), each date statement evaluated again at now into
// its {_min, _max}. Before any run, the user's values.
func evaluatedFilter(sy *Sync, now time.Time) any {
	if sy.sent == nil {
		out := map[string]any{}
		for k, v := range sy.Filter {
			if len(v) == 1 {
				out[k] = v[0]
			} else {
				out[k] = v
			}
		}
		return out
	}
	out := make(map[string]json.RawMessage, len(sy.sent))
	for k, v := range sy.sent {
		out[k] = v
		vals := sy.Filter[k]
		if len(vals) == 0 || !isDateRange(v) {
			continue
		}
		r, err := daterange.Parse(vals[len(vals)-1], now)
		if err != nil {
			continue
		}
		if b, err := r.WireJSON(); err == nil {
			out[k] = b
		}
	}
	return out
}

// isDateRange reports whether a filter value as sent is an evaluated date
// statement: an object with _min or _max.
func isDateRange(v json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return false
	}
	_, lo := m["_min"]
	_, hi := m["_max"]
	return lo || hi
}

func sameStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}

// Run returns one run with its exchanges.
func (s *SyncService) Run(ctx context.Context, id string) (*Run, error) {
	run, err := s.on(s.db).runByID(ctx, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: no run %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("read the run: %w", err)
	}
	return run, nil
}

// Runs lists a sync's latest runs, newest first, without exchanges
// (limit: 1 to 1000, else 50).
func (s *SyncService) Runs(ctx context.Context, syncID string, limit int) ([]*Run, error) {
	runs, err := s.on(s.db).runsOfSync(ctx, syncID, listLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return runs, nil
}

// RunNow queues a run of the sync (or answers the one queued, in progress
// or paused; a paused run is resumed now).
func (s *SyncService) RunNow(ctx context.Context, syncID string) (*Run, error) {
	return s.RunWith(ctx, syncID, RunSpec{})
}

// RunSpec asks for a run of a sync.
type RunSpec struct {
	// Full asks for a full refresh (see syncer.Options.Full): a stopped
	// run is not resumed, failed types start over, and every type is asked
	// for without lastSynchronizedAt, so that what the app no longer has
	// is removed. Its report says Full.
	Full bool `json:"full,omitempty"`
}

// fullAsked is the report of a run asked for in full that has not started
// (RunReport.Full without an operation): its first attempt runs with
// syncer.Options.Full; a later one (after a pause) resumes the full run.
var fullAsked = mustJSON(&RunReport{Full: true})

// RunWith queues a run of the sync as RunNow does; spec.Full makes it a
// full refresh: the run queued, or the one queued or paused (which then
// starts over), is asked for in full. A full run cannot be asked for while
// a run is in progress (ErrConflict: cancel it, or ask once it ended).
func (s *SyncService) RunWith(ctx context.Context, syncID string, spec RunSpec) (*Run, error) {
	var runID string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		sy, err := s.lockSync(ctx, tx, syncID)
		if err != nil {
			return err
		}
		now := s.now()
		status, err := s.hist.unfinished(ctx, tx, sy)
		if err != nil {
			return err
		}
		if status != "" {
			runID = sy.RunID
			if status == StatusRunning && sy.LeaseOwner != "" {
				if spec.Full {
					return fmt.Errorf("%w: a run of the sync is in progress: cancel it, or ask for a full run once it has ended", ErrConflict)
				}
				return nil // already running
			}
			if spec.Full {
				// The run starts over: an earlier attempt's counts go.
				if err := s.on(tx).setRunReport(ctx, runID, fullAsked); err != nil {
					return err
				}
			}
			return s.on(tx).setSyncNextAt(ctx, syncID, now)
		}
		if runID, err = s.hist.insertRun(ctx, tx, syncID, TriggerManual, StatusQueued, now); err != nil {
			return err
		}
		if spec.Full {
			if err := s.on(tx).setRunReport(ctx, runID, fullAsked); err != nil {
				return err
			}
		}
		return s.on(tx).setSyncRunNext(ctx, syncID, runID, now)
	})
	if err != nil {
		return nil, fmt.Errorf("run now: %w", err)
	}
	s.Wake()
	return s.Run(ctx, runID)
}

// pickSpace is the space of a new sync of app a: the one asked for, else
// the app's own space, else the app's space and the first free number from
// 2. A space is free when no sync owns it, it is no other app's own space,
// and the store holds no data there that no sync owns (see heldInStore);
// adopt takes the space asked for over in spite of such data (never from a
// sync or app). The app's own space is the app's: its registration checked
// it. A numbered space holding such data is passed over. ErrConflict when
// the space asked for is not free.
func (s *SyncService) pickSpace(ctx context.Context, a *App, asked string, adopt bool) (string, error) {
	if asked != "" {
		owner, err := s.spaceOwner(ctx, s.db, asked, a.ID)
		if err != nil {
			return "", err
		}
		if owner != "" {
			return "", fmt.Errorf("%w: the space %q belongs to %s", ErrConflict, asked, owner)
		}
		if asked == a.Space || adopt {
			return asked, nil
		}
		held, err := s.heldInStore(ctx, asked)
		if err != nil {
			return "", err
		}
		if held != "" {
			return "", unownedSpace(asked, held, adoptSync)
		}
		return asked, nil
	}
	for n := 1; n <= maxSyncsPerApp; n++ {
		space := a.Space
		if n > 1 {
			space = fmt.Sprintf("%s-%d", strings.TrimRight(a.Space[:min(len(a.Space), 55)], "-"), n)
		}
		owner, err := s.spaceOwner(ctx, s.db, space, a.ID)
		if err != nil {
			return "", err
		}
		if owner != "" {
			continue
		}
		if n == 1 {
			return space, nil
		}
		held, err := s.heldInStore(ctx, space)
		if err != nil {
			return "", err
		}
		if held == "" {
			return space, nil
		}
	}
	return "", fmt.Errorf("%w: the app has %d syncs' spaces in use; name the space", ErrConflict, maxSyncsPerApp)
}

// maxSyncsPerApp bounds the spaces tried for a sync that names none.
const maxSyncsPerApp = 1000
