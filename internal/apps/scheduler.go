package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/appkitgo/appkit/internal/syncer"
)

// Scheduler runs the due syncs: it polls for them, leases one at a time
// in the database, renews the lease while it works and runs the sync's
// pending webhook events and its run with the engine.
type Scheduler struct {
	*core
	reg   *Registry
	hooks *Webhooks
	syncs *SyncService
	hist  *history
	held  *holdings
}

// Schedule runs the scheduler until ctx ends: it polls for due syncs,
// leases them and runs up to Workers at once, at most MaxRunsPerApp of one
// app, the due syncs of apps with no run here first; one more worker
// applies the webhook events of syncs that no run holds, so that long runs
// never keep events waiting. On return every run it started has stopped;
// an interrupted run keeps its row and position and its lease is released,
// so the next poll of any host resumes it.
func (s *Scheduler) Schedule(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	b := &board{working: map[string]bool{}, perApp: map[string]int{}}
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		s.fill(ctx, b, &wg)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-s.wake:
		}
	}
}

// board is what one Schedule loop works on.
type board struct {
	mu sync.Mutex
	// working is the syncs this loop works on: never claimed again while
	// their work goes on, even when their lease lapsed meanwhile (a
	// renewal late on a loaded host), since a second run of the same sync
	// in this process would find the first one busy, end paused and
	// release the lease the first one still runs under.
	working map[string]bool
	// runs counts the run workers busy (or claiming), perApp those of each
	// app; events reports the event worker busy.
	runs   int
	perApp map[string]int
	events bool
}

// claimKind says what a worker claims: a sync due (its run, or webhook
// events) or, for the event worker, a sync with webhook events waiting.
type claimKind int

const (
	claimDue claimKind = iota
	claimEvents
)

// fill gives every free worker a sync to work on: the run workers one due
// sync each while there are, the event worker one with events waiting.
func (s *Scheduler) fill(ctx context.Context, b *board, wg *sync.WaitGroup) {
	for ctx.Err() == nil {
		b.mu.Lock()
		if b.runs >= s.cfg.Workers {
			b.mu.Unlock()
			break
		}
		b.runs++
		busy := append(slices.Collect(maps.Keys(b.working)), s.held.changingIDs()...)
		var full, running []string
		for app, n := range b.perApp {
			if n >= s.cfg.MaxRunsPerApp {
				full = append(full, app)
			} else {
				running = append(running, app)
			}
		}
		b.mu.Unlock()
		id, app, err := s.claim(ctx, claimDue, busy, full, running)
		if err != nil || id == "" {
			b.mu.Lock()
			b.runs--
			b.mu.Unlock()
			s.claimFailed(ctx, err)
			break
		}
		b.mu.Lock()
		b.working[id] = true
		b.perApp[app]++
		b.mu.Unlock()
		wg.Go(func() {
			s.work(ctx, id, false)
			b.mu.Lock()
			delete(b.working, id)
			if b.perApp[app]--; b.perApp[app] <= 0 {
				delete(b.perApp, app)
			}
			b.runs--
			b.mu.Unlock()
			s.Wake() // a worker is free
		})
	}
	b.mu.Lock()
	if b.events || ctx.Err() != nil {
		b.mu.Unlock()
		return
	}
	b.events = true
	busy := append(slices.Collect(maps.Keys(b.working)), s.held.changingIDs()...)
	b.mu.Unlock()
	id, _, err := s.claim(ctx, claimEvents, busy, nil, nil)
	if err != nil || id == "" {
		b.mu.Lock()
		b.events = false
		b.mu.Unlock()
		s.claimFailed(ctx, err)
		return
	}
	b.mu.Lock()
	b.working[id] = true
	b.mu.Unlock()
	wg.Go(func() {
		s.work(ctx, id, true)
		b.mu.Lock()
		delete(b.working, id)
		b.events = false
		b.mu.Unlock()
		s.Wake()
	})
}

// claimFailed logs a claim's error (nil: nothing was due).
func (s *Scheduler) claimFailed(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		s.log.Error().Err(err).Msg("apps: looking for due syncs")
	}
}

// claim leases one sync for this process ("" when none is waiting), none
// of those in except, and returns it with its app. claimDue takes a sync
// whose run is due or whose webhook events wait, of no app in full, those
// of apps in running (with runs here already) last; claimEvents one whose
// events wait, the one waiting longest first.
func (s *Scheduler) claim(ctx context.Context, kind claimKind, except, full, running []string) (id, app string, err error) {
	// What is due is read first, outside a transaction: most polls find
	// nothing, and on SQLite a write transaction (BEGIN IMMEDIATE) takes
	// the file's one write lock even to find nothing. Every host polling
	// that way held the lock most of the time on a loaded machine, and a
	// writer waiting for it (a run's page, another host's claim) ran past
	// the busy timeout: SQLITE_BUSY. A read takes no lock (WAL); the
	// claim's transaction then reads again and takes the sync.
	leaseNow, err := s.leaseClock(ctx, s.db)
	if err != nil {
		return "", "", fmt.Errorf("claim a sync: %w", err)
	}
	f := claimFilter{kind: kind, except: except, full: full, running: running}
	id, app, err = s.on(s.db).syncToClaim(ctx, f, ms(s.now()), leaseNow)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("claim a sync: %w", err)
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		leaseNow, err := s.leaseClock(ctx, tx)
		if err != nil {
			return err
		}
		q := s.on(tx)
		id, app, err = q.lockSyncToClaim(ctx, f, ms(s.now()), leaseNow)
		if errors.Is(err, sql.ErrNoRows) {
			id, app = "", ""
			return nil
		}
		if err != nil {
			return err
		}
		return q.setLease(ctx, id, s.cfg.HostID, leaseNow+s.cfg.LeaseTTL.Milliseconds())
	})
	if err != nil {
		return "", "", fmt.Errorf("claim a sync: %w", err)
	}
	return id, app, nil
}

// errLeaseLost ends a run whose lease another host took.
var errLeaseLost = errors.New("the lease was lost")

// work runs a leased sync: its pending webhook events, its run when due
// (unless eventsOnly), and the events that came meanwhile; the lease is
// renewed meanwhile and released at the end.
func (s *Scheduler) work(ctx context.Context, id string, eventsOnly bool) {
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	h, unhold := s.held.hold(id, cancel)
	defer unhold()
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(s.cfg.LeaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
			}
			leaseNow, err := s.leaseClock(runCtx, s.db)
			if err != nil {
				if runCtx.Err() == nil {
					s.log.Warn().Err(err).Str("sync", id).Msg("apps: reading the lease clock failed; stopping the run")
					cancel(errLeaseLost)
				}
				return
			}
			held, err := s.on(s.db).renewLease(runCtx, id, s.cfg.HostID, leaseNow+s.cfg.LeaseTTL.Milliseconds())
			if err != nil {
				if runCtx.Err() == nil {
					s.log.Warn().Err(err).Str("sync", id).Msg("apps: renewing the lease failed; stopping the run")
					cancel(errLeaseLost)
				}
				return
			}
			if !held {
				s.log.Warn().Str("sync", id).Msg("apps: the lease was taken over; stopping the run")
				cancel(errLeaseLost)
				return
			}
			if s.cancelAsked(runCtx, id) {
				s.log.Info().Str("sync", id).Msg("apps: the run was cancelled; stopping it")
				cancel(errCancelled)
				return
			}
		}
	}()
	defer func() {
		cancel(nil)
		<-renewed
		// Released even when ctx ended (shutdown), so that another host
		// resumes the run at once.
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		if err := s.syncs.finishCancel(rctx, id, s.held.localReason(h)); err != nil {
			s.log.Warn().Err(err).Str("sync", id).Msg("apps: ending a cancelled run")
		}
		if err := s.on(s.db).releaseLease(rctx, id, s.cfg.HostID); err != nil {
			s.log.Warn().Err(err).Str("sync", id).Msg("apps: releasing the lease")
		}
	}()
	sy, err := s.syncs.Sync(runCtx, id)
	if err != nil {
		s.log.Error().Err(err).Str("sync", id).Msg("apps: reading a leased sync")
		return
	}
	if s.cancelAsked(runCtx, id) {
		// Cancelled while no host held it (its holder stopped or died).
		cancel(errCancelled)
		return
	}
	// Events that arrived before the run are older than what it brings:
	// applied first, the run then overwrites them; those that arrive
	// during the run come after it.
	events := func() {
		if runCtx.Err() == nil {
			if err := s.hooks.applyEvents(runCtx, sy); err != nil && runCtx.Err() == nil {
				s.log.Error().Err(err).Str("sync", id).Msg("apps: webhook events")
			}
		}
	}
	events()
	if !eventsOnly && sy.NextAt != nil && !sy.NextAt.After(s.now()) && runCtx.Err() == nil {
		if err := s.runSync(runCtx, sy); err != nil && runCtx.Err() == nil {
			s.log.Error().Err(err).Str("sync", id).Msg("apps: run")
		}
		events()
	}
}

// startRun marks the sync's run as running here: the queued, interrupted
// or paused one continues (one more attempt), else a new scheduled run
// starts. full reports a full run (RunReport.Full), fresh one whose
// attempt starts it (asked for in full, not started: syncer.Options.Full;
// a full run resumed after a pause continues where it paused).
func (s *Scheduler) startRun(ctx context.Context, sy *Sync) (runID string, full, fresh bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		status, err := s.hist.unfinished(ctx, tx, sy)
		if err != nil {
			return err
		}
		q := s.on(tx)
		if status != "" {
			runID = sy.RunID
			report, err := q.runReport(ctx, runID)
			if err != nil {
				return err
			}
			var rep RunReport
			if report != "" && json.Unmarshal([]byte(report), &rep) == nil && rep.Full {
				full, fresh = true, rep.OperationID == ""
			}
			return q.startRunAttempt(ctx, runID, s.cfg.HostID, now)
		}
		if runID, err = s.hist.insertRun(ctx, tx, sy.ID, TriggerSchedule, StatusRunning, now); err != nil {
			return err
		}
		return q.setSyncRun(ctx, sy.ID, runID)
	})
	if err != nil {
		return "", false, false, fmt.Errorf("start the run: %w", err)
	}
	return runID, full, fresh, nil
}

// runSync runs a due sync with the engine and records the outcome.
func (s *Scheduler) runSync(ctx context.Context, sy *Sync) error {
	runID, full, fresh, err := s.startRun(ctx, sy)
	if err != nil {
		return err
	}
	a, acc, fields, err := s.reg.syncApp(ctx, sy)
	if err != nil {
		return s.endRun(ctx, sy, runID, StatusFailed, nil, err.Error(), nil, 0)
	}
	m := newMasker(fields, a.Descriptor)
	rec, hc := newRecorder(s.cfg.HTTPClient, m, s.cfg.UpstreamBodies)
	opts := s.engineOptions(a.URL)
	opts.HTTPClient = hc
	opts.Auth, opts.AccountElsewhere, opts.StoredAccount = acc.Auth, true, fields
	opts.Types, opts.Filter, opts.Space = sy.Types, sy.Filter, sy.spaceOf(a)
	opts.Full = fresh
	opts.Log = func(msg string) { s.log.Debug().Str("sync", sy.ID).Msg(m.mask(msg)) }
	progress, untrack := s.progress.track(runID)
	defer untrack()
	if prev := opts.Progress; prev != nil {
		opts.Progress = func(ev syncer.Event) { progress(ev); prev(ev) }
	} else {
		opts.Progress = progress
	}
	opts.Progress = s.observePages(a.Space, opts.Progress)
	s.log.Info().Str("sync", sy.ID).Str("app", a.Name).Str("run", runID).Msg("apps: run starts")
	rep, err := syncer.Run(ctx, s.st, opts)
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), errCancelled) {
			// Cancelled: its holder records it (finishCancel); the calls
			// it made are kept.
			kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			// The engine returns once the call it cut short has ended
			// (recorded too).
			ex, _ := rec.exchanges()
			if err := s.on(s.db).setRunExchanges(kctx, runID, mustJSON(ex)); err != nil {
				s.log.Warn().Err(err).Str("run", runID).Msg("apps: keeping a cancelled run's exchanges")
			}
		}
		// Shut down or the lease was lost: the run row stays running and
		// the next holder continues it.
		return context.Cause(ctx)
	}
	report := &RunReport{Full: full}
	if rep != nil {
		report = &RunReport{Account: rep.Account, OperationID: rep.OperationID, Resumed: rep.Resumed, Full: full, Warnings: rep.Warnings, SchemaChanges: rep.SchemaChanges, Types: rep.Types}
		if rep.AccountFields != nil && !reflect.DeepEqual(normalize(rep.AccountFields), normalize(fields)) {
			if err := s.reg.saveAccount(ctx, acc.ID, rep.Account, rep.AccountFields); err != nil {
				report.Warnings = append(report.Warnings, "the refreshed account could not be saved: "+err.Error())
			}
		}
	}
	status, msg := StatusSucceeded, ""
	var resume time.Duration
	partial := err != nil && errors.Is(err, syncer.ErrPartial) && rep != nil
	if partial {
		// Some types failed, the others completed: what is done on success
		// is done for them (the filter sent, the webhook, for the run's
		// types as on success: the failed ones are retried by the next
		// run), and the sync is scheduled as after a success.
		status, msg = StatusPartial, m.mask(failedTypes(rep))
	}
	for _, t := range report.Types {
		if t.Error != "" {
			t.Error = m.mask(t.Error)
		}
	}
	switch {
	case err == nil || partial:
		if err := s.on(s.db).setSyncFilterSent(ctx, sy.ID, mustJSON(rep.Filter)); err != nil {
			report.Warnings = append(report.Warnings, "the filter sent could not be kept for webhook calls: "+err.Error())
		} else {
			sy.sent = rep.Filter
		}
		account := fields
		if rep.AccountFields != nil {
			account = rep.AccountFields
		}
		report.Webhook = s.hooks.ensureWebhook(ctx, sy, a, account, rep)
	case errors.Is(err, syncer.ErrPaused), errors.Is(err, syncer.ErrBusy):
		status, msg = StatusPaused, m.mask(err.Error())
		// Resumed when the app asked (Retry-After), else after PauseDelay.
		var ae *syncer.AppError
		if errors.As(err, &ae) && ae.RetryAfter > 0 {
			resume = ae.RetryAfter
		}
	default:
		status, msg = StatusFailed, m.mask(err.Error())
	}
	ex, dropped := rec.exchanges()
	report.DroppedExchanges = dropped
	s.log.Info().Str("sync", sy.ID).Str("run", runID).Str("status", status).Msg("apps: run ended")
	return s.endRun(ctx, sy, runID, status, report, msg, ex, resume)
}

// failedTypes is the message of a partial run: the failed types, each with
// its reason.
func failedTypes(rep *syncer.Report) string {
	failed := rep.Failed()
	parts := make([]string, len(failed))
	for i, t := range failed {
		parts[i] = t.Type + ": " + t.Error
	}
	return fmt.Sprintf("%d of %d types failed (the others were synchronized; the next run retries these): %s",
		len(failed), len(rep.Types), strings.Join(parts, "; "))
}

// normalize makes account values comparable (numbers as text).
func normalize(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// endRun records a run's outcome and the sync's next time; a paused run is
// resumed after resume (0: PauseDelay).
func (s *Scheduler) endRun(ctx context.Context, sy *Sync, runID, status string, report *RunReport, msg string, ex []Exchange, resume time.Duration) error {
	s.runEnded(ctx, runID, status, report)
	now := s.now()
	every, _ := ParseEvery(sy.Every)
	next, keepRun := int64(0), ""
	switch {
	case status == StatusPaused:
		if resume <= 0 {
			resume = s.cfg.PauseDelay
		}
		next, keepRun = ms(now.Add(resume)), runID
	case every > 0:
		next = ms(now.Add(every))
	}
	rep := ""
	if report != nil {
		rep = mustJSON(report)
	}
	exs := ""
	if ex != nil {
		exs = mustJSON(ex)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		q := s.on(tx)
		if err := q.setRunEnded(ctx, runID, s.cfg.HostID, status, now, rep, msg, exs); err != nil {
			return err
		}
		if err := q.setHeldSyncNext(ctx, sy.ID, s.cfg.HostID, next, keepRun); err != nil {
			return err
		}
		return s.hist.prune(ctx, tx, sy.ID)
	})
}

// events of one batch.
const eventBatch = 100

// rawJSON is json.RawMessage for a []byte read from the database.
func rawJSON(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(s)
}
