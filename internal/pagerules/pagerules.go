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
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

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
// OptionUnknown.
func (r Rule) Level() Level {
	switch r {
	case OptionUnknown:
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
	dayLayout   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}
	truthy      = map[string]bool{"true": true, "yes": true, "on": true, "1": true, "checked": true, "false": true, "no": true, "off": true, "0": true, "": true}
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
// json.Number.
func ValueProblem(f Field, v any) (Rule, string) {
	if v == nil {
		return "", ""
	}
	got := Describe(v)
	isString := func(x any) bool { _, ok := x.(string); return ok }
	stringArray := func(x any) bool {
		arr, ok := x.([]any)
		if !ok {
			return false
		}
		for _, e := range arr {
			if !isString(e) {
				return false
			}
		}
		return true
	}
	switch f.Cardinality {
	case "many-to-one":
		if !isString(v) {
			return ValueShape, "want a related id (a string), got " + got
		}
		return "", ""
	case "many-to-many":
		if !stringArray(v) {
			return ValueShape, "want an array of related ids (strings), got " + got
		}
		return "", ""
	}
	switch f.Type {
	case "id":
		if !isString(v) {
			return ValueShape, "want a string, got " + got
		}
	case "text":
		switch f.SubType {
		case "boolean":
			if _, ok := v.(bool); ok {
				return WireForm, `want "true" or "false" (booleans are text), got ` + got
			}
			s, ok := v.(string)
			if !ok || !truthy[strings.ToLower(strings.TrimSpace(s))] {
				return ValueShape, `want one of "true", "yes", "on", "1", "checked", "false", "no", "off", "0", "", got ` + got
			}
			return "", ""
		case "multi-select", "files", "file":
			if stringArray(v) {
				return "", ""
			}
		}
		if !isString(v) {
			return ValueShape, "want a string, got " + got
		}
		if f.SubType == "single-select" && len(f.Options) > 0 && !slices.Contains(f.Options, v.(string)) {
			return OptionUnknown, fmt.Sprintf("want one of the options %s, got %s", Describe(f.Options), got)
		}
	case "number":
		var f64 float64
		switch n := v.(type) {
		case float64:
			f64 = n
		case json.Number:
			x, err := strconv.ParseFloat(n.String(), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return ValueShape, "want a number, got " + got
			}
			f64 = x // out of float64's range: ±Inf, still a number
		default:
			return ValueShape, "want a number, got " + got
		}
		if f.SubType == "integer" && math.Trunc(f64) != f64 {
			return ValueShape, "want an integer, got " + got
		}
	case "date":
		s, ok := v.(string)
		if !ok {
			return ValueShape, "want an ISO 8601 date string, got " + got
		}
		if f.SubType == "day" {
			if _, err := time.Parse(time.DateOnly, s); err != nil || !dayLayout.MatchString(s) {
				for _, l := range dateLayouts {
					if _, err := time.Parse(l, s); err == nil {
						return ValueShape, "want a day YYYY-MM-DD, got the date-time " + got + " (a time of day in a day field: send the day, or midnight)"
					}
				}
				return ValueShape, "want a day YYYY-MM-DD, got " + got
			}
			return "", ""
		}
		for _, l := range dateLayouts {
			if _, err := time.Parse(l, s); err == nil {
				return "", ""
			}
		}
		return ValueShape, "want an ISO 8601 date, got " + got
	case "array[text]":
		if !stringArray(v) {
			return ValueShape, "want an array of strings, got " + got
		}
	}
	return "", ""
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
	typ     string
	schema  Schema
	page    int
	sync    string
	ids     map[string]int
	cursors map[string]int
}

// NewRun starts the checks of a run of type typ.
func NewRun(typ string, s Schema) *Run {
	return &Run{typ: typ, schema: s, ids: map[string]int{}, cursors: map[string]int{}}
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
	if hasNext {
		key := canonical(next)
		if p, again := r.cursors[key]; again {
			out = append(out, at(Violation{Type: r.typ, Index: -1, Rule: CursorRepeats,
				Detail: fmt.Sprintf("the next cursor %s repeats the one of page %d", shorten(key), p)}))
		} else {
			r.cursors[key] = r.page
		}
	}
	return ids, out
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
