package pagerules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
)

func schema() Schema {
	return Schema{Delta: true, Fields: map[string]Field{
		"name":  {Type: "text"},
		"md":    {Type: "text", SubType: "md"},
		"done":  {Type: "text", SubType: "boolean"},
		"n":     {Type: "number"},
		"i":     {Type: "number", SubType: "integer"},
		"at":    {Type: "date"},
		"day":   {Type: "date", SubType: "day"},
		"tags":  {Type: "array[text]"},
		"sel":   {Type: "text", SubType: "multi-select"},
		"state": {Type: "text", SubType: "single-select", Options: []string{"open", "closed"}},
		"free":  {Type: "text", SubType: "single-select"},
		"owner": {Type: "text", Cardinality: "many-to-one"},
		"links": {Type: "array[text]", Cardinality: "many-to-many"},
	}}
}

// decode reads JSON the way the suite does (numbers as json.Number).
func decode(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestValueProblem(t *testing.T) {
	t.Parallel()
	f := schema().Fields
	for _, tc := range []struct {
		field, value string
		rule         Rule
		detail       string
	}{
		{"name", `"x"`, "", ""},
		{"name", `null`, "", ""},
		{"name", `3`, Coerced, "got 3: " + string(ScalarText)},
		{"name", `true`, Coerced, string(ScalarText)},
		{"name", `["a","b"]`, Coerced, string(JoinedLines)},
		{"name", `{"a":1}`, Coerced, string(JSONText)},
		{"md", `["# A","b"]`, Coerced, string(JoinedLines)},
		{"md", `{"a":1}`, ValueShape, "want a string"},
		{"md", `[1]`, ValueShape, "want a string"},
		{"done", `"checked"`, "", ""},
		{"done", `" No "`, "", ""},
		{"done", `true`, WireForm, `want "true" or "false"`},
		{"done", `"maybe"`, ValueShape, `want one of "true"`},
		{"n", `2.5`, "", ""},
		{"n", `"2.5"`, Coerced, string(NumericText)},
		{"n", `"lots"`, ValueShape, "want a number"},
		{"n", `true`, ValueShape, "want a number"},
		{"i", `"4"`, Coerced, string(NumericText)},
		{"i", `"4.5"`, ValueShape, "want an integer"},
		{"i", `3`, "", ""},
		{"i", `3.0`, "", ""},
		{"i", `3.5`, ValueShape, "want an integer, got 3.5"},
		{"i", `1e400`, ValueShape, "want an integer, got 1e400"},
		{"i", `1e30`, ValueShape, "want an integer within"},
		{"i", `9223372036854775807`, "", ""},
		{"i", `-9223372036854775808`, "", ""},
		{"i", `9223372036854775808`, ValueShape, "want an integer within"},
		{"i", `9223372036854775807.5`, ValueShape, "want an integer"},
		{"at", `"2024-06-13T10:00:00Z"`, "", ""},
		{"at", `"2024-06-13T10:00:00.123+02:00"`, "", ""},
		{"at", `"2024-06-13"`, "", ""},
		{"at", `"13 June"`, ValueShape, "want an ISO 8601 date"},
		{"at", `"11/14/2023, 10:13 PM"`, Coerced, string(USDate)},
		{"at", `"Tue, 14 Nov 2023 22:13:00 GMT"`, Coerced, string(RFC1123Date)},
		{"at", `"2024-06-13 10:00:00"`, "", ""},
		{"at", `1718272800000`, Coerced, string(EpochMillis)},
		{"at", `true`, ValueShape, "want an ISO 8601 date string"},
		{"day", `"2024-06-13"`, "", ""},
		{"day", `"2024-06-13T00:00:00Z"`, Coerced, string(DayOfDateTime)},
		{"day", `"2024-06-13T10:30:00.000Z"`, Coerced, `got "2024-06-13T10:30:00.000Z": a date-time in a day field`},
		{"state", `"open"`, "", ""},
		{"state", `"Open"`, OptionUnknown, `want one of the options ["open","closed"], got "Open"`},
		{"state", `3`, Coerced, string(ScalarText)},
		{"state", `["open"]`, ValueShape, "want a string"},
		{"free", `"anything"`, "", ""}, // no declared options: inferred from the data
		{"day", `"2024-02-30"`, ValueShape, "want a day YYYY-MM-DD"},
		{"tags", `["a","b"]`, "", ""},
		{"tags", `["a",1]`, Coerced, string(ScalarText)},
		{"tags", `["a",{}]`, ValueShape, "want an array of strings"},
		{"tags", `"a"`, Coerced, string(SplitText)},
		{"tags", `{}`, ValueShape, "want an array of strings"},
		{"sel", `["a"]`, "", ""},
		{"sel", `"a,b"`, "", ""},
		{"owner", `"p1"`, "", ""},
		{"owner", `7`, Coerced, string(ScalarText)},
		{"owner", `["p1"]`, Coerced, string(OneIDArray)},
		{"owner", `{}`, ValueShape, "want a related id (a string), got {}"},
		{"links", `["p1"]`, "", ""},
		{"links", `"p1"`, Coerced, string(SplitText)},
		{"links", `{"a":1}`, ValueShape, "want an array of related ids"},
	} {
		rule, detail := ValueProblem(f[tc.field], decode(t, tc.value))
		if rule != tc.rule || !strings.Contains(detail, tc.detail) {
			t.Errorf("%s = %s: got %q %q, want %q containing %q", tc.field, tc.value, rule, detail, tc.rule, tc.detail)
		}
	}
}

// Only appkit's own choices are recommendations; every other rule restates
// the protocol.
func TestRuleLevels(t *testing.T) {
	t.Parallel()
	for _, r := range []Rule{UnknownKey, ValueShape, WireForm, IDMissing, IDNotString, IDRepeated, SyncAction, RemoveInFull, DeltaUndeclared, MixedSync, CursorRepeats, PageRepeats} {
		if r.Level() != Required {
			t.Errorf("%s: level %s, want required", r, r.Level())
		}
	}
	for _, r := range []Rule{OptionUnknown, Coerced} {
		if r.Level() != Recommended || r.Level().String() != "recommended" {
			t.Errorf("%s: level %s, want recommended", r, r.Level())
		}
	}
}

// FromWire keeps a field's options, so that single-select values are
// checked against them.
func TestFromWire_keepsOptions(t *testing.T) {
	t.Parallel()
	s := FromWire(map[string]protocol.SchemaField{"state": {Type: "text", SubType: "single-select", Options: []string{"a"}}})
	if rule, _ := ValueProblem(s.Fields["state"], "b"); rule != OptionUnknown {
		t.Errorf("an undeclared option: rule %q", rule)
	}
}

func rulesOf(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, string(v.Rule))
	}
	return out
}

func TestCheckItem(t *testing.T) {
	t.Parallel()
	noDelta := schema()
	noDelta.Delta = false
	for _, tc := range []struct {
		name   string
		s      Schema
		item   string
		delta  bool
		id     string
		want   []Rule
		phrase string
	}{
		{"fine", schema(), `{"id":"1","name":"x","i":2}`, false, "1", nil, ""},
		{"unknown key", schema(), `{"id":"1","colour":"red"}`, false, "1", []Rule{UnknownKey}, `item "1", field "colour": unknown key`},
		{"id missing", schema(), `{"name":"x"}`, false, "", []Rule{IDMissing}, "the item has no id"},
		{"id empty", schema(), `{"id":""}`, false, "", []Rule{IDMissing}, `want a non-empty id`},
		{"id a number", schema(), `{"id":5}`, false, "5", []Rule{Coerced}, "got the number 5"},
		{"id not a string", schema(), `{"id":{}}`, false, "", []Rule{IDNotString}, "want the id as a string, got {}"},
		{"several problems, keys sorted", schema(), `{"id":"1","i":"x","at":true}`, false, "1", []Rule{ValueShape, ValueShape}, `field "at"`},
		{"delta item without action", schema(), `{"id":"1"}`, true, "1", []Rule{SyncAction}, "needs __syncAction"},
		{"bad action", schema(), `{"id":"1","__syncAction":"DROP"}`, true, "1", []Rule{SyncAction}, `got "DROP"`},
		{"REMOVE in a full page", schema(), `{"id":"1","__syncAction":"REMOVE"}`, false, "1", []Rule{RemoveInFull}, "only a delta page removes"},
		{"a removal's other keys are not checked", schema(), `{"id":"1","__syncAction":"REMOVE","i":"x"}`, true, "1", nil, ""},
		{"__syncAction undeclared", noDelta, `{"id":"1","__syncAction":"SET"}`, true, "1", []Rule{UnknownKey}, "does not declare __syncAction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, vs := CheckItem("task", tc.s, decode(t, tc.item).(map[string]any), tc.delta)
			if id != tc.id {
				t.Errorf("id = %q, want %q", id, tc.id)
			}
			var want []string
			for _, r := range tc.want {
				want = append(want, string(r))
			}
			if strings.Join(rulesOf(vs), ",") != strings.Join(want, ",") {
				t.Fatalf("rules = %v, want %v (%v)", rulesOf(vs), want, vs)
			}
			if tc.phrase != "" && !strings.Contains(vs[len(vs)-1].Error(), tc.phrase) && !strings.Contains(vs[0].Error(), tc.phrase) {
				t.Errorf("violations %v do not say %q", vs, tc.phrase)
			}
		})
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	items := func(s string) []any { return decode(t, s).([]any) }
	t.Run("ids repeated across full pages", func(t *testing.T) {
		r := NewRun("task", schema())
		if _, vs := r.Page(items(`[{"id":"1"},{"id":"2"}]`), "full", true, json.RawMessage(`{"o":2}`)); len(vs) != 0 {
			t.Fatal(vs)
		}
		ids, vs := r.Page(items(`[{"id":"3"},{"id":"1"}]`), "", false, nil)
		if len(vs) != 1 || vs[0].Rule != IDRepeated || vs[0].Error() != `type "task", page 2, item "1": id repeated: already sent on page 1` {
			t.Fatalf("violations = %v", vs)
		}
		if strings.Join(ids, ",") != "3,1" {
			t.Errorf("ids = %v", ids)
		}
	})
	t.Run("ids may repeat in delta pages", func(t *testing.T) {
		r := NewRun("task", schema())
		r.Page(items(`[{"id":"1","__syncAction":"SET"}]`), "delta", true, json.RawMessage(`{"o":1}`))
		if _, vs := r.Page(items(`[{"id":"1","__syncAction":"REMOVE"}]`), "delta", false, nil); len(vs) != 0 {
			t.Fatal(vs)
		}
	})
	t.Run("a cursor that repeats, in another key order", func(t *testing.T) {
		r := NewRun("task", schema())
		r.Page(nil, "full", true, json.RawMessage(`{"a":1,"b":2}`))
		_, vs := r.Page(nil, "full", true, json.RawMessage(`{"b":2,"a":1}`))
		if len(vs) != 1 || vs[0].Rule != CursorRepeats {
			t.Fatalf("violations = %v", vs)
		}
	})
	t.Run("full and delta pages mixed", func(t *testing.T) {
		r := NewRun("task", schema())
		r.Page(nil, "delta", true, json.RawMessage(`{"o":1}`))
		if _, vs := r.Page(nil, "full", false, nil); len(vs) != 1 || vs[0].Rule != MixedSync {
			t.Fatalf("violations = %v", vs)
		}
	})
	t.Run("delta on a type without delta", func(t *testing.T) {
		s := schema()
		s.Delta = false
		_, vs := NewRun("task", s).Page(nil, "delta", false, nil)
		if len(vs) != 1 || vs[0].Rule != DeltaUndeclared {
			t.Fatalf("violations = %v", vs)
		}
	})
	t.Run("an item that is not an object", func(t *testing.T) {
		_, vs := NewRun("task", schema()).Page(items(`["x"]`), "full", false, nil)
		if len(vs) != 1 || vs[0].Rule != ValueShape || !strings.Contains(vs[0].Error(), `items[0]: value shape: want an object, got "x"`) {
			t.Fatalf("violations = %v", vs)
		}
	})
}

// FuzzCheck feeds any JSON page to the rules: they never panic, and every
// violation names its type and rule.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`[{"id":"1","i":2.5,"day":"2024-02-30"}]`, `[1,"x",null,{}]`, `[{"id":{"a":1},"__syncAction":5}]`, `[]`} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, page string, delta bool) {
		d := json.NewDecoder(strings.NewReader(page))
		d.UseNumber()
		var items []any
		if d.Decode(&items) != nil {
			return
		}
		sync := "full"
		if delta {
			sync = "delta"
		}
		r := NewRun("t", schema())
		for range 2 {
			_, vs := r.Page(items, sync, true, json.RawMessage(page))
			for _, v := range vs {
				if v.Rule == "" || !strings.HasPrefix(v.Error(), `type "t"`) {
					t.Fatalf("violation without rule or type: %#v", v)
				}
			}
		}
	})
}
