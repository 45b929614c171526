package devloop

import (
	"reflect"
	"testing"
)

func TestChanges(t *testing.T) {
	t.Parallel()
	before := Snapshot{
		"s/note": {
			"a":    {"name": "A", "done": "false"},
			"b":    {"name": "B"},
			"c":    {"name": "C"},
			"d":    {"name": "D", "size": "1"},
			"gone": {"name": "G"},
		},
		"s/user": {"u": {"name": "U"}},
	}
	after := Snapshot{
		"s/note": {
			"a":   {"name": "A2", "done": "true"},
			"b":   {"name": "B"},
			"c":   {"name": "C", "words": "3"},
			"d":   {"name": "D2"},
			"new": {"name": "N"},
		},
		"s/user": {"u": {"name": "U"}},
	}
	got := Changes(before, after, 2)
	want := []ItemChange{
		{Type: "s/note", ID: "a", Fields: []FieldChange{{"done", "false", "true"}, {"name", "A", "A2"}}},
		{Type: "s/note", ID: "c", Fields: []FieldChange{{"words", "", "3"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Changes:\n got %+v\nwant %+v", got, want)
	}
	if got := Changes(before, after, 10); len(got) != 3 || got[2].ID != "d" || !reflect.DeepEqual(got[2].Fields, []FieldChange{{"name", "D", "D2"}, {"size", "1", ""}}) {
		t.Errorf("Changes with room for all: %+v", got)
	}
	if got := Changes(after, after, 10); len(got) != 0 {
		t.Errorf("Changes of a snapshot with itself: %+v", got)
	}
}
