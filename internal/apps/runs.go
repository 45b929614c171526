package apps

import (
	"context"
	"database/sql"
	"errors"
	"time"

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

// insertRun adds a run row to a sync's history (in tx).
func (s *history) insertRun(ctx context.Context, tx *sql.Tx, syncID, trigger, status string, now time.Time) (string, error) {
	q := s.on(tx)
	seq, err := q.nextRunSeq(ctx, syncID)
	if err != nil {
		return "", err
	}
	run := &Run{ID: newID(), SyncID: syncID, Seq: seq, Trigger: trigger, Status: status, QueuedAt: &now}
	if status == StatusRunning {
		run.StartedAt, run.Owner, run.Attempts = &now, s.cfg.HostID, 1
	}
	return run.ID, q.insertRun(ctx, run)
}

// unfinished is the status of the sync's run (in tx) when it is queued,
// running or paused: "" when the sync has none, it has ended or there is
// no such run.
func (s *history) unfinished(ctx context.Context, tx *sql.Tx, sy *Sync) (string, error) {
	if sy.RunID == "" {
		return "", nil
	}
	status, err := s.on(tx).runStatus(ctx, sy.RunID)
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
	q := s.on(tx)
	if err := q.dropOldExchanges(ctx, syncID, s.cfg.KeepExchanges); err != nil {
		return err
	}
	if err := q.deleteOldRuns(ctx, syncID, KeepRuns); err != nil {
		return err
	}
	return q.deleteHandledEvents(ctx, syncID, s.now().Add(-ReplayWindow))
}
