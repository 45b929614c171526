package console

import (
	"net/url"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// The sync form and the test read check a filter's value alike, by its
// type, and the form keeps what wireFilter would send: a number (not Inf
// or NaN), a date statement of at most maxStatement bytes, a day;
// multidropdown values split at commas.
func TestFilterValues(t *testing.T) {
	t.Parallel()
	long := "last " + strings.Repeat(" ", maxStatement) + "30 days"
	for _, tc := range []struct {
		typ  string
		vals []string
		// wire is what the app receives; problem, when set, is a word of
		// the input's refusal.
		wire, problem string
	}{
		{"number", []string{"3"}, `3`, ""},
		{"number", []string{"1", " 2.5 "}, `2.5`, ""},
		{"number", []string{"x"}, "", "Enter a number"},
		{"number", []string{"inf"}, "", "Enter a number"},
		{"number", []string{"NaN"}, "", "Enter a number"},
		{"bool", []string{"true"}, `true`, ""},
		{"date", []string{"nonsense"}, "", "Not a date statement"},
		{"date", []string{long}, "", "too long"},
		{"datebox", []string{"2025-06-01"}, `"2025-06-01"`, ""},
		{"datebox", []string{"someday"}, "", "Not a day"},
		{"multidropdown", []string{"a, b", "c"}, `["a","b","c"]`, ""},
		{"list", []string{"x,y"}, `"x,y"`, ""},
		{"text", []string{"anything"}, `"anything"`, ""},
	} {
		filters := []protocol.Filter{{ID: "f", Type: tc.typ, Optional: true}}
		form := url.Values{"filter.f": tc.vals}
		fe := map[string]string{}
		wire := wireFilter(filters, form, fe)
		sf := formErrors{}
		kept := syncFilter(&protocol.ConfigResponse{Filters: filters}, form, sf)
		if tc.problem != "" {
			if !strings.Contains(fe["filter.f"], tc.problem) || sf["filter.f"] != fe["filter.f"] || wire["f"] != nil || kept["f"] != nil {
				t.Errorf("%s %q: wire %s (%q), form %v (%q); want both refused with %q", tc.typ, tc.vals, wire["f"], fe["filter.f"], kept["f"], sf["filter.f"], tc.problem)
			}
			continue
		}
		if string(wire["f"]) != tc.wire || len(fe) != 0 || len(sf) != 0 || len(kept["f"]) != len(tc.vals) {
			t.Errorf("%s %q: wire %s, %v; form %q, %v; want %s", tc.typ, tc.vals, wire["f"], fe, kept["f"], sf, tc.wire)
		}
	}
}
