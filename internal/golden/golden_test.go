package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder captures failures instead of failing the test.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.failed = append(r.failed, fmt.Sprint(args...)) }

func TestCheck(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		name   string
		got    string
		update bool
		fails  string // "" passes
	}{
		{"missing file", "a", false, "run go test -update to create it"},
		{"update writes it", "a", true, ""},
		{"same again", "a", false, ""},
		{"different", "b", false, "differs"},
		{"updated to the new output", "b", true, ""},
		{"now the new one passes", "b", false, ""},
	} {
		r := &recorder{TB: t}
		Check(r, "sub/out.txt", []byte(tc.got), tc.update)
		if got := strings.Join(r.failed, "\n"); (tc.fails == "") != (got == "") || !strings.Contains(got, tc.fails) {
			t.Errorf("%s: failures %q, want %q", tc.name, got, tc.fails)
		}
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "sub", "out.txt")); err != nil || string(b) != "b" {
		t.Errorf("testdata/sub/out.txt = %q, %v", b, err)
	}
}
