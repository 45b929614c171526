package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
)

// ErrNotSynchronized is wrapped by the error of ApplyChanges for an app
// that no run has mapped into the store yet.
var ErrNotSynchronized = errors.New("the app has not been synchronized yet")

// ApplyChanges writes changes that arrived between runs (the items of a
// webhook event, by app type id) into the store of an app already
// synchronized into space, with the delta rules: each item is an object with
// an id and __syncAction SET (possibly partial; the default) or REMOVE.
// Items are as decoded from JSON (numbers as json.Number or float64).
// Types that no run has mapped are skipped with a warning. within, when set,
// runs in the same transaction after the changes (to record them as
// applied), so both commit or neither does. It fails with ErrBusy while a
// Run of this process synchronizes the same app.
func ApplyChanges(ctx context.Context, st *store.Store, space string, changes map[string][]any, within func(tx *store.Tx) error) (*Report, error) {
	key := stateKey(space)
	release, ok := acquire(st, key)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrBusy, space)
	}
	defer release()
	e := &engine{st: st, now: time.Now, log: func(string) {}}
	types := slices.Sorted(maps.Keys(changes))
	var rep *Report
	err := st.Write(ctx, func(tx *store.Tx) error {
		rep = &Report{Space: space}
		b, err := tx.SyncState(key)
		if err != nil {
			return err
		}
		if b == nil {
			return fmt.Errorf("%w: %s", ErrNotSynchronized, space)
		}
		var s state
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("read the saved state: %w", err)
		}
		rep.App = s.App
		run := &runState{Seq: s.Seq, Counts: map[string]*TypeReport{}, Done: map[string]bool{}, Page: map[string]json.RawMessage{}, outside: true}
		scratch := s
		scratch.Run = run
		for _, t := range types {
			tm := s.Mapping[t]
			if tm == nil || tx.Catalog().Type(tm.Store) == nil {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("changes of type %q skipped: no run has synchronized it", t))
				continue
			}
			tr := &TypeReport{Type: t, Store: tm.Store, Mode: protocol.SyncDelta}
			run.Counts[t] = tr
			rep.Types = append(rep.Types, tr)
			p := collectItems(newColumns(tm), changes[t], protocol.SyncDelta, 1)
			if err := e.applyPage(tx, space, tm, run, p, tr); err != nil {
				return fmt.Errorf("apply the changes of type %s: %w", t, err)
			}
			tr.Pages, tr.Items = 1, len(changes[t])
		}
		if err := e.resolvePending(tx, space, &scratch); err != nil {
			return err
		}
		if within != nil {
			return within(tx)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// Description is what an app's GET / says, as the engine reads it.
type Description struct {
	// Descriptor is the app's descriptor.
	Descriptor *protocol.Descriptor
	// Space is the namespace of the app's types in the store.
	Space string
	// Warnings are what the host tolerates in the descriptor.
	Warnings []string
}

// Describe reads and checks an app's descriptor the way Run does (an app
// the service could not use is refused, wrapping ErrRefused) and names the
// space its types go to. Only AppURL, HTTPClient, RequestTimeout, MaxBody
// and Retry of opts are used.
func Describe(ctx context.Context, opts Options) (*Description, error) {
	e, err := newEngine(nil, opts)
	if err != nil {
		return nil, err
	}
	desc, warns, err := register(ctx, e.c)
	if err != nil {
		return nil, err
	}
	return &Description{Descriptor: desc, Space: appSpace(desc), Warnings: warns}, nil
}
