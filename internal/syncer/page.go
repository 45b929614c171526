package syncer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/jsonw"
	"github.com/appkitgo/appkit/internal/pagerules"
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
	// values count the values converted or dropped, by field and outcome.
	values   []*ValueReport
	valueIdx map[valueKey]int
	// ids are the app ids of the page's items (SET and REMOVE), in order,
	// for the paging rules (pagerules.Paging).
	ids     []string
	hasNext bool
	next    json.RawMessage
	mode    string
}

// value counts a value of field that was converted or dropped (outcome),
// keeping the first one's detail and example.
func (p *page) value(field, outcome, detail string, v any) {
	k := valueKey{field, outcome}
	if i, ok := p.valueIdx[k]; ok {
		p.values[i].Count++
		return
	}
	if p.valueIdx == nil {
		p.valueIdx = map[valueKey]int{}
	}
	p.valueIdx[k] = len(p.values)
	p.values = append(p.values, &ValueReport{Field: field, Outcome: outcome, Count: 1, Detail: detail, Example: pagerules.Describe(v)})
}

// valueKey identifies a ValueReport of a type.
type valueKey struct{ field, outcome string }

// mergeValues adds a page's value counts to a type's.
func mergeValues(into []*ValueReport, from []*ValueReport) []*ValueReport {
	for _, v := range from {
		found := false
		for _, w := range into {
			if w.Field == v.Field && w.Outcome == v.Outcome {
				w.Count += v.Count
				found = true
				break
			}
		}
		if !found {
			c := *v
			into = append(into, &c)
		}
	}
	return into
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
	scratch item // the item being read
}

func newPageBuilder(cols *columns, pageNo int) *pageBuilder {
	return &pageBuilder{p: &page{cols: cols}, pageNo: pageNo, byID: map[string]int{}, removed: map[string]bool{}}
}

// item is one item of a page as read, before conversion: its id, its
// sync action (nil where the item has none) and the JSON value of each
// column (as encoding/json decodes into an any, numbers as json.Number),
// present where the item carries the field.
type item struct {
	id, action any
	vals       []any
	present    []bool
}

// reset empties it for the next item of a page with n columns.
func (it *item) reset(n int) {
	it.id, it.action = nil, nil
	if cap(it.vals) < n {
		it.vals, it.present = make([]any, n), make([]bool, n)
	}
	it.vals, it.present = it.vals[:n], it.present[:n]
	clear(it.vals)
	clear(it.present)
}

// add takes the next item (nil obj: not an object, v describes it).
func (b *pageBuilder) add(obj map[string]any, v any) {
	if obj == nil {
		b.notObject(v)
		return
	}
	it := &b.scratch
	it.reset(len(b.p.cols.ids))
	it.id, it.action = obj["id"], obj[protocol.SyncAction]
	for i, fid := range b.p.cols.ids {
		it.vals[i], it.present[i] = obj[fid]
	}
	b.addItem(it)
}

// notObject counts an item that is not a JSON object (v describes it).
func (b *pageBuilder) notObject(v any) {
	p := b.p
	p.items++
	p.skipped++
	p.problem("item %d of page %d: not an object (%s)", p.items, b.pageNo, jsonw.Kind(v))
}

// addItem takes the next item, an object read into it.
func (b *pageBuilder) addItem(it *item) {
	p := b.p
	p.items++
	aid, ok := appID(it.id)
	if !ok {
		p.skipped++
		p.problem("item %d of page %d: no id", p.items, b.pageNo)
		return
	}
	p.ids = append(p.ids, aid)
	action := protocol.ActionSet
	if a, ok := it.action.(string); ok && a != "" {
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
		if !it.present[i] {
			r.vals[i] = absent
			continue
		}
		cv, c, err := convert(p.cols.maps[i].Kind, fid, it.vals[i])
		if err != nil {
			// Kept without the value: empty in a full page, unchanged by a
			// delta SET.
			reason := err.Error()
			var ie *ItemError
			if errors.As(err, &ie) {
				reason = ie.Reason
			}
			p.value(fid, ValueDropped, reason, it.vals[i])
			r.vals[i] = absent
			continue
		}
		if c != "" {
			p.value(fid, ValueCoerced, string(c), it.vals[i])
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

// pageDecoder reads a data answer as a stream: each item is read and
// converted as it arrives and only the converted values of the mapping's
// fields are kept, so a page costs memory in proportion to the values
// kept, not to its text.
//
// The answer is tokenized by jsontext (github.com/go-json-experiment/json,
// the implementation behind encoding/json/v2): an item's members are read
// as raw values straight into their columns, with no map or interface
// tree built per item, and members the mapping does not know are skipped
// unread. Every value means what encoding/json makes of it: strings that
// need unescaping or hold invalid UTF-8, and arrays and objects, are
// decoded by encoding/json itself (FuzzDecodePage holds the two to the
// same pages).
type pageDecoder struct {
	space string
	tm    *typeMap
	cols  *columns
	page  int // the page's number in the run, for problems
}

// decodeOptions read JSON as encoding/json does: a repeated member's last
// value wins, and invalid UTF-8 is taken (and replaced).
var decodeOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// decode reads one answer: {"items": [...], "pagination": {...},
// "synchronizationType": "..."} in any order, other keys skipped. A
// missing pagination means one last page, a missing or unknown
// synchronizationType a full one.
func (d pageDecoder) decode(r io.Reader) (*page, error) {
	cols := d.cols
	if cols == nil {
		cols = newColumns(d.tm)
	}
	dec := jsontext.NewDecoder(r, decodeOptions...)
	if err := expectKind(dec, '{'); err != nil {
		return nil, err
	}
	b := newPageBuilder(cols, d.page)
	var pag struct {
		HasNext        bool            `json:"hasNext"`
		NextPageConfig json.RawMessage `json:"nextPageConfig"`
	}
	mode := protocol.SyncFull
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		// Keys match regardless of case, as encoding/json matches them.
		key := tok.String()
		switch {
		case strings.EqualFold(key, "items"):
			b = newPageBuilder(cols, d.page) // a repeated key: the last wins
			if err := d.items(dec, b); err != nil {
				return nil, err
			}
		case strings.EqualFold(key, "pagination"):
			v, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(v, &pag); err != nil {
				return nil, fmt.Errorf("pagination: %w", err)
			}
		case strings.EqualFold(key, "synchronizationType"):
			v, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			var st any
			if err := json.Unmarshal(v, &st); err != nil {
				return nil, err
			}
			if s, _ := st.(string); strings.EqualFold(s, protocol.SyncDelta) {
				mode = protocol.SyncDelta
			} else {
				mode = protocol.SyncFull
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil { // '}'
		return nil, err
	}
	p := b.done(mode)
	p.hasNext, p.next = pag.HasNext, pag.NextPageConfig
	return p, nil
}

// items reads the items array (null: none), an item at a time.
func (d pageDecoder) items(dec *jsontext.Decoder, b *pageBuilder) error {
	switch k := dec.PeekKind(); k {
	case 'n':
		_, err := dec.ReadToken()
		return err
	case '[':
	default:
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return fmt.Errorf("%w: items is %s, not an array", errNotPage, kindName(v.Kind()))
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for {
		switch dec.PeekKind() {
		case ']':
			_, err := dec.ReadToken()
			return err
		case '{':
			if err := b.readItem(dec); err != nil {
				return err
			}
		default:
			x, err := readValue(dec)
			if err != nil {
				return err
			}
			b.notObject(x)
		}
	}
}

// readItem reads one item object into the builder's scratch item and adds
// it. Only the id, the sync action and the mapping's fields are read;
// other members are skipped.
func (b *pageBuilder) readItem(dec *jsontext.Decoder) error {
	if _, err := dec.ReadToken(); err != nil { // '{'
		return err
	}
	it := &b.scratch
	cols := b.p.cols
	it.reset(len(cols.ids))
	for dec.PeekKind() != '}' {
		name, err := dec.ReadValue()
		if err != nil {
			return err
		}
		var c int
		var isCol, isID, isAction bool
		if raw, plain := plainString(name); plain {
			// Looked up and compared without a copy of the name.
			c, isCol = cols.index[string(raw)]
			isID, isAction = string(raw) == "id", string(raw) == protocol.SyncAction
		} else {
			key, err := unquote(name)
			if err != nil {
				return err
			}
			c, isCol = cols.index[key]
			isID, isAction = key == "id", key == protocol.SyncAction
		}
		if !isCol && !isID && !isAction {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		x, err := readValue(dec)
		if err != nil {
			return err
		}
		if isCol {
			it.vals[c], it.present[c] = x, true
		}
		if isID {
			it.id = x
		}
		if isAction {
			it.action = x
		}
	}
	if _, err := dec.ReadToken(); err != nil { // '}'
		return err
	}
	b.addItem(it)
	return nil
}

// readValue reads the next value as jsonValue makes it.
func readValue(dec *jsontext.Decoder) (any, error) {
	v, err := dec.ReadValue()
	if err != nil {
		return nil, err
	}
	return jsonValue(v)
}

// jsonValue is what encoding/json (with UseNumber) decodes a raw JSON
// value into as an any: nil, a bool, a json.Number, a string, a []any or a
// map[string]any. Literals, numbers and plain strings are read here;
// strings with escapes or invalid UTF-8, arrays and objects by
// encoding/json.
func jsonValue(v jsontext.Value) (any, error) {
	switch v.Kind() {
	case 'n':
		return nil, nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case '0':
		return json.Number(v), nil
	case '"':
		if raw, ok := plainString(v); ok {
			return string(raw), nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return x, nil
}

// unquote reads a raw JSON string as encoding/json does.
func unquote(v []byte) (string, error) {
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// plainString is the text of a raw JSON string that needs no unescaping
// and is valid UTF-8 (so that encoding/json would read it unchanged).
func plainString(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	in := v[1 : len(v)-1]
	for _, c := range in {
		if c == '\\' {
			return nil, false
		}
		if c >= utf8.RuneSelf {
			return in, utf8.Valid(in)
		}
	}
	return in, true
}

// expectKind reads the next token, which must be the delimiter want.
func expectKind(dec *jsontext.Decoder, want jsontext.Kind) error {
	if k := dec.PeekKind(); k != want && k != 0 {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return fmt.Errorf("%w: want %v, got %s", errNotPage, want, kindName(v.Kind()))
	}
	_, err := dec.ReadToken()
	return err
}

// kindName describes a kind of JSON value.
func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '0':
		return "a number"
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return "nothing"
}
