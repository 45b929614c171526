package apps

import (
	"context"
	"encoding/json"
	"time"

	"github.com/appkitgo/appkit/internal/syncer"
)

// Observer is told about the service's runs (Config.Observer): the host's
// metrics are fed from it. Its methods are called on the runs' goroutines
// and must not block.
type Observer interface {
	// RunEnded is told about every run that ends here (scheduled, manual
	// or webhook), as it is recorded.
	RunEnded(RunEnd)
	// PageWritten is told about every page a run wrote: the app (its
	// space), the engine's progress event, and the time since the type's
	// previous page (or its start).
	PageWritten(app string, ev syncer.Event, took time.Duration)
}

// RunEnd is a run that ended, for an Observer.
type RunEnd struct {
	// App is the app's own space (its descriptor's id, "tracker").
	App string
	// Trigger is schedule, manual or webhook; Status the run's end
	// (succeeded, partial, failed, paused).
	Trigger, Status string
	// Duration is the run's time from its start (a run resumed after a
	// pause counts from its first start), as the history shows it.
	Duration time.Duration
	// Types are what this attempt of the run did: the report's counts,
	// less those a paused earlier attempt of the same run already reported.
	Types []*syncer.TypeReport
	// Events counts the webhook events applied.
	Events int
}

// runEnded tells the Observer about a run ending with report, before its
// row is updated (the row still holds an earlier attempt's report).
func (s *core) runEnded(ctx context.Context, runID, status string, report *RunReport) {
	o := s.cfg.Observer
	if o == nil {
		return
	}
	run, err := s.on(s.db).endedRunOf(ctx, runID)
	if err != nil {
		s.log.Debug().Err(err).Str("run", runID).Msg("apps: reading an ended run for its metrics")
		return
	}
	end := RunEnd{App: run.space, Trigger: run.trigger, Status: status}
	if !run.started.IsZero() {
		end.Duration = max(s.now().Sub(run.started), 0)
	}
	if report != nil {
		end.Types, end.Events = report.Types, report.Events
		var before RunReport
		if run.report != "" && json.Unmarshal([]byte(run.report), &before) == nil && len(before.Types) > 0 {
			end.Types = subtractTypes(report.Types, before.Types)
		}
	}
	o.RunEnded(end)
}

// subtractTypes is what each type did since an earlier report of the same
// run.
func subtractTypes(now, before []*syncer.TypeReport) []*syncer.TypeReport {
	old := map[string]*syncer.TypeReport{}
	for _, t := range before {
		old[t.Type] = t
	}
	out := make([]*syncer.TypeReport, 0, len(now))
	for _, t := range now {
		d := *t
		if b := old[t.Type]; b != nil {
			d.Pages -= b.Pages
			d.Items -= b.Items
			d.Created -= b.Created
			d.Updated -= b.Updated
			d.Unchanged -= b.Unchanged
			d.Removed -= b.Removed
			d.Skipped -= b.Skipped
			d.Duplicates -= b.Duplicates
			d.Values = nil
			for _, v := range t.Values {
				c := *v
				for _, bv := range b.Values {
					if bv.Field == v.Field && bv.Outcome == v.Outcome {
						c.Count -= bv.Count
					}
				}
				d.Values = append(d.Values, &c)
			}
		}
		out = append(out, &d)
	}
	return out
}

// observePages wraps a run's progress to tell the Observer about each
// page of app's run.
func (s *core) observePages(app string, next func(syncer.Event)) func(syncer.Event) {
	return ObservePages(s.cfg.Observer, app, next)
}

// ObservePages wraps the progress of one run of app (next; nil: none) to
// tell o about each page the run writes, with the time since the type's
// previous page (or its start), as the service does for its runs; next
// as it is when o is nil. A program that measures a run as the host
// observes it (the sync benchmark) uses it too.
func ObservePages(o Observer, app string, next func(syncer.Event)) func(syncer.Event) {
	if o == nil {
		return next
	}
	last := map[string]time.Duration{}
	return func(ev syncer.Event) {
		o.PageWritten(app, ev, max(ev.Elapsed-last[ev.Type], 0))
		last[ev.Type] = ev.Elapsed
		if next != nil {
			next(ev)
		}
	}
}

// SchedulerState counts, over every host of the store, the runs queued,
// running and paused, and the syncs due that no host holds yet.
type SchedulerState struct {
	Queued, Running, Paused, Due int
}

// State reads the SchedulerState.
func (s *Scheduler) State(ctx context.Context) (SchedulerState, error) {
	return s.on(s.db).schedulerState(ctx, s.now())
}
