package syncer

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"
)

// The options of an enum named by enumName get the ids they had under the
// enum's former name (legacyEnumName), whatever the type and field ids hold
// (slashes, dots, underscores, the space's name); other names are their
// own seeds. A mapping saved with a former name reads with the new one.
func TestEnumNamesAndOptionIDs(t *testing.T) {
	old := func(enum, option string) string {
		return uuid.NewSHA1(idSpace, []byte("enum\x00"+enum+"\x00"+option)).String()
	}
	for _, c := range []struct{ space, typ, field string }{
		{"github", "issue", "state"},
		{"fake", "item", "due_date"},
		{"a-b", "sub/type", "x/y_z"},
		{"sp", "t.u", "f.g"},
		{"sp", "t", "f_sp/t"},
		{"sp", "sp", "sp"},
		{"sp", "t", ""},
	} {
		name, legacy := enumName(c.space, c.typ, c.field), legacyEnumName(c.space, c.typ, c.field)
		if s, ty, f, ok := splitEnumName(name); !ok || s != c.space || ty != c.typ || f != c.field {
			t.Errorf("splitEnumName(%q) = %q %q %q %v", name, s, ty, f, ok)
		}
		for _, o := range []string{"open", "", "a\x00b"} {
			if got, want := optionID(name, o), old(legacy, o); got != want {
				t.Errorf("optionID(%q, %q) = %s, want %s (that of %s)", name, o, got, want, legacy)
			}
			if got, want := optionID(legacy, o), old(legacy, o); got != want {
				t.Errorf("optionID(%q, %q) = %s, want %s", legacy, o, got, want)
			}
		}
	}
	if got := enumName("github", "issue", "state"); got != "github.issue/state_github/issue" {
		t.Errorf("enumName = %q", got)
	}
	for _, name := range []string{"X/colors", "sp.t/f_other/t", "Sp.t/f_Sp/t", "sp/t", "sp.t/f_sp/u"} {
		if _, _, _, ok := splitEnumName(name); ok {
			t.Errorf("splitEnumName(%q) matched", name)
		}
		if got, want := optionID(name, "o"), old(name, "o"); got != want {
			t.Errorf("optionID(%q) = %s, want %s", name, got, want)
		}
	}

	var tm typeMap
	saved := `{"app_type":"issue","store":"github/issue","fields":{` +
		`"state":{"app_id":"state","kind":"select","store":"github.issue/state","enum":"github.issue.state/options"},` +
		`"kind":{"app_id":"kind","kind":"select","store":"github.issue/kind","enum":"github.issue.other/options"},` +
		`"name":{"app_id":"name","kind":"text","store":"github.issue/name"}}}`
	if err := json.Unmarshal([]byte(saved), &tm); err != nil {
		t.Fatal(err)
	}
	if got := tm.Fields["state"].Enum; got != "github.issue/state_github/issue" {
		t.Errorf("saved enum read as %q", got)
	}
	if got := tm.Fields["kind"].Enum; got != "github.issue.other/options" {
		t.Errorf("another enum read as %q", got)
	}
}
