package docs

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// lines counts a file's lines as `wc -l` does; code counts them without
// blank lines and lines that hold only a // comment.
func lines(t *testing.T, path string, code bool) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	if !code {
		return bytes.Count(b, []byte("\n"))
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l != "" && !strings.HasPrefix(l, "//") {
			n++
		}
	}
	return n
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// figures returns the numbers of each match of re in the file, every
// submatch converted.
func figures(t *testing.T, path string, re *regexp.Regexp) [][]int {
	t.Helper()
	var out [][]int
	for _, m := range re.FindAllStringSubmatch(read(t, path), -1) {
		var ns []int
		for _, s := range m[1:] {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s: %q: %v", path, m[0], err)
			}
			ns = append(ns, n)
		}
		out = append(out, ns)
	}
	return out
}

// TestExampleSizesAreTrue holds every size the docs give of an example to
// the example's files as they are, so that one figure is said of each and
// it is never stale.
func TestExampleSizesAreTrue(t *testing.T) {
	t.Parallel()
	desk := lines(t, "examples/supportdesk/desk/desk.go", false)
	main := lines(t, "examples/supportdesk/main.go", false)
	fake := lines(t, "examples/supportdesk/fakedesk/fakedesk.go", false)
	sentence := regexp.MustCompile("(\\d+) lines of Go \\(`desk/desk.go` (\\d+), `main.go` (\\d+)")
	for _, path := range []string{"examples/supportdesk/README.md", "docs/sdk.md"} {
		got := figures(t, path, sentence)
		if len(got) != 1 {
			t.Errorf("%s: %d statements of the support desk's size, want 1", path, len(got))
			continue
		}
		if want := []int{desk + main, desk, main}; got[0][0] != want[0] || got[0][1] != want[1] || got[0][2] != want[2] {
			t.Errorf("%s: says %v lines (total, desk.go, main.go); wc -l gives %v", path, got[0], want)
		}
	}
	if got := figures(t, "examples/supportdesk/README.md", regexp.MustCompile(`\(\[`+"`fakedesk`"+`\]\(fakedesk\), (\d+) lines`)); len(got) != 1 || got[0][0] != fake {
		t.Errorf("examples/supportdesk/README.md: fakedesk's size %v, wc -l gives %d", got, fake)
	}
	// No other place restates a line count of an example: a second copy
	// is the one that goes stale.
	if n := regexp.MustCompile(`in \d+ lines`).FindAllString(read(t, "docs/sdk.md"), -1); len(n) > 0 {
		t.Errorf("docs/sdk.md restates an example's size: %q", n)
	}

	// The GitHub example's table counts code lines (no blank lines, no
	// comment-only lines).
	gh := read(t, "examples/github/README.md")
	total := 0
	for _, f := range []string{"githubapp/app.go", "githubapp/api.go", "main.go"} {
		n := lines(t, "examples/github/"+f, true)
		total += n
		row := regexp.MustCompile("\\| `" + regexp.QuoteMeta(f) + "` [^|]*\\| (\\d+) \\|").FindStringSubmatch(gh)
		if row == nil {
			t.Errorf("examples/github/README.md: no size row for %s", f)
			continue
		}
		if row[1] != strconv.Itoa(n) {
			t.Errorf("examples/github/README.md: %s is said to be %s lines; it has %d", f, row[1], n)
		}
	}
	if m := regexp.MustCompile(`\*\*all of it\*\* \| \*\*(\d+)\*\*`).FindStringSubmatch(gh); m == nil || m[1] != strconv.Itoa(total) {
		t.Errorf("examples/github/README.md: total %v, the files have %d", m, total)
	}
}

// liveOrigin is an address a recording would hold if it kept the origin of
// the stand-in it was recorded from (a port that changes every run).
var liveOrigin = regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]):\d+`)

// TestRecordingsHoldNoLiveOrigin checks that every committed recording of
// appkittest.Record (testdata/*.yaml, and the one appkit new writes) names
// the recorded origin, not the address of the stand-in it came from.
func TestRecordingsHoldNoLiveOrigin(t *testing.T) {
	t.Parallel()
	var found int
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte("interactions:")) {
			return nil // not a recording
		}
		found++
		if m := liveOrigin.Find(b); m != nil {
			t.Errorf("%s holds the live origin %s: record it again (go test -run TestX -appkit.record)", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 2 {
		t.Errorf("found %d recordings; the walk is broken", found)
	}
}
