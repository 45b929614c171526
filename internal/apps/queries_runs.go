package apps

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/internal/store"
)

// The history's statements: the runs of the syncs (apps_runs, with the
// handled events it prunes from apps_events), the action runs
// (apps_actions) and the reads of the Observer and the scheduler's state.

// Runs.

const runCols = "id, sync_id, seq, trigger_kind, status, owner, attempts, queued_at, started_at, ended_at, report, error, exchanges"

// scanRun reads a run row (runCols); its exchanges only withExchanges.
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

// nextRunSeq is the seq of a sync's next run: one past its latest, 1 for
// its first.
func (q queries) nextRunSeq(ctx context.Context, syncID string) (seq int64, err error) {
	err = q.row(ctx, "SELECT COALESCE(MAX(seq), 0) + 1 FROM apps_runs WHERE sync_id = ?", syncID).Scan(&seq)
	return seq, err
}

// insertRun adds r (its ID, SyncID, Seq, Trigger, Status, Owner,
// Attempts, QueuedAt and StartedAt, nil: 0) to the history, not ended and
// with no report, error or exchanges.
func (q queries) insertRun(ctx context.Context, r *Run) error {
	_, err := q.exec(ctx, "INSERT INTO apps_runs ("+runCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, '', '', '')",
		r.ID, r.SyncID, r.Seq, r.Trigger, r.Status, r.Owner, r.Attempts, msOrZero(r.QueuedAt), msOrZero(r.StartedAt))
	return err
}

// msOrZero is ms(*t), 0 for nil (as fromMS reads it back).
func msOrZero(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return ms(*t)
}

// runStatus returns a run's status; sql.ErrNoRows when there is no such
// run.
func (q queries) runStatus(ctx context.Context, runID string) (status string, err error) {
	err = q.row(ctx, "SELECT status FROM apps_runs WHERE id = ?", runID).Scan(&status)
	return status, err
}

// dropOldExchanges empties the exchanges of a sync's runs but its latest
// keep.
func (q queries) dropOldExchanges(ctx context.Context, syncID string, keep int) error {
	_, err := q.exec(ctx, `UPDATE apps_runs SET exchanges = '' WHERE sync_id = ? AND exchanges <> ''
 AND seq <= (SELECT MAX(seq) FROM apps_runs WHERE sync_id = ?) - ?`, syncID, syncID, keep)
	return err
}

// deleteOldRuns removes a sync's runs but its latest keep.
func (q queries) deleteOldRuns(ctx context.Context, syncID string, keep int) error {
	_, err := q.exec(ctx, `DELETE FROM apps_runs WHERE sync_id = ? AND seq <= (SELECT MAX(seq) FROM apps_runs WHERE sync_id = ?) - ?`,
		syncID, syncID, keep)
	return err
}

// deleteHandledEvents removes a sync's events no longer pending received
// before before.
func (q queries) deleteHandledEvents(ctx context.Context, syncID string, before time.Time) error {
	_, err := q.exec(ctx, "DELETE FROM apps_events WHERE sync_id = ? AND status <> 'pending' AND received_at < ?", syncID, ms(before))
	return err
}

// endedRun is what the Observer is told of a run beside its new report.
type endedRun struct {
	// trigger is the run's trigger; space its app's space.
	trigger, space string
	// started is its first start (zero: none).
	started time.Time
	// report is the report its row holds (an earlier attempt's; "": none).
	report string
}

// endedRunOf reads a run with its app's space for the Observer;
// sql.ErrNoRows when there is no such run.
func (q queries) endedRunOf(ctx context.Context, runID string) (endedRun, error) {
	var r endedRun
	var started int64
	err := q.row(ctx, `SELECT r.trigger_kind, r.started_at, r.report, a.space FROM apps_runs r
 JOIN apps_syncs y ON y.id = r.sync_id JOIN apps_apps a ON a.id = y.app_id WHERE r.id = ?`, runID).Scan(&r.trigger, &started, &r.report, &r.space)
	if err != nil {
		return endedRun{}, err
	}
	if started > 0 {
		r.started = time.UnixMilli(started)
	}
	return r, nil
}

// schedulerState counts, over every host, the runs queued, running and
// paused, and the syncs due at now that no host holds.
func (q queries) schedulerState(ctx context.Context, now time.Time) (SchedulerState, error) {
	var st SchedulerState
	at := ms(now)
	err := q.row(ctx, `SELECT
 (SELECT COUNT(*) FROM apps_runs WHERE status = ?), (SELECT COUNT(*) FROM apps_runs WHERE status = ?),
 (SELECT COUNT(*) FROM apps_runs WHERE status = ?),
 (SELECT COUNT(*) FROM apps_syncs WHERE next_at > 0 AND next_at <= ? AND lease_until < ?)`,
		StatusQueued, StatusRunning, StatusPaused, at, at).Scan(&st.Queued, &st.Running, &st.Paused, &st.Due)
	return st, err
}

// Action runs.

const actionRunCols = "id, app_id, account_id, action, args, entity, status, answer_status, answer, error, ran_by, started_at, duration_ms, upstream"

// insertActionRun adds r to its app's action history, its arguments and
// entity (nil: "") encoded; upstream is its ActionUpstream encoded, ""
// when the action was not called.
func (q queries) insertActionRun(ctx context.Context, r *ActionRun, upstream string) error {
	entity := ""
	if r.Entity != nil {
		entity = mustJSON(r.Entity)
	}
	_, err := q.exec(ctx, `INSERT INTO apps_actions (`+actionRunCols+`)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, r.App, r.Account, r.Action, mustJSON(r.Args), entity, r.Status, r.AnswerStatus, r.Answer,
		r.Error, r.RanBy, ms(r.StartedAt), r.DurationMS, upstream)
	return err
}

// trimActionRuns removes an app's action runs but its latest keep.
func (q queries) trimActionRuns(ctx context.Context, appID string, keep int) error {
	_, err := q.exec(ctx, `DELETE FROM apps_actions WHERE app_id = ? AND id NOT IN
 (SELECT id FROM apps_actions WHERE app_id = ? ORDER BY started_at DESC, id DESC LIMIT ?)`, appID, appID, keep)
	return err
}

// actionRunsOfApp returns an app's latest limit action runs, newest first.
func (q queries) actionRunsOfApp(ctx context.Context, appID string, limit int) ([]*ActionRun, error) {
	rows, err := q.rows(ctx, `SELECT `+actionRunCols+`
 FROM apps_actions WHERE app_id = ? ORDER BY started_at DESC, id DESC LIMIT ?`, appID, limit)
	if err != nil {
		return nil, err
	}
	return store.ScanAll(rows, scanActionRun)
}

// scanActionRun reads a row of apps_actions (actionRunCols).
func scanActionRun(row store.RowScanner) (*ActionRun, error) {
	var r ActionRun
	var args, entity, upstream string
	var started int64
	if err := row.Scan(&r.ID, &r.App, &r.Account, &r.Action, &args, &entity, &r.Status, &r.AnswerStatus, &r.Answer, &r.Error, &r.RanBy, &started, &r.DurationMS, &upstream); err != nil {
		return nil, err
	}
	if upstream != "" {
		if err := json.Unmarshal([]byte(upstream), &r.ActionUpstream); err != nil {
			return nil, fmt.Errorf("decode an action run's upstream calls: %w", err)
		}
	}
	if err := json.Unmarshal([]byte(args), &r.Args); err != nil {
		return nil, fmt.Errorf("decode an action run's arguments: %w", err)
	}
	if entity != "" {
		r.Entity = &EntityRef{}
		if err := json.Unmarshal([]byte(entity), r.Entity); err != nil {
			return nil, fmt.Errorf("decode an action run's entity: %w", err)
		}
	}
	r.StartedAt = time.UnixMilli(started).UTC()
	return &r, nil
}
