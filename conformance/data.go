package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/pagerules"
)

// dataChecks are the checks evaluated per synchronized type.
var dataChecks = []string{
	CheckPageShape, CheckPagingEnds, CheckCursorRepeats, CheckPageRepeats, CheckItemsSchema, CheckItemsExtra, CheckItemsWireForm,
	CheckIDsUnique, CheckDeterministic, CheckDelta, CheckSyncTypeMixed, CheckDeltaDeclared,
}

// ruleChecks files each item and page rule (shared with appkittest and the
// SDK, see internal/pagerules) under its check, with what was expected.
var ruleChecks = map[pagerules.Rule]struct{ check, expected string }{
	pagerules.UnknownKey:      {CheckItemsExtra, "only keys of the schema"},
	pagerules.ValueShape:      {CheckItemsSchema, "values of the declared types"},
	pagerules.WireForm:        {CheckItemsWireForm, "values in the form the protocol states"},
	pagerules.IDMissing:       {CheckItemsSchema, "id: a non-empty string"},
	pagerules.IDNotString:     {CheckItemsSchema, "id: a non-empty string"},
	pagerules.IDRepeated:      {CheckIDsUnique, "each id once per run"},
	pagerules.SyncAction:      {CheckDelta, `__syncAction "SET" or "REMOVE" on every delta item`},
	pagerules.RemoveInFull:    {CheckSyncTypeMixed, "REMOVE only in delta pages"},
	pagerules.MixedSync:       {CheckSyncTypeMixed, "the pages of a run all full or all delta"},
	pagerules.DeltaUndeclared: {CheckDeltaDeclared, "delta pages only from types whose schema declares __syncAction"},
	pagerules.CursorRepeats:   {CheckCursorRepeats, "a new nextPageConfig on every page"},
	pagerules.PageRepeats:     {CheckPageRepeats, "every page moves on: never the ids of an earlier page"},
	pagerules.Coerced:         {CheckItemsWireForm, "values in the form the protocol states, not one the host converts"},
}

// findings collects the problems of one type's runs by check id.
type findings map[string][]problem

func (f findings) add(id, expected, got string) {
	f[id] = append(f[id], problem{expected, got})
}

// walkResult is what a run over every page of a type gave.
type walkResult struct {
	ids      []string
	complete bool   // the last page was reached
	why      string // why the run stopped early, when it did
	// repeat is the check of the repeat (data.cursor-repeats or
	// data.page-repeats) that stopped the run, "" when none did: the
	// pages until it were read and checked.
	repeat string
}

// afterRepeat are the checks that a run stopped by a repeat leaves
// undecided when they found nothing: they need the run's end, a second run
// or the run with lastSynchronizedAt, which the stop leaves out.
var afterRepeat = map[string]bool{CheckPagingEnds: true, CheckDeterministic: true, CheckDelta: true, CheckDeltaDeclared: true}

// checkData synchronizes every type twice in full and once with
// lastSynchronizedAt, checking every page.
func (r *runner) checkData(ctx context.Context) {
	for _, t := range r.cfg.Types {
		if !slices.Contains(r.syncTypes(), t) {
			for _, id := range dataChecks {
				r.skip(id, t, "not a type of the config answer (--types)")
			}
		}
	}
	r.stage("data")
	types := r.syncTypes()
	if r.typesLeft > 0 {
		for _, id := range dataChecks {
			r.skip(id, fmt.Sprintf("%d more types", r.typesLeft),
				fmt.Sprintf("beyond the bound of %d types (Config.MaxTypes, appkit conform --max-types)", r.cfg.MaxTypes))
		}
	}
	for i, t := range types {
		if r.stopped {
			return
		}
		if r.cfg.Progress != nil {
			r.cfg.Progress(Progress{Stage: "data", Type: t, Index: i + 1, Types: len(types)})
		}
		sch, ok := r.schema[t]
		if !ok {
			for _, id := range dataChecks {
				r.skip(id, t, "the schema lacks the type")
			}
			continue
		}
		f := findings{}
		first := r.walk(ctx, t, nil, sch, f)
		if r.stopped {
			return
		}
		if !first.complete && first.why != "" {
			for _, id := range dataChecks {
				switch {
				case len(f[id]) > 0:
					r.verdict(id, t, f[id])
				case first.repeat != "" && !afterRepeat[id] && !(first.repeat == CheckCursorRepeats && id == CheckPageRepeats):
					// Checked over the pages read until the repeat. (A
					// page repeated with its cursor is filed with the
					// cursor: data.page-repeats stays undecided.)
					r.pass(id, t)
				default:
					r.skip(id, t, first.why)
				}
			}
			continue
		}
		deterministic := "the first run did not reach its last page"
		if first.complete {
			second := r.walk(ctx, t, nil, sch, f)
			deterministic = ""
			if !second.complete {
				deterministic = "the second run did not reach its last page"
				if second.why != "" {
					deterministic = second.why
				}
			} else if d := diffIDs(first.ids, second.ids); d != "" {
				f.add(CheckDeterministic, "the same ids in two full runs", d)
			}
		}
		since := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		delta := r.walk(ctx, t, &since, sch, f)
		for _, id := range dataChecks {
			switch {
			case id == CheckDeterministic && deterministic != "" && len(f[id]) == 0:
				r.skip(id, t, deterministic)
			case id == CheckDelta && !delta.complete && len(f[id]) == 0:
				why := delta.why
				if why == "" {
					why = "the run with lastSynchronizedAt did not reach its last page"
				}
				r.skip(id, t, why)
			default:
				r.verdict(id, t, f[id])
			}
		}
	}
}

// diffIDs compares the id sets of two runs; "" when equal.
func diffIDs(a, b []string) string {
	in := func(list []string) map[string]bool {
		m := make(map[string]bool, len(list))
		for _, s := range list {
			m[s] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var onlyA, onlyB []string
	for s := range ma {
		if !mb[s] {
			onlyA = append(onlyA, s)
		}
	}
	for s := range mb {
		if !ma[s] {
			onlyB = append(onlyB, s)
		}
	}
	if len(onlyA)+len(onlyB) == 0 {
		return ""
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return fmt.Sprintf("%d ids only in the first run %s, %d only in the second %s", len(onlyA), firstFew(onlyA), len(onlyB), firstFew(onlyB))
}

func firstFew(s []string) string {
	if len(s) > 3 {
		return fmt.Sprintf("%q…", s[:3])
	}
	return fmt.Sprintf("%q", s)
}

// walk requests every page of type t, following nextPageConfig, and files
// what it finds. since, when set, is sent as lastSynchronizedAt.
func (r *runner) walk(ctx context.Context, t string, since *string, sch pagerules.Schema, f findings) walkResult {
	req := map[string]any{
		"requestedType": t, "types": r.syncTypes(), "filter": r.filterValues(), "account": r.account,
		"pagination": nil, "lastSynchronizedAt": nil, "operationId": "conformance-" + nonce(8),
		"version": r.desc.Version, "schema": r.rawSchema,
	}
	shape := CheckPageShape // where a wrong synchronizationType goes
	if since != nil {
		req["lastSynchronizedAt"] = *since
		shape = CheckDelta
	}
	var res walkResult
	rules := pagerules.NewRun(t, sch)
	seenID := map[string]bool{}
	deadline := time.Now().Add(r.cfg.RunTimeout)
	for page := 1; ; page++ {
		if r.stopped || ctx.Err() != nil {
			r.stopped = true
			return res
		}
		if page > r.cfg.MaxPages {
			f.add(CheckPagingEnds, fmt.Sprintf("the last page within %d pages", r.cfg.MaxPages), "hasNext is still true")
			return res
		}
		if time.Now().After(deadline) {
			f.add(CheckPagingEnds, fmt.Sprintf("the last page within %s", r.cfg.RunTimeout), fmt.Sprintf("still paging at page %d", page))
			return res
		}
		a := r.postRetrying(ctx, protocol.PathData, req, deadline)
		if !a.ok() {
			res.why = fmt.Sprintf("page %d did not answer (see transport.answers)", page)
			return res
		}
		body, err := decodeMap(a)
		if err != nil {
			f.add(CheckPageShape, "200 {items, pagination, synchronizationType}", fmt.Sprintf("page %d: %v", page, err))
			return res
		}
		at := fmt.Sprintf("page %d: ", page)
		items, isArr := body["items"].([]any)
		if !isArr {
			f.add(CheckPageShape, "items: an array", at+describeValue(body["items"], body["items"] != nil))
		}
		syncType, knownType := protocol.SyncFull, true
		if v, ok := body["synchronizationType"]; ok && v != nil {
			s, _ := v.(string)
			if s != protocol.SyncFull && s != protocol.SyncDelta {
				f.add(shape, `synchronizationType "full" or "delta"`, at+describeValue(v, true))
				knownType = false
			} else {
				syncType = s
			}
		}
		next, more := r.nextPage(body, at, f)
		ids, vs := rules.Page(items, syncType, more, next)
		repeat := fileViolations(vs, knownType, f)
		if repeat != "" {
			// The sync stops the type at once on a repeated cursor or
			// page: the items after it would never come, and walking on
			// would only repeat requests until the bounds.
			res.why = fmt.Sprintf("the walk stopped at page %d, whose %s (see %s), as the sync stops the type there: what would come after it was not read", page, repeatWhat[repeat], repeat)
			res.repeat = repeat
			return res
		}
		if syncType != protocol.SyncDelta {
			for _, id := range ids {
				if id != "" && !seenID[id] {
					seenID[id] = true
					res.ids = append(res.ids, id)
				}
			}
		}
		if !more {
			res.complete = next == nil
			return res
		}
		req["pagination"] = json.RawMessage(next)
	}
}

// repeatWhat words a repeat for the why of the checks a stopped run skips.
var repeatWhat = map[string]string{
	CheckCursorRepeats: "next cursor was sent before in the run",
	CheckPageRepeats:   "ids are exactly those of an earlier page",
}

// fileViolations files the violations of one page under their checks, and
// returns the check of a repeat (CheckCursorRepeats or CheckPageRepeats)
// when the page repeats, "" otherwise. A repeated page repeats each of its
// ids, which are not filed again under data.ids-unique; a page that
// repeats both its cursor and its ids (an app ignoring its cursor) is one
// finding, of the cursor, that names the page's repeat too. knownType is
// false when the page's synchronizationType is not full or delta (already
// reported).
func fileViolations(vs []pagerules.Violation, knownType bool, f findings) string {
	var cursor, page *pagerules.Violation
	for i, v := range vs {
		switch v.Rule {
		case pagerules.CursorRepeats:
			cursor = &vs[i]
		case pagerules.PageRepeats:
			page = &vs[i]
		}
	}
	for _, v := range vs {
		switch {
		case !knownType && (v.Rule == pagerules.RemoveInFull || v.Rule == pagerules.MixedSync):
			continue // follows from the unknown synchronizationType, already reported
		case page != nil && v.Rule == pagerules.IDRepeated:
			continue // follows from the repeated page
		case v.Rule == pagerules.PageRepeats && cursor != nil:
			continue // named with the repeated cursor
		}
		got := v.Error()
		if v.Rule == pagerules.CursorRepeats && page != nil {
			got += "; and " + page.Detail
		}
		rc := ruleChecks[v.Rule]
		f.add(rc.check, rc.expected, got)
	}
	switch {
	case cursor != nil:
		return CheckCursorRepeats
	case page != nil:
		return CheckPageRepeats
	}
	return ""
}

// nextPage reads a page's pagination: the next cursor (canonical JSON) and
// whether to go on. A broken pagination returns (non-nil, false).
func (r *runner) nextPage(body map[string]any, at string, f findings) (json.RawMessage, bool) {
	v, ok := body["pagination"]
	if !ok || v == nil {
		return nil, false
	}
	p, isObj := v.(map[string]any)
	if !isObj {
		f.add(CheckPageShape, "pagination: an object", at+describeValue(v, true))
		return json.RawMessage("null"), false
	}
	hasNext, isBool := p["hasNext"].(bool)
	if !isBool {
		f.add(CheckPageShape, "pagination.hasNext: a boolean", at+describeValue(p["hasNext"], p["hasNext"] != nil))
		return json.RawMessage("null"), false
	}
	if !hasNext {
		return nil, false
	}
	cur, isObj := p["nextPageConfig"].(map[string]any)
	if !isObj {
		f.add(CheckPageShape, "pagination.nextPageConfig: an object when hasNext is true", at+describeValue(p["nextPageConfig"], p["nextPageConfig"] != nil))
		return json.RawMessage("null"), false
	}
	b, _ := json.Marshal(cur) // maps marshal with sorted keys: a canonical form
	return b, true
}

// maxRetries bounds the retries of a page answered with tryLater.
const maxRetries = 3

// postRetrying posts like post, and retries the same request after an
// error answer that carries tryLater: true, as the service does: after the
// answer's Retry-After (at most 10 s) or 1 s, at most maxRetries times and
// never past deadline.
func (r *runner) postRetrying(ctx context.Context, path string, body any, deadline time.Time) answer {
	for attempt := 0; ; attempt++ {
		a := r.post(ctx, path, body)
		if !a.ok() || a.status < 400 || attempt == maxRetries || !tryLater(a) {
			return a
		}
		wait := time.Second
		if s, err := strconv.Atoi(a.header.Get("Retry-After")); err == nil && s >= 0 {
			wait = min(time.Duration(s)*time.Second, 10*time.Second)
		}
		if time.Now().Add(wait).After(deadline) {
			return a
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			r.stopped = true // the answer to retry says nothing of the page
			return a
		case <-t.C:
		}
	}
}

// tryLater reports whether an error answer asks to retry later.
func tryLater(a answer) bool {
	var body struct {
		TryLater bool `json:"tryLater"`
	}
	return json.Unmarshal(a.body, &body) == nil && body.TryLater
}
