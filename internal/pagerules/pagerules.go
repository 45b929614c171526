// Package pagerules holds the rules that a synchronization app's data pages
// and items must follow, checked on the wire form of a page. The SDK's test
// harness (appkit/appkittest), the conformance suite and the SDK's own
// runtime checks all word their findings with these rules, so an app's tests,
// the suite and a running app's log never disagree.
//
// The rules:
//
//   - every item is an object with a non-empty string "id";
//   - every key of an item is a field of the type's schema (or __syncAction
//     on a delta item);
//   - every value fits its field: id and text fields hold strings, a
//     boolean text field holds one of true yes on 1 checked / false no off 0
//     "" as a string, number fields hold numbers (integers for subType
//     integer), date fields hold ISO 8601 strings (YYYY-MM-DD for subType
//     day), array[text] fields hold arrays of strings, a many-to-one relation
//     holds one id string and a many-to-many relation an array of them; null
//     is always allowed; a day field's value that is a date-time (a Go
//     time.Time with a time of day, say) is named as such;
//   - a single-select value is one of the field's declared options, when it
//     declares some (a recommendation: the service also infers options from
//     the data);
//   - an id appears once in the full pages of a run;
//   - a delta page's items carry __syncAction SET or REMOVE, and only a type
//     whose schema declares __syncAction answers delta pages; a full page
//     carries no REMOVE; the pages of one run are all full or all delta;
//   - a next-page cursor never repeats within a run.
//
// Each rule has a [Level]: [Required] rules restate the protocol (a
// required field, a stated form), [Recommended] ones are appkit's own
// choices, which a checker reports at warning level.
package pagerules

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// Rule names one rule.
type Rule string

// The rules.
const (
	// UnknownKey: an item key that is not a field of the type's schema.
	UnknownKey Rule = "unknown key"
	// ValueShape: a value that does not fit its field's type and subType.
	ValueShape Rule = "value shape"
	// WireForm: a value the service converts but that is not in the form
	// the protocol states (a JSON boolean in a boolean text field).
	WireForm Rule = "wire form"
	// IDMissing: an item without a non-empty id.
	IDMissing Rule = "id missing"
	// IDNotString: an id that is not a string.
	IDNotString Rule = "id not a string"
	// IDRepeated: an id sent twice in the full pages of one run.
	IDRepeated Rule = "id repeated"
	// SyncAction: a delta item without __syncAction SET or REMOVE.
	SyncAction Rule = "sync action"
	// RemoveInFull: a REMOVE item in a full page.
	RemoveInFull Rule = "REMOVE in a full page"
	// DeltaUndeclared: a delta page of a type whose schema lacks __syncAction.
	DeltaUndeclared Rule = "delta on a type without delta"
	// MixedSync: full and delta pages in one run.
	MixedSync Rule = "full and delta pages in one run"
	// CursorRepeats: a next-page cursor sent twice in one run.
	CursorRepeats Rule = "cursor repeats"
	// OptionUnknown: a single-select value that is not one of the field's
	// declared options. Recommended: the protocol lets the service infer
	// options from the data, so the value is not refused; it is most likely
	// a typo or a stale option list.
	OptionUnknown Rule = "option not declared"
	// Coerced: a value not in its field's stated form that the host (as the
	// service) converts all the same: an array of strings in a text field,
	// a locale date string, a numeric string in a number field (see
	// Coercion). Recommended: the value is kept, converted.
	Coerced Rule = "value coerced"
	// PageRepeats: a page of several items whose ids are exactly those of
	// an earlier page of the run: the app's paging went back (a cursor it
	// ignores), and the items after that page would never be delivered.
	PageRepeats Rule = "page repeats"
)

// Level says how binding a rule is.
type Level int

const (
	// Required rules restate the protocol: an app breaking one is wrong.
	Required Level = iota
	// Recommended rules are appkit's choices beyond the protocol: a checker
	// reports them at warning level.
	Recommended
)

// String returns "required" or "recommended".
func (l Level) String() string {
	if l == Recommended {
		return "recommended"
	}
	return "required"
}

// Level returns the rule's level: every rule is Required except
// OptionUnknown and Coerced.
func (r Rule) Level() Level {
	switch r {
	case OptionUnknown, Coerced:
		return Recommended
	}
	return Required
}

// Violation is one broken rule, placed as precisely as the check knows.
type Violation struct {
	// Type is the type id.
	Type string
	// Page is the 1-based page number within the run; 0 when unknown.
	Page int
	// Index is the item's position in its page; -1 for a page-level rule.
	Index int
	// Item is the item's id, when it has one.
	Item string
	// Field is the field id, for field-level rules.
	Field string
	// Rule is the broken rule.
	Rule Rule
	// Detail says what was expected and what came.
	Detail string
}

// Error words the violation: where, the rule, the detail.
func (v Violation) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "type %q", v.Type)
	if v.Page > 0 {
		fmt.Fprintf(&b, ", page %d", v.Page)
	}
	switch {
	case v.Item != "":
		fmt.Fprintf(&b, ", item %q", v.Item)
	case v.Index >= 0:
		fmt.Fprintf(&b, ", items[%d]", v.Index)
	}
	if v.Field != "" {
		fmt.Fprintf(&b, ", field %q", v.Field)
	}
	fmt.Fprintf(&b, ": %s: %s", v.Rule, v.Detail)
	return b.String()
}

// Field is what the rules need of a schema field.
type Field struct {
	// Type is the field's type: id, text, number, date or array[text].
	Type string
	// SubType is its subType, "" for none.
	SubType string
	// Cardinality is the relation's, "" for a plain field.
	Cardinality string
	// Options are the declared options of a select or workflow field.
	Options []string
}

// Schema is a type's schema as the rules see it.
type Schema struct {
	// Fields by field id (without __syncAction).
	Fields map[string]Field
	// Delta: the schema declares __syncAction.
	Delta bool
}

// FromWire reads a type's schema from its wire form.
func FromWire(fields map[string]protocol.SchemaField) Schema {
	s := Schema{Fields: make(map[string]Field, len(fields))}
	for id, f := range fields {
		if id == protocol.SyncAction {
			s.Delta = true
			continue
		}
		fi := Field{Type: f.Type, SubType: f.SubType, Options: f.Options}
		if f.Relation != nil {
			fi.Cardinality = f.Relation.Cardinality
		}
		s.Fields[id] = fi
	}
	return s
}

var (
	dayLayout = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	truthy    = map[string]bool{"true": true, "yes": true, "on": true, "1": true, "checked": true, "false": true, "no": true, "off": true, "0": true, "": true}
)

// Describe writes a value for a finding: its JSON, shortened.
func Describe(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	s := string(b)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// ValueProblem says how the decoded JSON value v does not fit the field:
// the rule and the detail; "" when it fits. Numbers may be float64 or
// json.Number. A value not in the stated form that the host converts all
// the same (see Coercion) is reported under [Coerced], the detail naming
// the conversion; one that cannot be converted under [ValueShape] (the host
// keeps the item and leaves that field empty).
func ValueProblem(f Field, v any) (Rule, string) {
	if v == nil {
		return "", ""
	}
	c, problem := Fit(f, v)
	switch {
	case problem != "":
		return ValueShape, problem
	case c == WireBoolean:
		return WireForm, `want "true" or "false" (booleans are text), got ` + Describe(v)
	case c != "":
		return Coerced, fmt.Sprintf("got %s: %s", Describe(v), c)
	}
	if f.Cardinality == "" && f.Type == "text" && f.SubType == "single-select" && len(f.Options) > 0 {
		if s, ok := v.(string); ok && !slices.Contains(f.Options, s) {
			return OptionUnknown, fmt.Sprintf("want one of the options %s, got %s", Describe(f.Options), Describe(v))
		}
	}
	return "", ""
}

// Fit says how the host reads the decoded JSON value v (not null) of field
// f: in its stated form (both results empty), through a Coercion, or not at
// all (problem says what was wanted and what came). The sync engine and the
// conformance suite both judge values with it.
func Fit(f Field, v any) (c Coercion, problem string) {
	got := Describe(v)
	if s, ok := v.(string); ok && s == "" {
		// An empty string is no value, as null is.
		switch {
		case f.Cardinality != "" || f.Type == "text" || f.Type == "id":
			return "", ""
		default:
			return EmptyText, ""
		}
	}
	switch f.Cardinality {
	case "many-to-one":
		if list, ok := v.([]any); ok && len(list) <= 1 {
			if len(list) == 0 {
				return OneIDArray, ""
			}
			if idc, ok := idForm(list[0]); ok {
				_ = idc
				return OneIDArray, ""
			}
		}
		if idc, ok := idForm(v); ok {
			return idc, ""
		}
		return "", "want a related id (a string), got " + got
	case "many-to-many":
		if c, ok := listForm(v, false); ok {
			return c, ""
		}
		return "", "want an array of related ids (strings), got " + got
	}
	switch f.Type {
	case "id":
		if c, ok := idForm(v); ok {
			return c, ""
		}
		return "", "want a string, got " + got
	case "text":
		return textFit(f, v, got)
	case "number":
		s, c, ok := NumberText(v)
		if !ok {
			return "", "want a number, got " + got
		}
		if _, err := strconv.ParseInt(s, 10, 64); err != nil && f.SubType == "integer" {
			// Not an int64 written plainly: a whole number in another form
			// (1e3, 3.0) within int64's range passes (read exactly when
			// plain: 2^63-1 is a float64's 2^63).
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || math.Trunc(x) != x {
				return "", "want an integer, got " + got
			}
			if x < math.MinInt64 || x >= math.MaxInt64 {
				return "", "want an integer within ±9223372036854775807, got " + got
			}
		}
		return c, ""
	case "date":
		t, c, ok := DateTimeOf(v)
		if !ok {
			if _, isStr := v.(string); isStr {
				if f.SubType == "day" {
					return "", "want a day YYYY-MM-DD, got " + got
				}
				return "", "want an ISO 8601 date, got " + got
			}
			return "", "want an ISO 8601 date string, got " + got
		}
		if s, _ := v.(string); f.SubType == "day" && c == "" && !dayLayout.MatchString(strings.TrimSpace(s)) {
			c = DayOfDateTime
		}
		_ = t
		return c, ""
	case "array[text]":
		if c, ok := listForm(v, f.SubType == "multi-select"); ok {
			return c, ""
		}
		return "", "want an array of strings, got " + got
	}
	return "", ""
}

// textFit is Fit for a text field.
func textFit(f Field, v any, got string) (Coercion, string) {
	switch f.SubType {
	case "boolean":
		if _, ok := v.(bool); ok {
			return WireBoolean, ""
		}
		if _, ok := v.(json.Number); ok {
			return ScalarText, "" // 0 is false, any other number true
		}
		s, ok := v.(string)
		if !ok || !truthy[strings.ToLower(strings.TrimSpace(s))] {
			return "", `want one of "true", "yes", "on", "1", "checked", "false", "no", "off", "0", "", got ` + got
		}
		return "", ""
	case "multi-select", "files", "file":
		if c, ok := listForm(v, true); ok {
			return c, ""
		}
		return "", "want a string or an array of strings, got " + got
	case "date-range", "date-time-range":
		switch x := v.(type) {
		case string:
			if x == "" {
				return "", ""
			}
			var m map[string]any
			if json.Unmarshal([]byte(x), &m) != nil {
				return "", `want a range {"start", "end"} as a JSON string, got ` + got
			}
			return rangeFit(m, got, "")
		case map[string]any:
			return rangeFit(x, got, RangeObject)
		}
		return "", `want a range {"start", "end"} as a JSON string, got ` + got
	case "md", "html":
		s, c, ok := TextOf(v)
		if !ok {
			return "", "want a string, got " + got
		}
		_ = s
		return c, ""
	case "single-select", "workflow":
		if _, c, ok := TextOf(v); ok && c != JoinedLines {
			return c, ""
		}
		return "", "want a string, got " + got
	}
	s, c, ok := TextOf(v)
	if !ok {
		s, c = "", JSONText
		if x, ok := JSONTextOf(v); ok {
			s = x
		}
	}
	if f.SubType == "email" && s != "" && !IsEmail(s) {
		return "", "want an e-mail address, got " + got
	}
	return c, ""
}

// IsEmail reports whether s reads as an e-mail address, as loosely as the
// service takes one: an @ and no whitespace.
func IsEmail(s string) bool {
	return strings.Contains(s, "@") && !strings.ContainsAny(s, " \t\r\n")
}

// rangeFit checks the start and end of a range value.
func rangeFit(m map[string]any, got string, c Coercion) (Coercion, string) {
	for _, k := range []string{"start", "end"} {
		x, ok := m[k]
		if !ok || x == nil || x == "" {
			continue
		}
		if _, xc, ok := DateTimeOf(x); !ok {
			return "", `want a range {"start", "end"} of ISO 8601 dates, got ` + got
		} else if c == "" {
			c = xc
		}
	}
	return c, ""
}

// idForm says how an id (of an item or a relation's target) is read: a
// non-empty string as it is, a number as its JSON text.
func idForm(v any) (Coercion, bool) {
	switch x := v.(type) {
	case string:
		return "", x != ""
	case json.Number, float64:
		return ScalarText, true
	}
	return "", false
}

// listForm says how an array[text] value is read: an array of strings as
// it is, numbers in it as their text, a string split at commas (the stated
// form of a multi-select when split is true), a lone number as a list of
// one.
func listForm(v any, split bool) (Coercion, bool) {
	switch x := v.(type) {
	case []any:
		var c Coercion
		for _, e := range x {
			ec, ok := idForm(e)
			if !ok {
				if s, isStr := e.(string); !isStr || s != "" {
					return "", false
				}
			}
			if ec != "" {
				c = ec
			}
		}
		return c, true
	case string:
		if split {
			return "", true
		}
		return SplitText, true
	case json.Number, float64:
		return ScalarText, true
	}
	return "", false
}

// CheckItem checks one decoded item of a page against the schema; delta
// says the page is a delta page. It returns the item's id ("" when it has
// none) and the violations, keys in sorted order.
func CheckItem(typ string, s Schema, item map[string]any, delta bool) (string, []Violation) {
	var out []Violation
	add := func(field string, rule Rule, detail string) {
		out = append(out, Violation{Type: typ, Index: -1, Field: field, Rule: rule, Detail: detail})
	}
	id := ""
	switch v := item["id"].(type) {
	case string:
		id = v
		if v == "" {
			add("", IDMissing, `want a non-empty id, got ""`)
		}
	case nil:
		add("", IDMissing, "the item has no id")
	case json.Number, float64:
		id = Describe(v)
		add("", Coerced, "got the number "+id+": "+string(ScalarText))
	default:
		add("", IDNotString, "want the id as a string, got "+Describe(v))
	}
	action, hasAction := item[protocol.SyncAction]
	switch {
	case hasAction && action != protocol.ActionSet && action != protocol.ActionRemove:
		add(protocol.SyncAction, SyncAction, `want "SET" or "REMOVE", got `+Describe(action))
	case !hasAction && delta:
		add(protocol.SyncAction, SyncAction, "a delta item needs __syncAction SET or REMOVE")
	case action == protocol.ActionRemove && !delta:
		add(protocol.SyncAction, RemoveInFull, "only a delta page removes items")
	}
	keys := make([]string, 0, len(item))
	for k := range item {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	removal := action == protocol.ActionRemove
	for _, k := range keys {
		if k == "id" || k == protocol.SyncAction {
			continue
		}
		f, declared := s.Fields[k]
		if !declared {
			add(k, UnknownKey, "the type's schema has no such field")
			continue
		}
		if removal {
			continue
		}
		if rule, detail := ValueProblem(f, item[k]); rule != "" {
			add(k, rule, detail)
		}
	}
	if hasAction && !s.Delta {
		add(protocol.SyncAction, UnknownKey, "the type's schema does not declare __syncAction")
	}
	for i := range out {
		out[i].Item = id
	}
	return id, out
}

// Run checks the pages of one run of one type, in order.
type Run struct {
	typ    string
	schema Schema
	page   int
	sync   string
	ids    map[string]int
	paging *Paging
}

// NewRun starts the checks of a run of type typ.
func NewRun(typ string, s Schema) *Run {
	return &Run{typ: typ, schema: s, ids: map[string]int{}, paging: NewPaging(typ)}
}

// Page checks the next page of the run: its decoded items, its
// synchronizationType ("" reads as full) and, when hasNext, its next
// cursor. It returns the ids of the page's items (in order, "" for an item
// without one) and the violations.
func (r *Run) Page(items []any, syncType string, hasNext bool, next json.RawMessage) ([]string, []Violation) {
	r.page++
	var out []Violation
	at := func(v Violation) Violation { v.Page = r.page; return v }
	if syncType == "" {
		syncType = protocol.SyncFull
	}
	delta := syncType == protocol.SyncDelta
	if r.sync == "" {
		r.sync = syncType
	} else if r.sync != syncType {
		out = append(out, at(Violation{Type: r.typ, Index: -1, Rule: MixedSync,
			Detail: fmt.Sprintf("page %d is %s after %s pages", r.page, syncType, r.sync)}))
	}
	if delta && !r.schema.Delta {
		out = append(out, at(Violation{Type: r.typ, Index: -1, Rule: DeltaUndeclared,
			Detail: "the page is delta but the type's schema does not declare __syncAction"}))
	}
	ids := make([]string, len(items))
	for i, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			out = append(out, at(Violation{Type: r.typ, Index: i, Rule: ValueShape, Detail: "want an object, got " + Describe(it)}))
			continue
		}
		id, vs := CheckItem(r.typ, r.schema, obj, delta)
		for _, v := range vs {
			v.Index = i
			out = append(out, at(v))
		}
		ids[i] = id
		if id == "" || delta {
			continue
		}
		if p, dup := r.ids[id]; dup {
			out = append(out, at(Violation{Type: r.typ, Index: i, Item: id, Rule: IDRepeated,
				Detail: fmt.Sprintf("already sent on page %d", p)}))
		} else {
			r.ids[id] = r.page
		}
	}
	out = append(out, r.paging.Page(ids, hasNext, next)...)
	return ids, out
}

// Paging checks the paging rules of one run of one type, page by page:
// CursorRepeats (a next cursor sent before in the run) and PageRepeats (a
// page of several items whose ids are exactly those of an earlier page).
// Both mean the app's paging does not move on: a checker stops the run
// there. It keeps one hash per page and per cursor, so its memory does not
// grow with the items. The sync engine and the checkers use it alike.
type Paging struct {
	typ     string
	page    int
	cursors map[[sha256.Size]byte]int
	pages   map[[sha256.Size]byte]int
}

// NewPaging starts the paging checks of a run of type typ.
func NewPaging(typ string) *Paging {
	return &Paging{typ: typ, cursors: map[[sha256.Size]byte]int{}, pages: map[[sha256.Size]byte]int{}}
}

// Resume starts the checks at page number page (the pages before it were
// checked by an earlier call, whose state is lost) from cursor, the cursor
// that page was asked with: a later page sending it again repeats.
func (p *Paging) Resume(page int, cursor json.RawMessage) {
	p.page = page - 1
	if len(cursor) > 0 {
		p.cursors[sha256.Sum256([]byte(canonical(cursor)))] = page - 1
	}
}

// Page checks the next page: the ids of its items (in order; "" for an
// item without one) and, when hasNext, its next cursor. A page of one item
// is never a repeat (a single id may move between pages as data changes).
func (p *Paging) Page(ids []string, hasNext bool, next json.RawMessage) []Violation {
	p.page++
	var out []Violation
	if key, ok := idSetKey(ids); ok {
		if earlier, again := p.pages[key]; again {
			out = append(out, Violation{Type: p.typ, Page: p.page, Index: -1, Rule: PageRepeats,
				Detail: fmt.Sprintf("the page's %d ids are exactly those of page %d: the paging went back, and the items after it would never come", len(ids), earlier)})
		} else if len(p.pages) < maxTracked {
			p.pages[key] = p.page
		}
	}
	if hasNext {
		c := canonical(next)
		key := sha256.Sum256([]byte(c))
		if earlier, again := p.cursors[key]; again {
			out = append(out, Violation{Type: p.typ, Page: p.page, Index: -1, Rule: CursorRepeats,
				Detail: fmt.Sprintf("the next cursor %s repeats the one of page %d", shorten(c), earlier)})
		} else if len(p.cursors) < maxTracked {
			p.cursors[key] = p.page
		}
	}
	return out
}

// maxTracked bounds the pages and cursors a Paging remembers.
const maxTracked = 200000

// idSetKey is the hash of a page's set of ids, when it has at least two
// distinct ones.
func idSetKey(ids []string) ([sha256.Size]byte, bool) {
	set := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" {
			set = append(set, id)
		}
	}
	sort.Strings(set)
	set = slices.Compact(set)
	if len(set) < 2 {
		return [sha256.Size]byte{}, false
	}
	h := sha256.New()
	var n [8]byte
	for _, id := range set {
		binary.LittleEndian.PutUint64(n[:], uint64(len(id)))
		h.Write(n[:])
		h.Write([]byte(id))
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key, true
}

// canonical returns a cursor's JSON with object keys sorted, so that the
// same cursor written in another key order counts as the same.
func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func shorten(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
