package console

import (
	"regexp"
	"strings"
	"testing"
)

// An app's id becomes an element id of safe characters only: kept when
// it is one already, else a hash that differs between ids.
func TestDOMID(t *testing.T) {
	t.Parallel()
	safe := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	seen := map[string]string{}
	for _, id := range []string{"due", "created_at", "Due-2", strings.Repeat("a", 64),
		"", "x,#main,#y", "a, every 1s", `a"b`, "a'b", "a b", "a.b", "a:b", "a[b]", "Срок", strings.Repeat("a", 65)} {
		got := domID(id)
		if !safe.MatchString(got) {
			t.Errorf("domID(%q) = %q: not an id of safe characters", id, got)
		}
		if safe.MatchString(id) && got != id {
			t.Errorf("domID(%q) = %q: a safe id is not kept", id, got)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("domID(%q) = domID(%q) = %q", id, other, got)
		}
		seen[got] = id
	}
}
