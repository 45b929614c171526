package appkit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// Item is one item of a type: values by schema field id. Handlers may also
// return their own structs (anything that encodes to a JSON object).
type Item = map[string]any

// Removed returns the delta item that deletes the entity with this id.
func Removed(id string) Item {
	return Item{"id": id, protocol.SyncAction: protocol.ActionRemove}
}

// SyncType says whether a page is part of a full or a delta synchronization.
type SyncType int

const (
	// Full (the zero value): the run delivers every item; entities it does
	// not deliver are removed at the end of a successful run.
	Full SyncType = iota
	// Delta: the run delivers changes only; items carry __syncAction SET (the
	// default, added by appkit to Item values that lack it) or REMOVE (see
	// [Removed]).
	Delta
)

// Page is one page of items. Next is the cursor of the next page: nil on the
// last page. appkit sends it as nextPageConfig and decodes it back into a C
// for the next call, so a cursor is any JSON-encodable Go value.
type Page[C any] struct {
	Items []any
	Next  *C
	Sync  SyncType
}

// DataHandler loads pages of one type. Build one with [Pages].
type DataHandler interface {
	// page decodes the cursor, runs the handler and returns the answer.
	page(ctx context.Context, req *DataRequest, cursor json.RawMessage) (*protocol.DataResponse, error)
	// cursorType is the Go type of the page cursor, checked at build time.
	cursorType() reflect.Type
}

// PageFunc loads one page; cursor is nil for the first page.
type PageFunc[C any] func(ctx context.Context, req *DataRequest, cursor *C) (*Page[C], error)

// Pages adapts a page function with a typed cursor into a DataHandler. The
// cursor type C must encode to a JSON object (a struct or a map, or a pointer
// to one), because the spec makes nextPageConfig an object; [App.Check]
// refuses other cursor types.
func Pages[C any](fn PageFunc[C]) DataHandler { return pageFunc[C](fn) }

type pageFunc[C any] PageFunc[C]

func (fn pageFunc[C]) cursorType() reflect.Type { return reflect.TypeFor[C]() }

// checkCursorType reports a cursor type that does not encode to an object.
func checkCursorType(t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		return nil
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return nil
		}
	}
	return fmt.Errorf("page cursor type %s does not encode to a JSON object (nextPageConfig is an object): use a struct", t)
}

func (fn pageFunc[C]) page(ctx context.Context, req *DataRequest, raw json.RawMessage) (*protocol.DataResponse, error) {
	var cursor *C
	if !isNull(raw) {
		cursor = new(C)
		if err := json.Unmarshal(raw, cursor); err != nil {
			return nil, BadRequest("pagination: not a cursor of this app: %v", err)
		}
	}
	p, err := fn(ctx, req, cursor)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = &Page[C]{}
	}
	resp := &protocol.DataResponse{Items: p.Items, SynchronizationType: protocol.SyncFull}
	if resp.Items == nil {
		resp.Items = []any{}
	}
	if p.Sync == Delta {
		resp.SynchronizationType = protocol.SyncDelta
		resp.Items = withSyncAction(resp.Items)
	}
	pg := &protocol.Pagination{}
	if p.Next != nil {
		next, err := json.Marshal(p.Next)
		if err != nil {
			return nil, err
		}
		pg.HasNext, pg.NextPageConfig = true, next
	}
	resp.Pagination = pg
	return resp, nil
}

// withSyncAction returns items with __syncAction SET added to every Item
// that lacks it. Items are copied, never changed in place: a handler may
// return maps it shares with other requests. Items of other types (structs)
// are passed as they are and must carry __syncAction themselves.
func withSyncAction(items []any) []any {
	out := items
	copied := false
	for i, it := range items {
		m, ok := it.(Item)
		if !ok {
			continue
		}
		if _, has := m[protocol.SyncAction]; has {
			continue
		}
		if !copied {
			out = make([]any, len(items))
			copy(out, items)
			copied = true
		}
		c := make(Item, len(m)+1)
		for k, v := range m {
			c[k] = v
		}
		c[protocol.SyncAction] = protocol.ActionSet
		out[i] = c
	}
	return out
}
