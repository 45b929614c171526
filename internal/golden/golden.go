// Package golden compares a test's output with a golden file under the
// test package's testdata/, or rewrites the file when the test runs with
// its package's -update flag.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Check fails t unless got equals testdata/name (name may have
// directories). With update it first writes got there (creating
// testdata/), so that the change shows in the diff to review.
func Check(t testing.TB, name string, got []byte, update bool) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(name))
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update after checking the change):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
