package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// Schedule runs the scheduler until ctx ends: it polls for due syncs,
// leases them and runs up to Workers at once. On return every run it
// started has stopped; an interrupted run keeps its row and position and
// its lease is released, so the next poll of any host resumes it.
func (s *Service) Schedule(ctx context.Context) error {
	slots := make(chan struct{}, s.cfg.Workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		for {
			select {
			case slots <- struct{}{}:
			default:
				goto wait
			}
			id, err := s.claim(ctx)
			if err != nil || id == "" {
				<-slots
				if err != nil && ctx.Err() == nil {
					s.log.Error().Err(err).Msg("apps: looking for due syncs")
				}
				goto wait
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				s.work(ctx, id)
			}()
		}
	wait:
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-s.wake:
		}
	}
}

// claim leases one due sync for this process ("" when none is due).
func (s *Service) claim(ctx context.Context) (string, error) {
	var id string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := ms(s.now())
		leaseNow, err := s.leaseClock(ctx, tx)
		if err != nil {
			return err
		}
		q := `SELECT id FROM apps_syncs WHERE lease_until < ? AND ((next_at > 0 AND next_at <= ?)
 OR EXISTS (SELECT 1 FROM apps_events e WHERE e.sync_id = apps_syncs.id AND e.status = 'pending' AND e.next_try <= ?))
 ORDER BY next_at, id LIMIT 1`
		if s.d.Name() == "postgres" {
			q += " FOR UPDATE SKIP LOCKED"
		}
		err = tx.QueryRowContext(ctx, s.q(q), leaseNow, now, now).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			id = ""
			return nil
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q("UPDATE apps_syncs SET lease_owner = ?, lease_until = ? WHERE id = ?"), s.cfg.HostID, leaseNow+s.cfg.LeaseTTL.Milliseconds(), id)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("claim a sync: %w", err)
	}
	return id, nil
}

// queryRower is a *sql.DB or *sql.Tx.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// leaseClock is the time leases are measured with, in Unix milliseconds:
// the database's clock on PostgreSQL (hosts whose clocks disagree still
// agree on when a lease ends), this process's clock on SQLite (one process
// per file).
func (s *Service) leaseClock(ctx context.Context, q queryRower) (int64, error) {
	if !store.IsPostgres(s.d) {
		return ms(s.now()), nil
	}
	var now int64
	if err := q.QueryRowContext(ctx, "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)").Scan(&now); err != nil {
		return 0, fmt.Errorf("read the database clock: %w", err)
	}
	return now, nil
}

// errLeaseLost ends a run whose lease another host took.
var errLeaseLost = errors.New("the lease was lost")

// work runs a leased sync: its pending webhook events, its run when due,
// and the events that came meanwhile; the lease is renewed meanwhile and
// released at the end.
func (s *Service) work(ctx context.Context, id string) {
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
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
			res, err := s.exec(runCtx, "UPDATE apps_syncs SET lease_until = ? WHERE id = ? AND lease_owner = ?", leaseNow+s.cfg.LeaseTTL.Milliseconds(), id, s.cfg.HostID)
			if err != nil {
				if runCtx.Err() == nil {
					s.log.Warn().Err(err).Str("sync", id).Msg("apps: renewing the lease failed; stopping the run")
					cancel(errLeaseLost)
				}
				return
			}
			if n, _ := res.RowsAffected(); n == 0 {
				s.log.Warn().Str("sync", id).Msg("apps: the lease was taken over; stopping the run")
				cancel(errLeaseLost)
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
		if _, err := s.exec(rctx, "UPDATE apps_syncs SET lease_owner = '', lease_until = 0 WHERE id = ? AND lease_owner = ?", id, s.cfg.HostID); err != nil {
			s.log.Warn().Err(err).Str("sync", id).Msg("apps: releasing the lease")
		}
	}()
	sy, err := s.Sync(runCtx, id)
	if err != nil {
		s.log.Error().Err(err).Str("sync", id).Msg("apps: reading a leased sync")
		return
	}
	// Events that arrived before the run are older than what it brings:
	// applied first, the run then overwrites them; those that arrive
	// during the run come after it.
	events := func() {
		if runCtx.Err() == nil {
			if err := s.applyEvents(runCtx, sy); err != nil && runCtx.Err() == nil {
				s.log.Error().Err(err).Str("sync", id).Msg("apps: webhook events")
			}
		}
	}
	events()
	if sy.NextAt != nil && !sy.NextAt.After(s.now()) && runCtx.Err() == nil {
		if err := s.runSync(runCtx, sy); err != nil && runCtx.Err() == nil {
			s.log.Error().Err(err).Str("sync", id).Msg("apps: run")
		}
		events()
	}
}

// startRun marks the sync's run as running here: the queued, interrupted
// or paused one continues (one more attempt), else a new scheduled run
// starts.
func (s *Service) startRun(ctx context.Context, sy *Sync) (string, error) {
	var runID string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		if sy.RunID != "" {
			var status string
			err := tx.QueryRowContext(ctx, s.q("SELECT status FROM apps_runs WHERE id = ?"), sy.RunID).Scan(&status)
			if err == nil && (status == StatusQueued || status == StatusRunning || status == StatusPaused) {
				runID = sy.RunID
				_, err = tx.ExecContext(ctx, s.q(`UPDATE apps_runs SET status = ?, owner = ?, attempts = attempts + 1,
 started_at = CASE WHEN started_at = 0 THEN ? ELSE started_at END WHERE id = ?`), StatusRunning, s.cfg.HostID, ms(now), runID)
				return err
			}
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		var err error
		if runID, err = s.insertRun(ctx, tx, sy.ID, TriggerSchedule, StatusRunning, now); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q("UPDATE apps_syncs SET run_id = ? WHERE id = ?"), runID, sy.ID)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("start the run: %w", err)
	}
	return runID, nil
}

// runSync runs a due sync with the engine and records the outcome.
func (s *Service) runSync(ctx context.Context, sy *Sync) error {
	runID, err := s.startRun(ctx, sy)
	if err != nil {
		return err
	}
	a, err := s.App(ctx, sy.AppID)
	if err != nil {
		return s.endRun(ctx, sy, runID, StatusFailed, nil, err.Error(), nil, 0)
	}
	acc, fields, err := s.account(ctx, sy.AccountID)
	if err != nil {
		return s.endRun(ctx, sy, runID, StatusFailed, nil, err.Error(), nil, 0)
	}
	m := newMasker(fields, a.Descriptor)
	rec, hc := newRecorder(s.cfg.HTTPClient, m)
	opts := s.engineOptions(a.URL)
	opts.HTTPClient = hc
	opts.Auth, opts.AccountElsewhere, opts.StoredAccount = acc.Auth, true, fields
	opts.Types, opts.Filter = sy.Types, sy.Filter
	opts.Log = func(msg string) { s.log.Debug().Str("sync", sy.ID).Msg(m.mask(msg)) }
	progress, untrack := s.progress.track(runID)
	defer untrack()
	if prev := opts.Progress; prev != nil {
		opts.Progress = func(ev syncer.Event) { progress(ev); prev(ev) }
	} else {
		opts.Progress = progress
	}
	s.log.Info().Str("sync", sy.ID).Str("app", a.Name).Str("run", runID).Msg("apps: run starts")
	rep, err := syncer.Run(ctx, s.st, opts)
	if ctx.Err() != nil {
		// Shut down or the lease was lost: the run row stays running and
		// the next holder continues it.
		return context.Cause(ctx)
	}
	report := &RunReport{}
	if rep != nil {
		report = &RunReport{Account: rep.Account, OperationID: rep.OperationID, Resumed: rep.Resumed, Warnings: rep.Warnings, SchemaChanges: rep.SchemaChanges, Types: rep.Types}
		if rep.AccountFields != nil && !reflect.DeepEqual(normalize(rep.AccountFields), normalize(fields)) {
			if err := s.saveAccount(ctx, acc.ID, rep.Account, rep.AccountFields); err != nil {
				report.Warnings = append(report.Warnings, "the refreshed account could not be saved: "+err.Error())
			}
		}
	}
	status, msg := StatusSucceeded, ""
	var resume time.Duration
	switch {
	case err == nil:
		account := fields
		if rep.AccountFields != nil {
			account = rep.AccountFields
		}
		report.Webhook = s.ensureWebhook(ctx, sy, a, account, rep)
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
func (s *Service) endRun(ctx context.Context, sy *Sync, runID, status string, report *RunReport, msg string, ex []Exchange, resume time.Duration) error {
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
		if _, err := tx.ExecContext(ctx, s.q("UPDATE apps_runs SET status = ?, ended_at = ?, report = ?, error = ?, exchanges = ?, owner = ? WHERE id = ?"),
			status, ms(now), rep, msg, exs, s.cfg.HostID, runID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q("UPDATE apps_syncs SET next_at = ?, run_id = ? WHERE id = ? AND lease_owner = ?"), next, keepRun, sy.ID, s.cfg.HostID); err != nil {
			return err
		}
		return s.prune(ctx, tx, sy.ID)
	})
}

// Bounds of the history.
const (
	// KeepRuns is the number of latest runs kept per sync.
	KeepRuns = 1000
	// ReplayWindow is how long a handled event is remembered: the same
	// event sent again within it changes nothing.
	ReplayWindow = 7 * 24 * time.Hour
)

// prune drops what the history no longer keeps: exchanges beyond the
// latest runs, runs beyond KeepRuns, handled events older than
// ReplayWindow.
func (s *Service) prune(ctx context.Context, tx *sql.Tx, syncID string) error {
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE apps_runs SET exchanges = '' WHERE sync_id = ? AND exchanges <> ''
 AND seq <= (SELECT MAX(seq) FROM apps_runs WHERE sync_id = ?) - ?`), syncID, syncID, s.cfg.KeepExchanges); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM apps_runs WHERE sync_id = ? AND seq <= (SELECT MAX(seq) FROM apps_runs WHERE sync_id = ?) - ?`),
		syncID, syncID, KeepRuns); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, s.q("DELETE FROM apps_events WHERE sync_id = ? AND status <> 'pending' AND received_at < ?"), syncID, ms(s.now().Add(-ReplayWindow)))
	return err
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
