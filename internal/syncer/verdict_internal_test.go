package syncer

import (
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/pagerules"
	"github.com/appkitgo/appkit/internal/testkit"
)

// The engine and the conformance suite judge a value alike: pagerules.Fit
// (what the suite reports) refuses exactly the values convert cannot read
// (left empty by the engine), and names the coercion convert makes.
func TestConvertAgreesWithPagerules(t *testing.T) {
	t.Parallel()
	fields := map[string]protocol.SchemaField{
		"text":      {Type: "text"},
		"md":        {Type: "text", SubType: "md"},
		"html":      {Type: "text", SubType: "html"},
		"email":     {Type: "text", SubType: "email"},
		"bool":      {Type: "text", SubType: "boolean"},
		"select":    {Type: "text", SubType: "single-select"},
		"multi":     {Type: "text", SubType: "multi-select"},
		"drange":    {Type: "text", SubType: "date-range"},
		"dtrange":   {Type: "text", SubType: "date-time-range"},
		"number":    {Type: "number"},
		"integer":   {Type: "number", SubType: "integer"},
		"date":      {Type: "date"},
		"day":       {Type: "date", SubType: "day"},
		"tags":      {Type: "array[text]"},
		"owner":     {Type: "text", Relation: &protocol.Relation{Cardinality: "many-to-one"}},
		"helpers":   {Type: "array[text]", Relation: &protocol.Relation{Cardinality: "many-to-many"}},
		"plainlist": {Type: "array[text]"},
	}
	values := []string{`"x"`, `""`, `"  "`, `3`, `2.5`, `-0`, `true`, `false`, `["a","b"]`, `["a",1]`, `[]`, `["a",{}]`, `{"a":1}`, `[1]`,
		`"4"`, `"4.5"`, `"lots"`, `"0"`, `"yes"`, `"maybe"`, `1700000000000`, `1.7e12`, `1e30`,
		`"2023-11-14"`, `"2023-11-14T22:13:00Z"`, `"2023-11-14T22:13:00"`, `"2023-11-14T00:00:00Z"`, `"11/14/2023, 10:13 PM"`, `"11/14/2023"`,
		`"Tue, 14 Nov 2023 22:13:00 GMT"`, `"2023/11/14"`, `"14 June"`, `"a@b.c"`, `"a, b"`,
		`"{\"start\":\"2024-01-01\",\"end\":\"2024-01-08\"}"`, `{"start":"2024-01-01","end":"2024-01-08"}`, `{"start":"11/14/2023"}`, `{"start":"nope"}`,
		`"{\"start\":\"nope\"}"`, `"{"`, `["p1"]`, `["p1","p2"]`, `[""]`}
	// Coercions the suite names that the engine does not count: a
	// comma-separated string is the stated form of a multi-select, which
	// the engine does not tell from a plain array[text].
	quiet := map[pagerules.Coercion]bool{pagerules.SplitText: true, pagerules.EmptyText: true}
	for id, f := range fields {
		k := mapField(f)
		rf := pagerules.FromWire(map[string]protocol.SchemaField{id: f}).Fields[id]
		for _, in := range values {
			v := testkit.DecodeJSON(t, in)
			c, problem := pagerules.Fit(rf, v)
			_, got, err := convert(k, id, v)
			if (problem != "") != (err != nil) {
				t.Errorf("%s (%s) %s: the suite says %q, the engine %v", id, k, in, problem, err)
				continue
			}
			if err == nil && c != got && !quiet[c] {
				t.Errorf("%s (%s) %s: the suite names the coercion %q, the engine %q", id, k, in, c, got)
			}
		}
	}
}
