package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
)

// ActionRun is one run of an action in an app's action history.
type ActionRun struct {
	// ID identifies the run; App, Account and Action what ran.
	ID      string `json:"id"`
	App     string `json:"app"`
	Account string `json:"account"`
	Action  string `json:"action"`
	// Args are the arguments as sent (templates rendered, secrets masked).
	Args map[string]string `json:"args"`
	// Entity is the entity the arguments were rendered against (nil: none).
	Entity *EntityRef `json:"entity,omitempty"`
	// Status is succeeded or failed.
	Status string `json:"status"`
	// AnswerStatus and Answer are the app's answer to the action (its
	// HTTP status, 0 when none came, and body, secrets masked, cut at
	// 16 KiB).
	AnswerStatus int    `json:"answerStatus"`
	Answer       string `json:"answer,omitempty"`
	// Error says why it failed (secrets masked).
	Error string `json:"error,omitempty"`
	// RequestID, Upstream and UpstreamDropped are the action call's
	// request id and the calls the app reported making to its upstream
	// API while running it, as an [Exchange] holds them.
	ActionUpstream
	// RanBy names who ran it.
	RanBy string `json:"ranBy"`
	// StartedAt is when it ran; DurationMS how long it took.
	StartedAt  time.Time `json:"startedAt"`
	DurationMS int64     `json:"durationMs"`
}

// ActionUpstream is what an action call's exchange says of the app's own
// calls: its request id and the upstream calls the app reported.
type ActionUpstream struct {
	RequestID       string         `json:"requestId,omitempty"`
	Upstream        []UpstreamCall `json:"upstream,omitempty"`
	UpstreamDropped int            `json:"upstreamDropped,omitempty"`
}

// actionExchange is the action call's exchange among what rec kept (nil:
// the action was not called).
func actionExchange(rec *recorder) *Exchange {
	list, _ := rec.exchanges()
	for i := range list {
		if list[i].Path == protocol.PathActionExecute {
			return &list[i]
		}
	}
	return nil
}

// upstreamOf is what an exchange says of the app's upstream calls.
func upstreamOf(ex Exchange) ActionUpstream {
	return ActionUpstream{RequestID: ex.RequestID, Upstream: ex.Upstream, UpstreamDropped: ex.UpstreamDropped}
}

// record adds a run of an action to the app's history, with ex, the action
// call's exchange (nil: none); a failure to record is logged: the action
// ran.
func (s *Actions) record(ctx context.Context, req ActionRequest, a *App, acc *Account, act *protocol.Action, args map[string]string, m *masker,
	ex *Exchange, started time.Time, runErr error) {
	run := ActionRun{ID: newID(), Args: map[string]string{}, Status: StatusSucceeded, RanBy: req.By}
	for k, v := range args {
		run.Args[k] = m.mask(v)
	}
	upstream := ""
	if ex != nil {
		run.AnswerStatus, run.Answer = ex.Status, ex.Response
		run.ActionUpstream = upstreamOf(*ex)
		upstream = mustJSON(run.ActionUpstream)
	}
	if runErr != nil {
		run.Status, run.Error = StatusFailed, runErr.Error()
	}
	entity := ""
	if req.Entity != nil {
		entity = mustJSON(req.Entity)
	}
	dur := s.now().Sub(started).Milliseconds()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO apps_actions (id, app_id, account_id, action, args, entity, status, answer_status, answer, error, ran_by, started_at, duration_ms, upstream)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), run.ID, a.ID, acc.ID, act.Action, mustJSON(run.Args), entity, run.Status, run.AnswerStatus, run.Answer,
			run.Error, run.RanBy, ms(started), max(dur, 0), upstream); err != nil {
			return err
		}
		// Beyond the latest Config.KeepActionRuns of the app, the oldest go.
		_, err := tx.ExecContext(ctx, s.q(`DELETE FROM apps_actions WHERE app_id = ? AND id NOT IN
 (SELECT id FROM apps_actions WHERE app_id = ? ORDER BY started_at DESC, id DESC LIMIT ?)`), a.ID, a.ID, s.cfg.KeepActionRuns)
		return err
	})
	if err != nil {
		s.log.Error().Err(err).Str("app", a.ID).Str("action", act.Action).Msg("apps: recording an action run")
	}
}

// ActionRuns lists an app's latest action runs, newest first (limit: 1 to
// 1000, else 50).
func (s *Actions) ActionRuns(ctx context.Context, appID string, limit int) ([]*ActionRun, error) {
	if _, err := s.reg.App(ctx, appID); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 1000 {
		limit = 50
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, app_id, account_id, action, args, entity, status, answer_status, answer, error, ran_by, started_at, duration_ms, upstream
 FROM apps_actions WHERE app_id = ? ORDER BY started_at DESC, id DESC LIMIT ?`), appID, limit)
	if err != nil {
		return nil, fmt.Errorf("list action runs: %w", err)
	}
	out, err := store.ScanAll(rows, scanActionRun)
	if err != nil {
		return nil, fmt.Errorf("list action runs: %w", err)
	}
	return out, nil
}

// scanActionRun reads a row of apps_actions, columns as ActionRuns selects
// them.
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
