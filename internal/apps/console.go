package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/syncer"
)

// Calls for the web console (internal/console): a datalist read with an
// account, a test read of one page that writes nothing to the store, and
// the progress of the runs in progress.

// maxDatalistItems bounds the options a datalist answer may list.
const maxDatalistItems = 10_000

// Datalist reads the options of a list or multidropdown filter from the
// account's app: field is the filter's id, dependsOn the values of the
// filters it names in datalist_requires (wire form).
func (s *Service) Datalist(ctx context.Context, accountID, field string, types []string, dependsOn map[string]any) ([]protocol.DatalistItem, error) {
	_, fields, a, err := s.Registry.accountApp(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if field == "" || len(field) > 200 {
		return nil, fmt.Errorf("%w: a filter id has 1 to 200 bytes", ErrInvalid)
	}
	if types == nil {
		types = []string{}
	}
	if dependsOn == nil {
		dependsOn = map[string]any{}
	}
	var out protocol.DatalistResponse
	body := map[string]any{"types": types, "account": fields, "field": field, "dependsOn": dependsOn}
	if err := s.core.call(ctx, nil, a.URL, http.MethodPost, protocol.PathDatalist, body, &out); err != nil {
		return nil, maskAppError(err, fields, a.Descriptor)
	}
	if len(out.Items) > maxDatalistItems {
		out.Items = out.Items[:maxDatalistItems]
	}
	return out.Items, nil
}

// TestRead is the outcome of [Service.TestRead].
type TestRead struct {
	// Exchanges are the calls made (schema, then data), secrets masked.
	Exchanges []Exchange `json:"exchanges"`
}

// TestRead fetches the schema and the first data page of one type with the
// account and a filter in wire form, as a run's first page, and writes
// nothing to the store. A refusal of the app is in the exchanges, not an
// error: the error is for what could not be asked at all.
func (s *Service) TestRead(ctx context.Context, accountID, typ string, filter map[string]json.RawMessage) (*TestRead, error) {
	_, fields, a, err := s.Registry.accountApp(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if typ == "" || len(typ) > 200 {
		return nil, fmt.Errorf("%w: a type id has 1 to 200 bytes", ErrInvalid)
	}
	if len(mustJSON(filter)) > 64<<10 {
		return nil, fmt.Errorf("%w: the filter is larger than 64 KiB", ErrInvalid)
	}
	if filter == nil {
		filter = map[string]json.RawMessage{}
	}
	m := newMasker(fields, a.Descriptor)
	rec, hc := newRecorder(s.core.cfg.HTTPClient, m, true) // a test read shows the upstream calls' bodies too
	var schema protocol.Schema
	err = s.core.call(ctx, hc, a.URL, http.MethodPost, protocol.PathSchema,
		map[string]any{"types": []string{typ}, "filter": filter, "account": fields}, &schema)
	if err == nil {
		err = s.core.call(ctx, hc, a.URL, http.MethodPost, protocol.PathData, map[string]any{
			"requestedType": typ, "types": []string{typ}, "filter": filter, "account": fields,
			"pagination": nil, "lastSynchronizedAt": nil, "schema": schema,
		}, nil)
	}
	ex, _ := rec.exchanges()
	var ae *AppError
	if err != nil && !errors.As(err, &ae) {
		return nil, err
	}
	return &TestRead{Exchanges: ex}, nil
}

// maskAppError masks the account's secrets in an app's error message.
func maskAppError(err error, fields map[string]any, desc *protocol.Descriptor) error {
	var ae *AppError
	if errors.As(err, &ae) {
		ae.Message = newMasker(fields, desc).mask(ae.Message)
	}
	return err
}

// progressBoard keeps the engine's latest progress event per type of each
// run this process is working on (in memory: another host process's runs
// are not on it).
type progressBoard struct {
	mu   sync.Mutex
	runs map[string]map[string]syncer.Event
}

// track returns the engine's Progress hook for a run, and a function that
// removes the run from the board when it ends.
func (b *progressBoard) track(runID string) (func(syncer.Event), func()) {
	b.mu.Lock()
	if b.runs == nil {
		b.runs = map[string]map[string]syncer.Event{}
	}
	b.runs[runID] = map[string]syncer.Event{}
	b.mu.Unlock()
	hook := func(ev syncer.Event) {
		b.mu.Lock()
		defer b.mu.Unlock()
		if m := b.runs[runID]; m != nil && (len(m) < maxProgressTypes || m[ev.Type].Type != "") {
			m[ev.Type] = ev
		}
	}
	return hook, func() {
		b.mu.Lock()
		delete(b.runs, runID)
		b.mu.Unlock()
	}
}

// maxProgressTypes bounds the types tracked per run.
const maxProgressTypes = 1000

// Progress returns the progress of a run in progress in this process: per
// type, the pages and items received so far, sorted by type; nil when the
// run is not running here.
func (s *Service) Progress(runID string) []syncer.Event {
	s.core.progress.mu.Lock()
	defer s.core.progress.mu.Unlock()
	m := s.core.progress.runs[runID]
	if m == nil {
		return nil
	}
	out := make([]syncer.Event, 0, len(m))
	for _, ev := range m {
		out = append(out, ev)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}
