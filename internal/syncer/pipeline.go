package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
)

// fetched is a page or the error that stopped it.
type fetched struct {
	page *page
	err  error
}

// typeRun loads one type page by page. It is a pipeline of two steps: the
// next page is fetched and decoded (fetch) while the current one is
// written (batch); a page and the position after it commit together.
type typeRun struct {
	e          *engine
	key, space string
	s          *state
	t          string
	tr         *TypeReport
	tm         *typeMap
	cols       *columns
	req        map[string]any // the data request but its pagination
	guard      *pageGuard
	start      time.Time
	// next is the page in flight.
	next <-chan fetched
	// fetches counts the fetches in flight: syncType waits for them (after
	// cancelling them) before it returns, so that nothing of a run, such
	// as the record of its last call, outlives it.
	fetches sync.WaitGroup
}

// syncType loads one type. Pages are committed in batches (with the
// position after the last one): fewer commits write far fewer pages to
// disk, and a stopped run redoes at most one batch. A batch is opened only
// once its first page has arrived and waits for later pages only until
// CommitEvery, so a slow app never holds the store's write lock.
func (e *engine) syncType(ctx context.Context, key string, s *state, space, t string, account map[string]any, filter map[string]json.RawMessage, schema map[string]map[string]protocol.SchemaField) (err error) {
	run := s.Run
	if filter == nil {
		filter = map[string]json.RawMessage{}
	}
	sel := map[string]map[string]protocol.SchemaField{}
	for _, ty := range run.Types {
		if f, ok := schema[ty]; ok {
			sel[ty] = f
		}
	}
	tt := &typeRun{e: e, key: key, space: space, s: s, t: t, tr: run.Counts[t], tm: s.Mapping[t], start: time.Now(),
		req: map[string]any{"requestedType": t, "types": run.Types, "filter": filter, "account": account,
			"lastSynchronizedAt": run.attempt(t).LastSync, "operationId": run.OperationID, "schema": sel}}
	tt.cols = newColumns(tt.tm)
	tt.guard = newPageGuard(e, t, tt.tr.Pages+1, run.Page[t])
	ctx, span := e.span(ctx, "sync.type", attribute.String("appkit.type", t))
	defer func() {
		endSpan(span, err, attribute.Int("appkit.pages", tt.tr.Pages), attribute.Int("appkit.items", tt.tr.Items))
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel() // a page still in flight is not needed any more
		tt.fetches.Wait()
	}()
	tt.next = tt.fetch(ctx, run.Page[t], tt.tr.Pages+1)
	for {
		var f fetched
		select {
		case f = <-tt.next:
		case <-ctx.Done():
			return ctx.Err()
		}
		done, stop, err := tt.batch(ctx, f)
		switch {
		case err != nil:
			return err
		case stop != nil:
			return stop
		case done:
			return nil
		}
	}
}

// fetch asks the app for the page at position pagination (the number-th
// of the type in the run) and decodes it, in the background.
func (tt *typeRun) fetch(ctx context.Context, pagination json.RawMessage, number int) <-chan fetched {
	ch := make(chan fetched, 1)
	req := maps.Clone(tt.req)
	req["pagination"] = nil
	if len(pagination) > 0 {
		req["pagination"] = pagination
	}
	dec := pageDecoder{space: tt.space, tm: tt.tm, cols: tt.cols, page: number}
	tt.fetches.Go(func() {
		ctx, span := tt.e.span(ctx, "sync.page", attribute.String("appkit.type", tt.t), attribute.Int("appkit.page", number))
		p, err := tt.e.c.fetchPage(ctx, req, dec)
		if p != nil {
			endSpan(span, err, attribute.Int("appkit.items", p.items))
		} else {
			endSpan(span, err)
		}
		ch <- fetched{p, err}
	})
	return ch
}

// batch commits f and the pages after it that arrive in time in one
// transaction, with the position after the last. done reports the type's
// last page written; stop is the error that ends the run after the
// transaction commits (an app that failed, a bound of the run).
func (tt *typeRun) batch(ctx context.Context, f fetched) (done bool, stop, err error) {
	err = tt.e.save(ctx, tt.key, tt.s, func(tx *store.Tx) error {
		deadline := time.Now().Add(tt.e.opts.CommitEvery)
		items := 0
		for {
			var n int
			n, done, stop, err = tt.take(ctx, tx, f)
			if err != nil {
				return err // nothing of the batch is kept
			}
			if stop != nil || done {
				return nil // commit the pages before
			}
			items += n + 1
			wait := time.Until(deadline)
			if items >= tt.e.opts.CommitItems || wait <= 0 {
				return nil
			}
			timer := time.NewTimer(wait)
			select {
			case f = <-tt.next:
				timer.Stop()
			case <-timer.C:
				return nil // the next page starts the next batch
			case <-ctx.Done():
				timer.Stop()
				return ctx.Err()
			}
		}
	})
	return done, stop, err
}

// take writes one fetched page in tx and moves the position past it,
// starting the fetch of the next page first so that it arrives while this
// one is written. It returns the page's items, done for the type's last
// page, stop for an error that ends the run once the pages before are
// committed, and err for a page that could not be written (the batch
// rolls back).
func (tt *typeRun) take(ctx context.Context, tx *store.Tx, f fetched) (n int, done bool, stop, err error) {
	run, tr, t := tt.s.Run, tt.tr, tt.t
	if f.err != nil {
		if ctx.Err() != nil {
			return 0, false, f.err, nil
		}
		var ae *AppError
		if errors.As(f.err, &ae) && ae.Retryable() {
			return 0, false, &typeError{page: tr.Pages + 1, err: fmt.Errorf("%w: type %s, page %d: %w; run again to resume from this page", ErrPaused, t, tr.Pages+1, f.err)}, nil
		}
		return 0, false, &typeError{page: tr.Pages + 1, err: fmt.Errorf("data of type %s, page %d: %w", t, tr.Pages+1, f.err)}, nil
	}
	p := f.page
	if p.hasNext && (len(p.next) == 0 || string(p.next) == "null") {
		p.next = json.RawMessage("{}")
	}
	if restart, err := tt.guard.check(tr.Pages+1, p); err != nil {
		if !restart {
			return 0, false, err, nil // out of time: the run stops as a whole, to be resumed
		}
		// Nothing of the type is removed; its next run starts afresh.
		return 0, false, &typeError{page: tr.Pages + 1, err: err, restart: true}, nil
	}
	if p.hasNext {
		tt.next = tt.fetch(ctx, p.next, tr.Pages+2)
	}
	if tr.Mode == "" || p.mode == protocol.SyncDelta {
		tr.Mode = p.mode
	}
	if err := tt.e.applyPage(tx, tt.space, tt.tm, run, p, tr); err != nil {
		return 0, false, nil, fmt.Errorf("store page %d of type %s: %w", tr.Pages+1, t, err)
	}
	tr.Pages++
	tr.Items += p.items
	if tt.e.opts.Progress != nil {
		tt.e.opts.Progress(Event{Type: t, Pages: tr.Pages, Items: tr.Items, Done: !p.hasNext, Elapsed: time.Since(tt.start)})
	}
	if !p.hasNext {
		delete(run.Page, t)
		run.Done[t] = true
		return p.items, true, nil, nil
	}
	run.Page[t] = p.next
	return p.items, false, nil, nil
}
