package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// history keeps the runs of the syncs (apps_runs): it adds runs and prunes
// what the history no longer keeps.
type history struct{ *core }

// Run statuses.
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	StatusPaused    = "paused"
	// StatusPartial: some types failed (the run's error names them with
	// their reasons, as do their TypeReports) and the others completed;
	// the sync is scheduled as after a success, and its next run retries
	// the failed types.
	StatusPartial = "partial"
	// StatusCancelled: a user cancelled the run, or its sync was changed
	// or removed while it ran.
	StatusCancelled = "cancelled"
)

// Run triggers.
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
	TriggerWebhook  = "webhook"
)

// Run is one run of a sync (or one batch of webhook events) in the history.
type Run struct {
	// ID identifies the run; SyncID its sync; Seq numbers the sync's runs.
	ID     string `json:"id"`
	SyncID string `json:"sync"`
	Seq    int64  `json:"seq"`
	// Trigger is schedule, manual or webhook.
	Trigger string `json:"trigger"`
	// Status is queued, running, succeeded, partial, failed, paused or
	// cancelled.
	Status string `json:"status"`
	// Owner is the host process that ran it last; Attempts counts the
	// processes that worked on it (more than one after a pause or a
	// take-over).
	Owner    string `json:"owner,omitempty"`
	Attempts int    `json:"attempts"`
	// QueuedAt, StartedAt and EndedAt are the run's times.
	QueuedAt  *time.Time `json:"queuedAt,omitempty"`
	StartedAt *time.Time `json:"startedAt,omitempty"`
	EndedAt   *time.Time `json:"endedAt,omitempty"`
	// DurationMS is EndedAt - StartedAt.
	DurationMS int64 `json:"durationMs"`
	// Report holds the counts and warnings.
	Report *RunReport `json:"report,omitempty"`
	// Error is why the run failed or paused, or which types failed and
	// why when it is partial (secrets masked).
	Error string `json:"error,omitempty"`
	// Exchanges are the calls to the app (kept for the latest runs).
	Exchanges []Exchange `json:"exchanges,omitempty"`
}

// RunReport is what a run did.
type RunReport struct {
	// Account is the account name /validate answered.
	Account string `json:"account,omitempty"`
	// OperationID is the engine's id of the run.
	OperationID string `json:"operationId,omitempty"`
	// Resumed reports a run continued from a saved position.
	Resumed bool `json:"resumed,omitempty"`
	// Full reports a full refresh, asked for (RunSpec.Full): set from the
	// moment it is asked for, on the queued run too.
	Full bool `json:"full,omitempty"`
	// Warnings are what the host tolerated (and webhook problems).
	Warnings []string `json:"warnings,omitempty"`
	// SchemaChanges say what the run changed in the store's schema.
	SchemaChanges []string `json:"schemaChanges,omitempty"`
	// Types are the per-type counts, each with its status and, when it
	// failed, why (Status, Error), and the values converted or left empty
	// per field (Values).
	Types []*syncer.TypeReport `json:"types,omitempty"`
	// Events counts the webhook events applied (webhook runs); Refused
	// those the app would not transform.
	Events  int `json:"events,omitempty"`
	Refused int `json:"refused,omitempty"`
	// Webhook says what happened to the webhook after the run.
	Webhook string `json:"webhook,omitempty"`
	// DroppedExchanges counts the calls beyond those kept.
	DroppedExchanges int `json:"droppedExchanges,omitempty"`
}

const runCols = "id, sync_id, seq, trigger_kind, status, owner, attempts, queued_at, started_at, ended_at, report, error, exchanges"

func scanRun(r store.RowScanner, withExchanges bool) (*Run, error) {
	var run Run
	var queued, started, ended int64
	var report, exchanges string
	if err := r.Scan(&run.ID, &run.SyncID, &run.Seq, &run.Trigger, &run.Status, &run.Owner, &run.Attempts, &queued, &started, &ended, &report, &run.Error, &exchanges); err != nil {
		return nil, err
	}
	run.QueuedAt, run.StartedAt, run.EndedAt = fromMS(queued), fromMS(started), fromMS(ended)
	if started > 0 && ended >= started {
		run.DurationMS = ended - started
	}
	if report != "" {
		run.Report = &RunReport{}
		if err := json.Unmarshal([]byte(report), run.Report); err != nil {
			return nil, fmt.Errorf("decode the run report: %w", err)
		}
	}
	if withExchanges && exchanges != "" {
		if err := json.Unmarshal([]byte(exchanges), &run.Exchanges); err != nil {
			return nil, fmt.Errorf("decode the exchanges: %w", err)
		}
	}
	return &run, nil
}

// insertRun adds a run row to a sync's history (in tx).
func (s *history) insertRun(ctx context.Context, tx *sql.Tx, syncID, trigger, status string, now time.Time) (string, error) {
	id := newID()
	var seq int64
	if err := tx.QueryRowContext(ctx, s.q("SELECT COALESCE(MAX(seq), 0) + 1 FROM apps_runs WHERE sync_id = ?"), syncID).Scan(&seq); err != nil {
		return "", err
	}
	started, owner, attempts := int64(0), "", 0
	if status == StatusRunning {
		started, owner, attempts = ms(now), s.cfg.HostID, 1
	}
	_, err := tx.ExecContext(ctx, s.q("INSERT INTO apps_runs ("+runCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, '', '', '')"),
		id, syncID, seq, trigger, status, owner, attempts, ms(now), started)
	return id, err
}

// unfinished is the status of the sync's run (in tx) when it is queued,
// running or paused: "" when the sync has none, it has ended or there is
// no such run.
func (s *history) unfinished(ctx context.Context, tx *sql.Tx, sy *Sync) (string, error) {
	if sy.RunID == "" {
		return "", nil
	}
	var status string
	err := tx.QueryRowContext(ctx, s.q("SELECT status FROM apps_runs WHERE id = ?"), sy.RunID).Scan(&status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", err
	case status == StatusQueued || status == StatusRunning || status == StatusPaused:
		return status, nil
	}
	return "", nil
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
func (s *history) prune(ctx context.Context, tx *sql.Tx, syncID string) error {
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
