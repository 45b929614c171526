package imagetest

import (
	"errors"
	"fmt"
	"testing"
)

// fatalTB records Fatal instead of ending the test.
type fatalTB struct {
	testing.TB
	fatal string
}

func (f *fatalTB) Helper()           {}
func (f *fatalTB) Fatal(args ...any) { f.fatal = fmt.Sprint(args...) }

// TestMust: the value when there is no error, else the test ends with the
// error.
func TestMust(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		err   error
		fatal string
	}{
		{"no error", nil, ""},
		{"error", errors.New("no such layout"), "no such layout"},
	} {
		tb := &fatalTB{}
		got := must(42, c.err)(tb)
		if tb.fatal != c.fatal || c.err == nil && got != 42 {
			t.Errorf("%s: got %d, Fatal(%q); want Fatal(%q)", c.name, got, tb.fatal, c.fatal)
		}
	}
}
