package appkit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/jsonw"
	"github.com/appkitgo/appkit/internal/pagerules"
)

// Item is an item of a type declared with a map schema (Fields or
// FieldsFunc): values by field id. Types declared from a Go struct carry
// the structs themselves instead.
type Item = map[string]any

// Page is one page of items of type T (a struct of the type's schema, a
// pointer to one, or [Item]) with the cursor C of the next page.
//
// A page is full unless Delta is set. A full page delivers items; at the end
// of a successful run the service removes what the run did not deliver. A
// delta page (only for a [Type] that declares Delta) delivers changes: its
// items are created or updated (appkit marks them SET; an item may be
// partial: keys left out are unchanged), and the ids in Removed are deleted
// (sent after the items). appkit refuses to send a page that breaks these
// rules (a delta page of a type without Delta, removals in a full page) and
// answers 500 naming the mistake.
type Page[T any, C any] struct {
	// Items are the page's items.
	Items []T
	// Removed lists the ids of items deleted since the last run; a delta
	// page only.
	Removed []string
	// Delta makes this a delta page.
	Delta bool
	// Next is the cursor of the next page, nil on the last page. appkit
	// sends it as nextPageConfig and decodes it back into a C for the next
	// call, so a cursor is any Go struct that encodes to a JSON object.
	Next *C
}

// NoCursor is the cursor type of a type that answers everything in one
// page.
type NoCursor = struct{}

// DataHandler loads the pages of one type. Build one with [Pages] or [All].
type DataHandler interface {
	// itemType is the Go type of the items, checked at build time.
	itemType() reflect.Type
	// cursorType is the Go type of the page cursor, checked at build time.
	cursorType() reflect.Type
	// page decodes the cursor, runs the handler and appends the encoded
	// answer to dst.
	page(ctx context.Context, req *DataRequest, cursor json.RawMessage, t *builtType, dst []byte, pp *pageProblems) ([]byte, error)
}

// PageFunc loads one page; cursor is nil for the first page.
type PageFunc[T any, C any] func(ctx context.Context, req *DataRequest, cursor *C) (*Page[T, C], error)

// Pages adapts a page function into a DataHandler. T is the item type (the
// schema comes from it when it is a struct); the cursor type C must encode
// to a JSON object (a struct or a map), because nextPageConfig is an object:
// [App.Check] refuses other cursor types.
func Pages[T any, C any](fn PageFunc[T, C]) DataHandler { return pageFunc[T, C](fn) }

// All adapts a function that loads every item at once into a DataHandler
// answering one full page.
func All[T any](fn func(ctx context.Context, req *DataRequest) ([]T, error)) DataHandler {
	return Pages(func(ctx context.Context, req *DataRequest, _ *NoCursor) (*Page[T, NoCursor], error) {
		items, err := fn(ctx, req)
		if err != nil {
			return nil, err
		}
		return &Page[T, NoCursor]{Items: items}, nil
	})
}

type pageFunc[T any, C any] PageFunc[T, C]

func (fn pageFunc[T, C]) itemType() reflect.Type   { return reflect.TypeFor[T]() }
func (fn pageFunc[T, C]) cursorType() reflect.Type { return reflect.TypeFor[C]() }

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

func (fn pageFunc[T, C]) page(ctx context.Context, req *DataRequest, raw json.RawMessage, t *builtType, dst []byte, pp *pageProblems) ([]byte, error) {
	var cursor *C
	if !isNull(raw) {
		cursor = new(C)
		if err := json.Unmarshal(raw, cursor); err != nil {
			return dst, BadRequest("pagination: not a cursor of this app: %v", err)
		}
	}
	p, err := fn(ctx, req, cursor)
	if err != nil {
		return dst, err
	}
	if p == nil {
		p = &Page[T, C]{}
	}
	if p.Delta && !t.decl.Delta {
		return dst, handlerMistake("type %q: the handler answered a delta page, but the type does not declare Delta", t.decl.ID)
	}
	if len(p.Removed) > 0 && !p.Delta {
		return dst, handlerMistake("type %q: the handler sent removals (Page.Removed) in a full page; only a delta page removes items", t.decl.ID)
	}
	var next []byte
	if p.Next != nil {
		next, err = json.Marshal(p.Next)
		if err != nil {
			return dst, fmt.Errorf("type %q: encode the next page cursor: %w", t.decl.ID, err)
		}
	}
	dst = append(dst, `{"items":[`...)
	dst = encodeItems(dst, p.Items, t, p.Delta, pp)
	pp.items = len(p.Items)
	if pp.mistake != "" {
		return dst, handlerMistake("type %q: %s", t.decl.ID, pp.mistake)
	}
	dst = appendRemovals(dst, p.Removed, len(p.Items) > 0)
	dst = append(dst, `],"pagination":{"hasNext":`...)
	if next != nil {
		dst = append(dst, `true,"nextPageConfig":`...)
		dst = append(dst, next...)
	} else {
		dst = append(dst, "false"...)
	}
	if p.Delta {
		dst = append(dst, `},"synchronizationType":"delta"}`...)
	} else {
		dst = append(dst, `},"synchronizationType":"full"}`...)
	}
	return append(dst, '\n'), nil
}

// encodeItems appends items separated by commas with the type's encoder.
func encodeItems[T any](dst []byte, items []T, t *builtType, delta bool, pp *pageProblems) []byte {
	if maps, ok := any(items).([]Item); ok {
		for i, m := range maps {
			if i > 0 {
				dst = append(dst, ',')
			}
			if m == nil {
				pp.mistake = fmt.Sprintf("items[%d] is nil", i)
				return dst
			}
			if t.maps != nil {
				dst = t.maps.encode(dst, m, delta, pp)
			} else {
				dst = encodeDynamic(dst, m, delta, pp)
			}
		}
		return dst
	}
	s := t.structs
	if s == nil {
		pp.mistake = fmt.Sprintf("items of Go type %s do not fit the type's schema", reflect.TypeFor[T]())
		return dst
	}
	ptr := reflect.TypeFor[T]().Kind() == reflect.Pointer
	for i := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		p := unsafe.Pointer(&items[i])
		if ptr {
			p = *(*unsafe.Pointer)(p)
			if p == nil {
				pp.mistake = fmt.Sprintf("items[%d] is nil", i)
				return dst
			}
		}
		if s.idString && *(*string)(unsafe.Add(p, s.fields[s.idAt].offset)) == "" {
			pp.violate("", "id", pagerules.IDMissing, fmt.Sprintf("items[%d] has an empty id", i))
		}
		dst = s.encode(dst, p, delta)
	}
	return dst
}

// appendRemovals appends the removal entries of a delta answer's items
// array, after the items already written when afterItems.
func appendRemovals(dst []byte, removed []string, afterItems bool) []byte {
	for i, id := range removed {
		if afterItems || i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":`...)
		dst = jsonw.AppendString(dst, id)
		dst = append(dst, `,"__syncAction":"REMOVE"}`...)
	}
	return dst
}

// encodeDynamic appends a map item of a type whose schema is computed per
// request (FieldsFunc): keys sorted, values in their Go form with the wire
// conversions that hold for every field.
func encodeDynamic(dst []byte, m Item, delta bool, pp *pageProblems) []byte {
	if _, has := m[protocol.SyncAction]; has {
		pp.mistake = "an item carries __syncAction: appkit adds it to delta pages; send removals in Page.Removed"
		return dst
	}
	if id, ok := m["id"]; !ok {
		pp.violate("", "", pagerules.IDMissing, "the item has no id")
	} else if s, isID := idString(id); isID && s != "" {
		if _, isStr := id.(string); !isStr {
			m = withStringID(m, s)
		}
	}
	dst = appendMap(dst, m)
	if delta {
		dst = dst[:len(dst)-1]
		if len(m) > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `"__syncAction":"SET"}`...)
	}
	return dst
}

// withStringID copies m with its numeric id as a string.
func withStringID(m Item, id string) Item {
	c := make(Item, len(m))
	for k, v := range m {
		c[k] = v
	}
	c["id"] = id
	return c
}

// encodeLoose appends the items of a webhook transform (structs of the
// type's struct, pointers to them, or Items) with delta rules.
func encodeLoose(dst []byte, items []any, t *builtType, pp *pageProblems) []byte {
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		if m, ok := it.(Item); ok {
			dst = encodeItems(dst, []Item{m}, t, true, pp)
			continue
		}
		s := t.structs
		v := reflect.ValueOf(it)
		if s == nil || !v.IsValid() || (v.Type() != s.rtype && v.Type() != reflect.PointerTo(s.rtype)) {
			pp.mistake = fmt.Sprintf("items[%d] is a %T, not an item of the type", i, it)
			return dst
		}
		if v.Kind() != reflect.Pointer {
			c := reflect.New(s.rtype)
			c.Elem().Set(v)
			v = c
		}
		if v.IsNil() {
			pp.mistake = fmt.Sprintf("items[%d] is nil", i)
			return dst
		}
		dst = s.encode(dst, v.UnsafePointer(), true)
	}
	return dst
}

// Changes are what a webhook event changed, by type id.
type Changes map[string]Change

// Change holds the changes of one type: items created or updated (structs
// of the type, pointers to them, or Items; partial items allowed) and ids
// removed.
type Change struct {
	// Items are created or updated.
	Items []any
	// Removed lists the ids of deleted items.
	Removed []string
}

// handlerMistake is the 500 answered for a handler's page that breaks the
// protocol: the page is never sent.
func handlerMistake(format string, args ...any) *Error {
	return &Error{Status: 500, Message: "the app's handler broke the protocol: " + fmt.Sprintf(format, args...)}
}
