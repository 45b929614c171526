package syncer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// columns are the app fields of a type in a fixed order (sorted by id): a
// row holds its values by position.
type columns struct {
	ids   []string
	index map[string]int
	maps  []*fieldMap
}

func newColumns(tm *typeMap) *columns {
	c := &columns{index: make(map[string]int, len(tm.Fields))}
	for id := range tm.Fields {
		c.ids = append(c.ids, id)
	}
	sort.Strings(c.ids)
	for i, id := range c.ids {
		c.index[id] = i
		c.maps = append(c.maps, tm.Fields[id])
	}
	return c
}

// absentValue marks a field an item did not carry (a delta SET leaves it
// alone); in a full page it reads as empty.
type absentValue struct{}

var absent any = absentValue{}

// row is one converted SET item: its values by column, absent where the
// item did not carry the field.
type row struct {
	appID string
	vals  []any
	// hash is the hash of the values as the app sent them (rowHash),
	// taken while the page is decoded, off the writer's path.
	hash string
}

// page is one answer of the data endpoint, decoded and converted: what is
// kept of it until it is written is the converted values only.
type page struct {
	cols    *columns
	items   int
	rows    []*row
	removes []string // app ids
	// skipped and dups count items not stored and ids sent twice in the
	// page; problems describe the first ones.
	skipped, dups int
	problems      []string
	hasNext       bool
	next          json.RawMessage
	mode          string
}

func (p *page) problem(format string, a ...any) {
	if len(p.problems) < maxProblems {
		p.problems = append(p.problems, fmt.Sprintf(format, a...))
	}
}

// pageBuilder collects a page's items in order: a REMOVE cancels an
// earlier SET of the same id, a later SET cancels the REMOVE, and of two
// SETs the last wins.
type pageBuilder struct {
	p       *page
	pageNo  int
	byID    map[string]int // app id -> index in rows
	removed map[string]bool
	hash    rowHasher
}

func newPageBuilder(cols *columns, pageNo int) *pageBuilder {
	return &pageBuilder{p: &page{cols: cols}, pageNo: pageNo, byID: map[string]int{}, removed: map[string]bool{}}
}

// add takes the next item (nil obj: not an object, v describes it).
func (b *pageBuilder) add(obj map[string]any, v any) {
	p := b.p
	n := p.items
	p.items++
	if obj == nil {
		p.skipped++
		p.problem("item %d of page %d: not an object (%s)", n+1, b.pageNo, describe(v))
		return
	}
	aid, ok := appID(obj["id"])
	if !ok {
		p.skipped++
		p.problem("item %d of page %d: no id", n+1, b.pageNo)
		return
	}
	action := protocol.ActionSet
	if a, ok := obj[protocol.SyncAction].(string); ok && a != "" {
		action = strings.ToUpper(a)
	}
	switch action {
	case protocol.ActionRemove:
		if i, ok := b.byID[aid]; ok {
			p.rows[i] = nil
			delete(b.byID, aid)
		}
		if !b.removed[aid] {
			b.removed[aid] = true
			p.removes = append(p.removes, aid)
		}
		return
	case protocol.ActionSet:
	default:
		p.skipped++
		p.problem("item %q: unknown %s %q", aid, protocol.SyncAction, action)
		return
	}
	r := &row{appID: aid, vals: make([]any, len(p.cols.ids))}
	for i, fid := range p.cols.ids {
		v, present := obj[fid]
		if !present {
			r.vals[i] = absent
			continue
		}
		cv, err := convert(p.cols.maps[i].Kind, fid, v)
		if err != nil {
			p.skipped++
			p.problem("item %q skipped: %v", aid, err)
			return
		}
		r.vals[i] = cv
	}
	r.hash = b.hash.of(p.cols, r.vals)
	delete(b.removed, aid)
	if i, dup := b.byID[aid]; dup {
		p.dups++
		p.problem("item %q sent twice in the run (the last one wins)", aid)
		p.rows[i] = r
		return
	}
	b.byID[aid] = len(p.rows)
	p.rows = append(p.rows, r)
}

// done ends the page: rows cancelled by a REMOVE and removes cancelled by
// a SET go, and in a full page the fields an item did not carry are empty.
func (b *pageBuilder) done(mode string) *page {
	p := b.p
	p.mode = mode
	kept := p.rows[:0]
	for _, r := range p.rows {
		if r == nil {
			continue
		}
		if mode != protocol.SyncDelta {
			for i, v := range r.vals {
				if v == absent {
					r.vals[i] = nil
				}
			}
		}
		kept = append(kept, r)
	}
	clear(p.rows[len(kept):])
	p.rows = kept
	removes := p.removes[:0]
	for _, id := range p.removes {
		if b.removed[id] {
			removes = append(removes, id)
		}
	}
	p.removes = removes
	b.byID, b.removed = nil, nil
	return p
}

// collectItems builds a page of items already decoded (the changes of a
// webhook event).
func collectItems(cols *columns, items []any, mode string, pageNo int) *page {
	b := newPageBuilder(cols, pageNo)
	for _, it := range items {
		obj, _ := it.(map[string]any)
		b.add(obj, it)
	}
	return b.done(mode)
}

// errNotPage is wrapped by the decoding errors of an answer that is JSON
// but not a data page.
var errNotPage = errors.New("not a data page")

// pageDecoder reads a data answer as a stream: each item is decoded and
// converted as it arrives and only the converted values of the mapping's
// fields are kept, so a page costs memory in proportion to the values
// kept, not to its text.
type pageDecoder struct {
	space string
	tm    *typeMap
	cols  *columns
	page  int // the page's number in the run, for problems
}

// decode reads one answer: {"items": [...], "pagination": {...},
// "synchronizationType": "..."} in any order, other keys skipped. A
// missing pagination means one last page, a missing or unknown
// synchronizationType a full one.
func (d pageDecoder) decode(r io.Reader) (*page, error) {
	cols := d.cols
	if cols == nil {
		cols = newColumns(d.tm)
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	b := newPageBuilder(cols, d.page)
	var pag struct {
		HasNext        bool            `json:"hasNext"`
		NextPageConfig json.RawMessage `json:"nextPageConfig"`
	}
	mode := protocol.SyncFull
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		// Keys match regardless of case, as encoding/json matches them.
		key, _ := tok.(string)
		switch {
		case strings.EqualFold(key, "items"):
			b = newPageBuilder(cols, d.page) // a repeated key: the last wins
			if err := d.items(dec, b); err != nil {
				return nil, err
			}
		case strings.EqualFold(key, "pagination"):
			if err := dec.Decode(&pag); err != nil {
				return nil, fmt.Errorf("pagination: %w", err)
			}
		case strings.EqualFold(key, "synchronizationType"):
			var st any
			if err := dec.Decode(&st); err != nil {
				return nil, err
			}
			if s, _ := st.(string); strings.EqualFold(s, protocol.SyncDelta) {
				mode = protocol.SyncDelta
			} else {
				mode = protocol.SyncFull
			}
		default:
			if err := skipValue(dec); err != nil {
				return nil, err
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	p := b.done(mode)
	p.hasNext, p.next = pag.HasNext, pag.NextPageConfig
	return p, nil
}

// items reads the items array (null: none), an item at a time.
func (d pageDecoder) items(dec *json.Decoder, b *pageBuilder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("%w: items is %v, not an array", errNotPage, tok)
	}
	for dec.More() {
		// One item at a time into an any: encoding/json builds maps and
		// slices for an any without reflection, and the item is garbage
		// once converted.
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		obj, _ := v.(map[string]any)
		b.add(obj, v)
	}
	_, err = dec.Token() // ']'
	return err
}

// expectDelim reads the next token, which must be the delimiter want.
func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("%w: want %v, got %v", errNotPage, want, tok)
	}
	return nil
}

// skipValue reads past the next JSON value without keeping it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
