package syncer

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/pagerules"
)

// ErrLimit is wrapped by the error of a run stopped by one of the engine's
// limits (see the package documentation): a schema too large to map, a run
// with too many pages or empty pages, or one that lasted too long. The
// error names the limit.
var ErrLimit = errors.New("over a limit of the host")

// Limits of what the engine maps from one app in one run. A schema over any
// of them is refused before anything is written, with an error wrapping
// ErrLimit that names the limit.
const (
	// MaxTypes bounds the types a run synchronizes.
	MaxTypes = 200
	// MaxFieldsPerType bounds the fields of one type's schema.
	MaxFieldsPerType = 500
	// MaxFields bounds the fields of all the selected types' schemas.
	MaxFields = 5000
	// MaxOptions bounds the declared options of one select field.
	MaxOptions = 1000
	// MaxAnswer bounds the answers other than data pages (the descriptor,
	// config, schema, validate, datalists...), which are decoded whole;
	// Options.MaxBody applies too when smaller.
	MaxAnswer = 16 << 20
	// MaxCursor bounds a nextPageConfig (kept in the run's saved state and
	// sent back with the next data request).
	MaxCursor = 64 << 10
)

// schemaBatch bounds the schema changes made in one write transaction when
// the schema is mapped: the store's write lock is never held for more than
// this many changes, so other writes and the run's own bookkeeping go on
// between the steps.
const schemaBatch = 32

// checkTypeCount refuses a selection of more types than MaxTypes.
func checkTypeCount(types []string) error {
	if len(types) > MaxTypes {
		return fmt.Errorf("%w: the run selects %d types; the host synchronizes at most %d (MaxTypes) in one run: choose the types to synchronize", ErrLimit, len(types), MaxTypes)
	}
	return nil
}

// checkTypeSchemaSize refuses a type's schema over MaxFieldsPerType or
// MaxOptions.
func checkTypeSchemaSize(schema map[string]map[string]protocol.SchemaField, t string) error {
	fields := schema[t]
	if len(fields) > MaxFieldsPerType {
		return fmt.Errorf("%w: the schema of type %q has %d fields; the host maps at most %d per type (MaxFieldsPerType)", ErrLimit, t, len(fields), MaxFieldsPerType)
	}
	for id, f := range fields {
		if len(f.Options) > MaxOptions {
			return fmt.Errorf("%w: field %s.%s declares %d options; the host takes at most %d per field (MaxOptions)", ErrLimit, t, id, len(f.Options), MaxOptions)
		}
	}
	return nil
}

// checkSchemaSize refuses a schema over MaxFieldsPerType, MaxFields or
// MaxOptions.
func checkSchemaSize(schema map[string]map[string]protocol.SchemaField, types []string) error {
	total := 0
	for _, t := range types {
		if err := checkTypeSchemaSize(schema, t); err != nil {
			return err
		}
		total += len(schema[t])
	}
	if total > MaxFields {
		return fmt.Errorf("%w: the schemas of the selected types have %d fields in all; the host maps at most %d in one run (MaxFields)", ErrLimit, total, MaxFields)
	}
	return nil
}

// pageGuard watches the pages of one type in a run for the run's bounds:
// pages in all, consecutive empty pages, the time, and the paging rules
// shared with the conformance suite (pagerules.Paging: a cursor sent
// before, a page repeating an earlier page's ids).
type pageGuard struct {
	e      *engine
	t      string
	paging *pagerules.Paging
	empty  int
}

// newPageGuard starts the watch at page number page, asked for with the
// cursor cur (nil for the first page).
func newPageGuard(e *engine, t string, page int, cur json.RawMessage) *pageGuard {
	g := &pageGuard{e: e, t: t, paging: pagerules.NewPaging(t)}
	g.paging.Resume(page, cur)
	return g
}

// check checks a page (the number-th of the type) and its next cursor: an
// error says why the type stops. restart says whether the type's attempt
// is dropped (its next run starts from the first page); a run out of time
// (MaxRunTime) is not: it stops as a whole, to be resumed.
func (g *pageGuard) check(page int, p *page) (restart bool, err error) {
	opts := &g.e.opts
	if p.hasNext && len(p.next) > MaxCursor {
		return true, fmt.Errorf("%w: data of type %s, page %d: a nextPageConfig of %d bytes; the host keeps at most %d (MaxCursor)", ErrLimit, g.t, page, len(p.next), MaxCursor)
	}
	for _, v := range g.paging.Page(p.ids, p.hasNext, p.next) {
		switch v.Rule {
		case pagerules.CursorRepeats:
			return true, fmt.Errorf("%w: data of type %s, page %d: the app sent a nextPageConfig it had already sent in this run (%s); stopping rather than looping", ErrLoop, g.t, page, v.Detail)
		case pagerules.PageRepeats:
			return true, fmt.Errorf("%w: data of type %s, page %d: %s", ErrLoop, g.t, page, v.Detail)
		}
	}
	if !p.hasNext {
		return false, nil
	}
	if p.items == 0 {
		g.empty++
	} else {
		g.empty = 0
	}
	switch {
	case g.empty >= opts.MaxEmptyPages:
		return true, fmt.Errorf("%w: data of type %s: %d pages in a row without items (MaxEmptyPages)", ErrLimit, g.t, g.empty)
	case page >= opts.MaxPages:
		return true, fmt.Errorf("%w: data of type %s: %d pages and the app has more (MaxPages)", ErrLimit, g.t, page)
	case g.e.now().Sub(g.e.started) >= opts.MaxRunTime:
		return false, fmt.Errorf("%w: data of type %s, page %d: the run lasted longer than %s (MaxRunTime); run again to resume it", ErrLimit, g.t, page, opts.MaxRunTime)
	}
	return false, nil
}
