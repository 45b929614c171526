package apps

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
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
	UpstreamReport
	// RanBy names who ran it.
	RanBy string `json:"ranBy"`
	// StartedAt is when it ran; DurationMS how long it took.
	StartedAt  time.Time `json:"startedAt"`
	DurationMS int64     `json:"durationMs"`
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

// record adds a run of an action to the app's history, with ex, the action
// call's exchange (nil: none); a failure to record is logged: the action
// ran.
func (s *Actions) record(ctx context.Context, req ActionRequest, a *App, acc *Account, act *protocol.Action, args map[string]string, m *masker,
	ex *Exchange, started time.Time, runErr error) {
	run := &ActionRun{ID: newID(), App: a.ID, Account: acc.ID, Action: act.Action, Args: map[string]string{}, Entity: req.Entity,
		Status: StatusSucceeded, RanBy: req.By, StartedAt: started}
	for k, v := range args {
		run.Args[k] = m.mask(v)
	}
	upstream := ""
	if ex != nil {
		run.AnswerStatus, run.Answer = ex.Status, ex.Response
		run.UpstreamReport = ex.UpstreamReport
		upstream = mustJSON(run.UpstreamReport)
	}
	if runErr != nil {
		run.Status, run.Error = StatusFailed, runErr.Error()
	}
	run.DurationMS = max(s.now().Sub(started).Milliseconds(), 0)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := s.tx(ctx, func(tx *sql.Tx) error {
		q := s.on(tx)
		if err := q.insertActionRun(ctx, run, upstream); err != nil {
			return err
		}
		// Beyond the latest Config.KeepActionRuns of the app, the oldest go.
		return q.trimActionRuns(ctx, a.ID, s.cfg.KeepActionRuns)
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
	out, err := s.on(s.db).actionRunsOfApp(ctx, appID, listLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("list action runs: %w", err)
	}
	return out, nil
}
