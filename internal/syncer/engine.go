package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
)

// ErrPaused is wrapped by the error of a run stopped by an app that kept
// failing with errors that may pass (tryLater, 429, 5xx, timeouts): the run
// is saved and the next Run with the same app resumes it from the page
// that failed. The app's last *AppError is wrapped too: its RetryAfter says
// when the app asked to be called again.
var ErrPaused = errors.New("run paused")

// ErrBusy is wrapped by the error of a Run for an app that another Run of
// this process is synchronizing into the same store.
var ErrBusy = errors.New("a synchronization of this app is already running")

// running holds the apps being synchronized, per store.
var running struct {
	sync.Mutex
	keys map[runKey]bool
}

type runKey struct {
	st  *store.Store
	key string
}

// acquire marks the app as being synchronized into st.
func acquire(st *store.Store, key string) (release func(), ok bool) {
	running.Lock()
	defer running.Unlock()
	k := runKey{st, key}
	if running.keys[k] {
		return nil, false
	}
	if running.keys == nil {
		running.keys = map[runKey]bool{}
	}
	running.keys[k] = true
	return func() {
		running.Lock()
		delete(running.keys, k)
		running.Unlock()
	}, true
}

// Defaults of the bounds of a run (see Options).
const (
	DefaultMaxPages      = 100000
	DefaultMaxEmptyPages = 1000
	DefaultMaxRunTime    = 6 * time.Hour
	// DefaultMaxBody bounds an answer of the app (decompressed).
	DefaultMaxBody = 64 << 20
)

// ErrCanceled is wrapped, with the context's cause (context.Canceled when
// the context was canceled), by the error of a run whose context ended: the
// run stops at once and removes nothing; what it committed stays and the
// next Run resumes it.
var ErrCanceled = errors.New("run canceled")

// ErrLoop is wrapped by the error of a run whose app sent a nextPageConfig
// already seen in the run for that type (a cursor that cycles): the run
// stops and is dropped, removing nothing.
var ErrLoop = errors.New("the app's pagination loops")

// Options say which app to synchronize and how.
type Options struct {
	// AppURL is the app's base address.
	AppURL string
	// Auth is the authentication id to use; empty picks the only one, else
	// "none", else the first that is not OAuth.
	Auth string
	// Account holds account field values given by the user (KEY=VALUE); they
	// are typed after the authentication's fields and merged over the stored
	// account. OAuth tokens go here too (access_token, refresh_token, ...).
	Account map[string]string
	// Types are the app's types to synchronize; empty means those of the
	// run in progress, else those of the last run, else those the app marks
	// as default, else all of them.
	Types []string
	// Filter holds filter values by filter id (several values for a
	// multidropdown; date statements in the date-range grammar); empty means
	// the filter of the last run (its date statements evaluated anew). A
	// given filter replaces the remembered one as a whole.
	Filter map[string][]string

	// HTTPClient makes the calls (nil: http.DefaultClient).
	HTTPClient *http.Client
	// RequestTimeout bounds one call to the app (0: 60 s).
	RequestTimeout time.Duration
	// MaxBody bounds one answer of the app, counted decompressed (0:
	// DefaultMaxBody). A data page is decoded as it arrives and only its
	// converted values are kept: it costs about twice its size in memory.
	MaxBody int64
	// Retry is the policy for failures that may pass (zero: DefaultRetry).
	Retry Retry
	// MaxPages bounds the pages of one type in one run, resumed runs
	// included (0: DefaultMaxPages). A run that reaches it stops with
	// ErrLimit and is dropped: the next run starts from the first page.
	MaxPages int
	// MaxEmptyPages bounds the consecutive pages without items that still
	// say hasNext (0: DefaultMaxEmptyPages); past it the run stops with
	// ErrLimit and is dropped.
	MaxEmptyPages int
	// MaxRunTime bounds one call of Run (0: DefaultMaxRunTime). Past it the
	// run stops with ErrLimit, its position saved: the next Run resumes it.
	MaxRunTime time.Duration
	// CommitItems and CommitEvery bound a batch of pages committed together
	// (with the position after them): a stopped run redoes at most one
	// batch (0: 20,000 items, 1 s).
	CommitItems int
	// CommitEvery is the longest a batch stays open.
	CommitEvery time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Progress, when set, is told about every page and the end of each type.
	Progress func(Event)
	// Log, when set, receives notable events in words (retries, warnings).
	Log func(msg string)
	// AccountElsewhere says the caller keeps the account (encrypted, say):
	// StoredAccount stands for the saved one (Account is merged over it),
	// the saved state keeps none of its values, and Report.AccountFields
	// returns the validated account (refreshed tokens included) for the
	// caller to save.
	AccountElsewhere bool
	// StoredAccount is the caller's account with AccountElsewhere (values
	// as /validate and access_token answered them).
	StoredAccount map[string]any
	// Tracer, when set, traces the run: a span for the run (sync.run), each
	// type (sync.type) and each page (sync.page), whose context every call
	// to the app gets (a client that traces its calls and sends their W3C
	// traceparent continues it: see HTTPClient).
	Tracer trace.Tracer
	// Full asks for a full run: a run in progress is not resumed, failed
	// types start over, and every type is asked for without
	// lastSynchronizedAt, so that the app answers full pages and what it
	// no longer has is removed (a refresh). A run also asks a type without
	// lastSynchronizedAt by itself when its schema gained fields since the
	// last run (its existing entities would otherwise keep them empty).
	Full bool
	// Space, when not empty, is the namespace of the run's types, entities
	// and state in the store instead of the app's own (see ValidSpace):
	// several synchronizations of one app, each into a space of its own,
	// keep apart what each delivered (a full run removes only what its
	// space held; relations resolve within it).
	Space string
}

// ValidSpace reports whether s may name a space of the store: 1 to 60
// lower-case letters, digits and dashes, neither first nor last a dash
// (the form of an app's own space).
func ValidSpace(s string) bool { return s != "" && slug(s) == s }

// Event is a progress report of one type.
type Event struct {
	// Type is the app's type id.
	Type string
	// Pages and Items count what was received so far in this run.
	Pages, Items int
	// Done marks the end of the type.
	Done bool
	// Elapsed is the time since the type's first page.
	Elapsed time.Duration
}

// Report is the outcome of a run.
type Report struct {
	// App is the app's name; Space the namespace of its types in the store.
	App, Space string
	// Account is the account name /validate answered.
	Account string
	// OperationID identifies the run (sent to the app with every page).
	OperationID string
	// Resumed reports a run continued from a saved position.
	Resumed bool
	// Warnings are what the host tolerated in the app.
	Warnings []string
	// SchemaChanges say what the run changed in the store's schema.
	SchemaChanges []string
	// Types are the per-type counts, in the order synchronized.
	Types []*TypeReport
	// Logo is the app's SVG logo (nil: none).
	Logo []byte `json:"-"`
	// AccountFields is the validated account (with what /validate
	// answered), set with Options.AccountElsewhere; it holds secrets and is
	// never encoded.
	AccountFields map[string]any `json:"-"`
	// Filter is the filter as sent to the app (date statements evaluated).
	Filter map[string]json.RawMessage `json:"filter,omitempty"`
}

// The outcomes of a type in a run (TypeReport.Status).
const (
	// TypeCompleted: the type's last page was written (and, for a full
	// run, the entities it did not deliver removed).
	TypeCompleted = "completed"
	// TypeFailed: the type stopped (TypeReport.Error says why); what its
	// committed pages delivered stays, nothing of it is removed, and the
	// next run retries it. Other types are not held by it.
	TypeFailed = "failed"
)

// ErrPartial is wrapped by the error of a run in which some types failed
// and the others completed: the Report is complete, and its failed types
// (Report.Failed) say why. The next run retries the failed types.
var ErrPartial = errors.New("some types failed")

// ValueReport counts the values of one field that did not come in their
// stated form: converted (Outcome "coerced", as the service converts them)
// or left empty (Outcome "dropped": the item is kept without that value).
type ValueReport struct {
	// Field is the app's field id.
	Field string
	// Outcome is "coerced" or "dropped".
	Outcome string
	// Count counts the values in the run.
	Count int
	// Detail names the coercion, or says why the value was dropped (for
	// the first one).
	Detail string
	// Example is the first such value as the app sent it (JSON, cut at
	// 80 bytes).
	Example string
}

// The outcomes of a ValueReport.
const (
	ValueCoerced = "coerced"
	ValueDropped = "dropped"
)

// TypeReport counts what one type's synchronization did.
type TypeReport struct {
	// Type is the app's type id; Store the store's type name.
	Type, Store string
	// Status is TypeCompleted or TypeFailed; empty for a type the run did
	// not reach (a run stopped as a whole).
	Status string `json:",omitempty"`
	// Error says why the type failed.
	Error string `json:",omitempty"`
	// Mode is "full" or "delta".
	Mode string
	// Pages and Items count what the app sent.
	Pages, Items int
	// Created, Updated and Removed count entities; Unchanged counts
	// entities written again with the values they had (as this engine last
	// wrote them); Skipped counts items that were not stored (see
	// Problems); Duplicates counts ids sent again in the run (the last one
	// wins).
	Created, Updated, Unchanged, Removed, Skipped, Duplicates int
	// Problems describe skipped items, duplicates and unresolved relations
	// (the first ones of each run; the counts are exact).
	Problems []string
	// Values count, per field, the values converted or left empty.
	Values []*ValueReport `json:",omitempty"`
}

// Failed returns the types that failed in the run, in the order
// synchronized.
func (r *Report) Failed() []*TypeReport {
	var out []*TypeReport
	for _, t := range r.Types {
		if t.Status == TypeFailed {
			out = append(out, t)
		}
	}
	return out
}

// maxProblems bounds the problems kept per type.
const maxProblems = 50

func (r *TypeReport) problem(format string, a ...any) {
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, a...))
	}
}

// state is what the engine keeps per app in the store (one JSON document,
// saved in the same transaction as each page).
type state struct {
	URL string `json:"url"`
	// App is the app's name and Logo its SVG logo (nil: none), as last read.
	App     string         `json:"app,omitempty"`
	Logo    []byte         `json:"logo,omitempty"`
	Auth    string         `json:"auth"`
	Account map[string]any `json:"account"`
	// LastSuccess is the start of the last successful run (RFC 3339), and
	// LastTypes and LastFilter its selection: a run with another selection
	// starts without lastSynchronizedAt (a delta from the old selection
	// would miss what the new one adds).
	LastSuccess string                     `json:"last_success,omitempty"`
	LastTypes   []string                   `json:"last_types,omitempty"`
	LastFilter  map[string]json.RawMessage `json:"last_filter,omitempty"`
	// Seq numbers the runs.
	// Selection is what the user chose: the types and the filter as given
	// (date statements are evaluated again at each run).
	Selection selection           `json:"selection"`
	Seq       int64               `json:"seq"`
	Mapping   map[string]*typeMap `json:"mapping,omitempty"`
	Run       *runState           `json:"run,omitempty"`
	// Carry holds the attempts of types that failed in the last run, to
	// be resumed by the next (see attempt.go).
	Carry map[string]*attempt `json:"carry,omitempty"`
	// TypeLast is, per type, the last run that completed it.
	TypeLast map[string]*lastRun `json:"type_last,omitempty"`
}

// runState is a run in progress.
type runState struct {
	Seq         int64                      `json:"seq"`
	OperationID string                     `json:"operation_id"`
	Started     string                     `json:"started"`
	LastSync    *string                    `json:"last_sync"`
	Types       []string                   `json:"types"`
	Filter      map[string]json.RawMessage `json:"filter"`
	Done        map[string]bool            `json:"done"`
	Page        map[string]json.RawMessage `json:"page"`
	Counts      map[string]*TypeReport     `json:"counts"`
	Pending     []pendingRef               `json:"pending,omitempty"`
	// Attempts are the types' attempts (a run saved by an older version
	// has none: see runState.attempt).
	Attempts map[string]*attempt `json:"attempts,omitempty"`
	// Failed are the types that failed in the run, with why; Restart those
	// of them whose next attempt starts over from the first page.
	Failed  map[string]string `json:"failed,omitempty"`
	Restart map[string]bool   `json:"restart,omitempty"`
	// outside marks the scratch run of changes applied between runs
	// (ApplyChanges): an entity the last run delivered is updated, not a
	// duplicate.
	outside bool
}

// selection is the user's choice of types and filter values.
type selection struct {
	Types  []string            `json:"types,omitempty"`
	Filter map[string][]string `json:"filter,omitempty"`
}

// maxLogo bounds the logo kept in the state.
const maxLogo = 256 << 10

func stateKey(space string) string { return "app:" + space }

// Run synchronizes an app into the store: registration, account, config,
// schema and data, then the end-of-run cleanup. On failure the store keeps
// the data of the last good run (plus the pages of this run already
// written); an interrupted run is resumed by the next Run for the same app.
func Run(ctx context.Context, st *store.Store, opts Options) (*Report, error) {
	e, err := newEngine(st, opts)
	if err != nil {
		return nil, err
	}
	return e.bounded(ctx)
}

// errRunTime is the cause of the end of a run's context at MaxRunTime.
var errRunTime = errors.New("MaxRunTime")

// bounded is run within MaxRunTime, its error telling a canceled run and
// one out of time apart from the failures of the app or the store.
func (e *engine) bounded(ctx context.Context) (*Report, error) {
	e.started = e.now()
	ctx, span := e.span(ctx, "sync.run", attribute.String("appkit.app_url", e.c.base.Host))
	runCtx, cancel := context.WithTimeoutCause(ctx, e.opts.MaxRunTime, errRunTime)
	defer cancel()
	rep, err := e.run(runCtx)
	defer func() { endSpan(span, err, runAttrs(rep)...) }()
	switch {
	case err == nil:
	case ctx.Err() != nil:
		err = fmt.Errorf("%w (%w): %v", ErrCanceled, context.Cause(ctx), err)
	case errors.Is(context.Cause(runCtx), errRunTime) && !errors.Is(err, ErrLimit):
		err = fmt.Errorf("%w: the run lasted longer than %s (MaxRunTime); run again to resume it: %v", ErrLimit, e.opts.MaxRunTime, err)
	}
	return rep, err
}

type engine struct {
	st   *store.Store
	opts Options
	c    *client
	now  func() time.Time
	log  func(string)
	// beforeWrite, when set (by tests), is called with each page decoded,
	// right before it is written.
	beforeWrite func()
	// mapping is that of the selected types, once the schema is mapped.
	mapping map[string]*typeMap
	// started is when the run began (by the clock now).
	started time.Time
	// schemaStepDone, when set (by tests), is told about each committed
	// step of the schema mapping and the number of changes it held; an
	// error stops the mapping there.
	schemaStepDone func(changes int) error
	// gained are the types that existed before this run and whose schema
	// gained fields in it: they are asked for in full.
	gained map[string]bool
	// refNames maps relation targets' entity ids to their app ids (bounded),
	// to report targets that never arrive by their app id.
	refNames map[string]string
}

func newEngine(st *store.Store, opts Options) (*engine, error) {
	opts = opts.WithDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	c, err := newClient(opts.AppURL, opts.HTTPClient, opts.RequestTimeout, opts.MaxBody, opts.Retry)
	if err != nil {
		return nil, err
	}
	e := &engine{st: st, opts: opts, c: c, now: opts.Now, log: opts.Log}
	c.onRetry = func(path string, attempt int, err error, wait time.Duration) {
		e.log(fmt.Sprintf("retrying %s in %s after attempt %d: %v", path, wait.Round(time.Millisecond), attempt, err))
	}
	return e, nil
}

// run is one run: registration, account, selection, schema, then the data
// of each type not done yet, then the end of the run.
func (e *engine) run(ctx context.Context) (*Report, error) {
	desc, rep, err := e.register(ctx)
	if err != nil {
		return nil, err
	}
	key := stateKey(rep.Space)
	release, ok := acquire(e.st, key)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrBusy, rep.Space)
	}
	defer release()
	var s state
	if err := e.st.Write(ctx, func(tx *store.Tx) error {
		b, err := tx.SyncState(key)
		if err != nil || b == nil {
			return err
		}
		return json.Unmarshal(b, &s)
	}); err != nil {
		return nil, fmt.Errorf("read the saved state: %w", err)
	}
	account, err := e.account(ctx, desc, &s, rep)
	if err != nil {
		return nil, err
	}
	sel, err := e.selection(ctx, &s, account, rep)
	if err != nil {
		return nil, err
	}
	schema, schemaFailed, err := e.schema(ctx, sel, account, s.Mapping, rep)
	if err != nil {
		return nil, err
	}
	if err := e.startRun(ctx, key, &s, sel, schemaFailed, rep); err != nil {
		return nil, err
	}
	causes := map[string]error{}
	for t, err := range schemaFailed {
		causes[t] = err
	}
	for _, t := range sel.types {
		if s.Run.Done[t] || s.Run.Failed[t] != "" {
			continue
		}
		tr := s.Run.Counts[t]
		tr.Status, tr.Error = "", "" // a type resumed after a failure
		err := e.syncType(ctx, key, &s, rep.Space, t, account, sel.filter, schema)
		var te *typeError
		switch {
		case err == nil:
		case ctx.Err() == nil && errors.As(err, &te):
			causes[t] = te.err
			e.failType(s.Run, tr, t, te)
			if err := e.save(ctx, key, &s, nil); err != nil {
				return rep, err
			}
		default:
			return rep, err
		}
	}
	if err := e.finish(ctx, key, &s, rep.Space, sel.types); err != nil {
		return rep, err
	}
	return rep, runError(rep, causes)
}

// register reads and checks the app's descriptor and logo.
func (e *engine) register(ctx context.Context) (*protocol.Descriptor, *Report, error) {
	desc, warns, err := register(ctx, e.c)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{App: desc.Name, Space: appSpace(desc), Warnings: warns}
	if e.opts.Space != "" {
		rep.Space = e.opts.Space
	}
	for _, w := range warns {
		e.log("warning: " + w)
	}
	logo, warn := fetchLogo(ctx, e.c)
	rep.Logo = logo
	if warn != "" {
		rep.Warnings = append(rep.Warnings, warn)
		e.log("warning: " + warn)
	}
	return desc, rep, nil
}

// account is the stored account, refreshed by the user's values, validated
// (which also refreshes OAuth tokens) before every run; it is noted in the
// state (or the report, with AccountElsewhere).
func (e *engine) account(ctx context.Context, desc *protocol.Descriptor, s *state, rep *Report) (map[string]any, error) {
	authID := e.opts.Auth
	if authID == "" && s.Auth != "" && len(e.opts.Account) == 0 && !e.opts.AccountElsewhere {
		authID = s.Auth
	}
	auth, err := chooseAuth(desc, authID)
	if err != nil {
		return nil, err
	}
	stored := s.Account
	if s.Auth != auth.ID {
		stored = nil
	}
	if e.opts.AccountElsewhere {
		stored = e.opts.StoredAccount
	}
	account, err := accountFields(auth, e.opts.Account, stored)
	if err != nil {
		return nil, err
	}
	if rep.Account, err = validateAccount(ctx, e.c, auth.ID, account); err != nil {
		return nil, err
	}
	s.URL, s.Auth, s.Account, s.App, s.Logo = e.opts.AppURL, auth.ID, account, desc.Name, nil
	if e.opts.AccountElsewhere {
		s.Account = nil
		rep.AccountFields = account
	}
	if len(rep.Logo) <= maxLogo {
		s.Logo = rep.Logo
	}
	return account, nil
}

// chosen is a run's selection: the types, their names and the filter as
// sent to the app.
type chosen struct {
	types  []string
	names  map[string]string
	filter map[string]json.RawMessage
	now    time.Time
}

// selection reads the config and settles the types and the filter: as
// given, else those of the run in progress, else the remembered ones, else
// the app's defaults.
func (e *engine) selection(ctx context.Context, s *state, account map[string]any, rep *Report) (*chosen, error) {
	var cfg protocol.ConfigResponse
	if err := e.c.callRetry(ctx, http.MethodPost, protocol.PathConfig, map[string]any{"account": account}, &cfg); err != nil {
		var ae *AppError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return nil, fmt.Errorf("%w: the app does not synchronize data (config answers 404)", ErrRefused)
		}
		return nil, fmt.Errorf("config: %w", err)
	}
	askedTypes := e.opts.Types
	if len(askedTypes) == 0 && s.Run == nil {
		askedTypes = s.Selection.Types
	}
	types, err := selectTypes(&cfg, askedTypes, s.Run)
	if err != nil {
		return nil, err
	}
	filterInput := e.opts.Filter
	if len(filterInput) == 0 {
		filterInput = s.Selection.Filter
	}
	sel := &chosen{types: types, names: map[string]string{}, now: e.now()}
	for _, t := range cfg.Types {
		sel.names[t.ID] = t.Name
	}
	if len(e.opts.Filter) == 0 && s.Run != nil && sameTypes(s.Run.Types, types) {
		// Resuming: the filter of the saved run, as it was evaluated then
		// (a relative date statement means the same days all through a run).
		sel.filter = s.Run.Filter
	} else if sel.filter, err = buildFilter(ctx, e.c, &cfg, types, account, filterInput, sel.now); err != nil {
		return nil, err
	}
	s.Selection = selection{Types: types, Filter: filterInput}
	rep.Filter = sel.filter
	if len(sel.filter) > 0 {
		if err := validateFilter(ctx, e.c, types, sel.filter, account); err != nil {
			return nil, err
		}
	}
	return sel, nil
}

// schema reads the schema of the selected types, checks it against the
// limits and maps it into the store (old is the mapping of the last run).
// When the app refuses the schema of the selection, each type's is asked
// for alone: the types whose schema fails (refused, missing from the
// answer, over a per-type limit) are returned in failed, and the run goes
// on with the others; only when every type fails is the run stopped.
func (e *engine) schema(ctx context.Context, sel *chosen, account map[string]any, old map[string]*typeMap, rep *Report) (map[string]map[string]protocol.SchemaField, map[string]error, error) {
	var schema map[string]map[string]protocol.SchemaField
	failed := map[string]error{}
	if err := e.c.callRetry(ctx, http.MethodPost, protocol.PathSchema, map[string]any{"types": sel.types, "filter": sel.filter, "account": account}, &schema); err != nil {
		if ctx.Err() != nil || len(sel.types) == 1 {
			return nil, nil, fmt.Errorf("schema: %w", err)
		}
		e.log(fmt.Sprintf("schema of the %d types failed (%v): asking for each type alone", len(sel.types), err))
		schema = map[string]map[string]protocol.SchemaField{}
		for _, t := range sel.types {
			var one map[string]map[string]protocol.SchemaField
			if err := e.c.callRetry(ctx, http.MethodPost, protocol.PathSchema, map[string]any{"types": []string{t}, "filter": sel.filter, "account": account}, &one); err != nil {
				if ctx.Err() != nil {
					return nil, nil, fmt.Errorf("schema: %w", err)
				}
				failed[t] = fmt.Errorf("schema: %w", err)
				continue
			}
			if fields, ok := one[t]; ok {
				schema[t] = fields
			}
		}
	}
	var extra []string
	for t := range schema {
		if !slices.Contains(sel.types, t) {
			extra = append(extra, t)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		w := "the schema answer has types that were not asked for (ignored): " + strings.Join(extra, ", ")
		rep.Warnings = append(rep.Warnings, w)
		e.log("warning: " + w)
	}
	var good []string
	for _, t := range sel.types {
		if failed[t] != nil {
			continue
		}
		if _, ok := schema[t]; !ok {
			failed[t] = fmt.Errorf("schema: the app sent no schema for type %q", t)
			continue
		}
		if err := checkTypeSchemaSize(schema, t); err != nil {
			failed[t] = fmt.Errorf("schema: %w", err)
			continue
		}
		good = append(good, t)
	}
	if len(good) == 0 {
		for _, t := range sel.types {
			return nil, nil, failed[t] // the first type's reason
		}
	}
	if err := checkSchemaSize(schema, good); err != nil {
		return nil, nil, fmt.Errorf("schema: %w", err)
	}
	plan := planSchema(rep.Space, schema, good, sel.names)
	rep.Warnings = append(rep.Warnings, plan.warns...)
	if err := e.mapSchema(ctx, plan, old, &rep.SchemaChanges); err != nil {
		return nil, nil, fmt.Errorf("schema: %w", err)
	}
	for _, w := range rep.SchemaChanges {
		e.log("schema: " + w)
	}
	e.mapping = plan.out
	e.gained = gainedFields(old, plan.out)
	for t, err := range failed {
		e.log(fmt.Sprintf("type %s: %v", t, err))
	}
	return schema, failed, nil
}

// startRun merges the new mapping into the state (keeping that of types not
// selected this time), resumes the run in progress when it has the same
// types and filter or starts a new one, and saves the state.
func (e *engine) startRun(ctx context.Context, key string, s *state, sel *chosen, schemaFailed map[string]error, rep *Report) error {
	merged := map[string]*typeMap{}
	for k, v := range s.Mapping {
		merged[k] = v
	}
	for k, v := range e.mapping {
		merged[k] = v
	}
	s.Mapping = merged
	if s.Run != nil && !e.opts.Full && sameTypes(s.Run.Types, sel.types) && sameFilter(s.Run.Filter, sel.filter) {
		rep.Resumed = true
		e.log(fmt.Sprintf("resuming run %d (operation %s)", s.Run.Seq, s.Run.OperationID))
	} else {
		s.Seq++
		r := &runState{Seq: s.Seq, OperationID: uuid.NewString(), Started: sel.now.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
			Types: sel.types, Filter: sel.filter, Done: map[string]bool{}, Page: map[string]json.RawMessage{}, Counts: map[string]*TypeReport{},
			Attempts: map[string]*attempt{}}
		s.Run = r
		failed := map[string]string{}
		for t, err := range schemaFailed {
			failed[t] = err.Error()
		}
		e.beginAttempts(s, r, failed)
	}
	rep.OperationID = s.Run.OperationID
	for _, t := range sel.types {
		tr := s.Run.Counts[t]
		if tr == nil {
			tr = &TypeReport{Type: t}
			s.Run.Counts[t] = tr
		}
		if m := e.mapping[t]; m != nil {
			tr.Store = m.Store
		}
		if err := schemaFailed[t]; err != nil {
			e.failType(s.Run, tr, t, &typeError{err: err, untried: true})
		}
		rep.Types = append(rep.Types, tr)
	}
	return e.save(ctx, key, s, nil)
}

// mapSchema brings the store's catalog in line with the plan in steps of
// at most schemaBatch changes, each its own write transaction, so that a
// large schema never holds the store's write lock for long. Every change is
// idempotent: a mapping that failed midway is completed by the next run.
func (e *engine) mapSchema(ctx context.Context, plan *schemaPlan, old map[string]*typeMap, changes *[]string) error {
	ops := plan.ops(old, changes)
	for len(ops) > 0 {
		step := ops[:min(schemaBatch, len(ops))]
		ops = ops[len(step):]
		if err := e.st.WriteSchema(ctx, func(tx *store.Tx) error {
			for _, op := range step {
				if err := op(tx); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
		if e.schemaStepDone != nil {
			if err := e.schemaStepDone(len(step)); err != nil {
				return err
			}
		}
	}
	return nil
}

// save writes the state (and runs fn first in the same transaction).
func (e *engine) save(ctx context.Context, key string, s *state, fn func(tx *store.Tx) error) error {
	return e.st.Write(ctx, func(tx *store.Tx) error {
		if fn != nil {
			if err := fn(tx); err != nil {
				return err
			}
		}
		b, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("encode the sync state: %w", err)
		}
		return tx.SaveSyncState(key, b)
	})
}

// selectTypes checks the asked types against the config (or picks the
// defaults).
func selectTypes(cfg *protocol.ConfigResponse, asked []string, saved *runState) ([]string, error) {
	known := map[string]bool{}
	var all, defaults []string
	for _, t := range cfg.Types {
		if t.ID == "" || known[t.ID] {
			continue
		}
		known[t.ID] = true
		all = append(all, t.ID)
		if t.Default {
			defaults = append(defaults, t.ID)
		}
	}
	if len(all) == 0 {
		return nil, errors.New("config: the app declares no types")
	}
	if len(asked) == 0 {
		switch {
		case saved != nil:
			asked = saved.Types
		case len(defaults) > 0:
			asked = defaults
		default:
			asked = all
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range asked {
		if !known[t] {
			return nil, fmt.Errorf("the app has no type %q (it has %d: %s)", t, len(all), strings.Join(all[:min(len(all), 20)], ", "))
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, checkTypeCount(out)
}

func sameTypes(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameFilter(a, b map[string]json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if string(b[k]) != string(v) {
			return false
		}
	}
	return true
}
