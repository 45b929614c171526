package appkit

import "testing"

func TestDidYouMean(t *testing.T) {
	t.Parallel()
	all := append(append(subTypeNames(), tagOptions...), tagKeys...)
	for _, tc := range []struct{ word, want string }{
		{"markdown", "md"},
		{"Markdown", "md"},
		{"multiselect", "multi-select"},
		{"single_select", "single-select"},
		{"singleSelect", "single-select"},
		{"enum", "single-select"},
		{"omitEmpty", "omitempty"},
		{"readOnly", "readonly"},
		{"hiden", "hidden"},
		{"optoins", "options"},
		{"option", "options"},
		{"emial", "email"},
		{"datetime-range", "date-time-range"},
		{"intger", "integer"},
		{"omit", "omitempty"},
		{"shiny", ""},
		{"colour", ""},
		{"odd", ""},
		{"", ""},
	} {
		want := ""
		if tc.want != "" {
			want = ` (did you mean "` + tc.want + `"?)`
		}
		if got := didYouMean(tc.word, all); got != want {
			t.Errorf("%q: got %q, want %q", tc.word, got, want)
		}
	}
}
