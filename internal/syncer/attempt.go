package syncer

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Each type of a run is a unit of work of its own: a type that fails (a
// malformed page, a cursor that loops, a refused schema, an app that kept
// failing) fails alone, with its reason; the other types go on, complete
// and commit, and the run ends partial (ErrPartial). Only the types that
// completed a full run have their undelivered entities removed.
//
// A type's attempt at a complete synchronization may span runs: a failed
// type is carried to the next run, which resumes it from the page it
// failed at (with the lastSynchronizedAt it began with), so that what it
// delivered before still counts for the removal at its end. A type that
// fails at the same page maxFailsAtPage runs in a row starts over from its
// first page, and so does one whose paging looped or went over a bound.

// maxFailsAtPage is how many runs in a row a type may fail at one page
// before its next run starts over from its first page.
const maxFailsAtPage = 3

// attempt is a type's attempt at a complete synchronization.
type attempt struct {
	// Since is the run the attempt began in: the entities it delivered
	// carry that run's number or a later one.
	Since int64 `json:"since"`
	// Started is when that run began: the type's lastSynchronizedAt once
	// the attempt completes.
	Started string `json:"started"`
	// LastSync is the lastSynchronizedAt the attempt's pages are asked with.
	LastSync *string `json:"last_sync"`
	// FailedAt is the page number of the attempt's last failure, and
	// Fails the runs in a row that failed there.
	FailedAt int `json:"failed_at,omitempty"`
	Fails    int `json:"fails,omitempty"`

	// Set in a carried attempt (state.Carry) only: where it resumes (nil:
	// at its first page), its pages so far and their mode, and the
	// selection it was made with (another selection starts afresh).
	Page   json.RawMessage            `json:"page,omitempty"`
	Pages  int                        `json:"pages,omitempty"`
	Mode   string                     `json:"mode,omitempty"`
	Types  []string                   `json:"types,omitempty"`
	Filter map[string]json.RawMessage `json:"filter,omitempty"`
}

// lastRun is the last run that completed a type: its start and selection.
type lastRun struct {
	Started string                     `json:"started"`
	Types   []string                   `json:"types"`
	Filter  map[string]json.RawMessage `json:"filter"`
}

// attempt returns type t's attempt in the run (one begun in this run for a
// run saved by an older version, which kept none).
func (r *runState) attempt(t string) *attempt {
	if a := r.Attempts[t]; a != nil {
		return a
	}
	if r.Attempts == nil {
		r.Attempts = map[string]*attempt{}
	}
	a := &attempt{Since: r.Seq, Started: r.Started, LastSync: r.LastSync}
	r.Attempts[t] = a
	return a
}

// lastSyncOf is the lastSynchronizedAt of a new attempt at type t with the
// selection types and filter: the start of the last run that completed t
// with the same selection (a delta from another selection would miss what
// this one adds), else none.
func (s *state) lastSyncOf(t string, types []string, filter map[string]json.RawMessage) *string {
	if l := s.TypeLast[t]; l != nil {
		if sameTypes(l.Types, types) && sameFilter(l.Filter, filter) {
			started := l.Started
			return &started
		}
		return nil
	}
	// A state saved by an older version keeps the last run that completed
	// every type.
	if s.LastSuccess != "" && slices.Contains(s.LastTypes, t) && sameTypes(s.LastTypes, types) && sameFilter(s.LastFilter, filter) {
		ls := s.LastSuccess
		return &ls
	}
	return nil
}

// beginAttempts sets each type's attempt in a new run r: the one carried
// from an earlier run with the same selection, resumed where it failed, or
// a new one.
func (e *engine) beginAttempts(s *state, r *runState, failed map[string]string) {
	for _, t := range r.Types {
		c := s.Carry[t]
		if failed[t] != "" {
			continue // keeps its carried attempt, if any, for a later run
		}
		delete(s.Carry, t)
		if c != nil && !e.opts.Full && sameTypes(c.Types, r.Types) && sameFilter(c.Filter, r.Filter) {
			r.Attempts[t] = &attempt{Since: c.Since, Started: c.Started, LastSync: c.LastSync, FailedAt: c.FailedAt, Fails: c.Fails}
			if len(c.Page) > 0 {
				r.Page[t] = c.Page
			}
			r.Counts[t] = &TypeReport{Type: t, Pages: c.Pages, Mode: c.Mode}
			e.log(fmt.Sprintf("type %s: resuming the attempt that failed in an earlier run, at page %d", t, c.Pages+1))
			continue
		}
		a := &attempt{Since: r.Seq, Started: r.Started, LastSync: s.lastSyncOf(t, r.Types, r.Filter)}
		if a.LastSync != nil && (e.opts.Full || e.gained[t]) {
			a.LastSync = nil
			if !e.opts.Full {
				e.log(fmt.Sprintf("type %s: its schema gained fields: asked for in full", t))
			}
		}
		r.Attempts[t] = a
	}
}

// gainedFields are the types of the old mapping whose new mapping has
// fields the old one had not.
func gainedFields(old, now map[string]*typeMap) map[string]bool {
	out := map[string]bool{}
	for t, tm := range now {
		o := old[t]
		if o == nil {
			continue
		}
		for id := range tm.Fields {
			if _, ok := o.Fields[id]; !ok {
				out[t] = true
				break
			}
		}
	}
	return out
}

// typeError is the failure of one type: the run goes on with the others.
type typeError struct {
	err error
	// page is the page number the type failed at.
	page int
	// restart drops the type's position: its next run starts over from its
	// first page (a cursor that loops, a bound of the run).
	restart bool
	// untried: the type failed before its pages were asked for (its
	// schema): its attempt, carried or not, is left as it was.
	untried bool
}

func (e *typeError) Error() string { return e.err.Error() }
func (e *typeError) Unwrap() error { return e.err }

// failType records type t's failure in the run: its reason, and where its
// next run resumes (or that it starts over).
func (e *engine) failType(run *runState, tr *TypeReport, t string, te *typeError) {
	reason := te.err.Error()
	restart := te.restart
	if te.untried {
		delete(run.Attempts, t)
	} else if a := run.attempt(t); !restart {
		if a.FailedAt == te.page {
			a.Fails++
		} else {
			a.FailedAt, a.Fails = te.page, 1
		}
		if a.Fails >= maxFailsAtPage {
			restart = true
			reason += fmt.Sprintf(" (page %d failed in %d runs in a row: the next run starts this type over from its first page)", te.page, a.Fails)
		}
	}
	if restart {
		delete(run.Page, t)
		if run.Restart == nil {
			run.Restart = map[string]bool{}
		}
		run.Restart[t] = true
	}
	if run.Failed == nil {
		run.Failed = map[string]string{}
	}
	run.Failed[t] = reason
	tr.Status, tr.Error = TypeFailed, reason
	e.log(fmt.Sprintf("type %s failed: %s", t, reason))
}

// carry keeps the attempt of a type that failed in the run for the next
// run (or drops it, for one that starts over).
func (s *state) carry(run *runState, t string, tr *TypeReport) {
	if run.Restart[t] {
		delete(s.Carry, t)
		return
	}
	a, ok := run.Attempts[t]
	if !ok {
		return // never attempted in this run (its schema failed): its carried attempt stays
	}
	if s.Carry == nil {
		s.Carry = map[string]*attempt{}
	}
	c := *a
	c.Page, c.Pages, c.Mode, c.Types, c.Filter = run.Page[t], tr.Pages, tr.Mode, run.Types, run.Filter
	s.Carry[t] = &c
}

// runError is the error of a run that ended with failed types: ErrPartial
// when others completed; when none did, the failures themselves (wrapping
// ErrPaused when every one may pass later).
func runError(rep *Report, causes map[string]error) error {
	failed := rep.Failed()
	if len(failed) == 0 {
		return nil
	}
	var b strings.Builder
	paused := true
	var last error
	for i, tr := range failed {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "type %s: %s", tr.Type, tr.Error)
		if c := causes[tr.Type]; c != nil {
			last = c
			if !errors.Is(c, ErrPaused) {
				paused = false
			}
		} else {
			paused = false
		}
	}
	if len(failed) < len(rep.Types) {
		return fmt.Errorf("%w (%d of %d types): %s", ErrPartial, len(failed), len(rep.Types), b.String())
	}
	if len(failed) == 1 && last != nil {
		return last
	}
	if paused && last != nil {
		return fmt.Errorf("every type failed: %s: %w", b.String(), last)
	}
	return fmt.Errorf("every type failed: %s", b.String())
}

// resumable reports whether every type of the run failed and each can
// resume where it failed (none starts over): the run is then kept in
// progress rather than ended, as a run stopped as a whole is.
func resumable(run *runState, types []string) bool {
	for _, t := range types {
		if run.Failed[t] == "" || run.Restart[t] {
			return false
		}
	}
	return len(types) > 0
}
