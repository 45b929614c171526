package docs

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// root is the repository's root, seen from this package's directory.
const root = ".."

// slug turns a heading into its anchor the way GitHub does: lower case,
// every character that is not a letter, a digit, a space, a hyphen or an
// underscore dropped, spaces turned into hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

var headingLine = regexp.MustCompile(`^#{1,6}[ \t]+(.*?)[ \t#]*$`)

// anchors lists the anchors of a Markdown text's headings (outside fenced
// code), with GitHub's -1, -2, ... for a repeated slug.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range markdownLines(text) {
		if line.code {
			continue
		}
		m := headingLine.FindStringSubmatch(line.text)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

type line struct {
	number int
	text   string
	code   bool // inside a fenced code block (or its fence)
}

// markdownLines splits a Markdown text into lines, marking those of fenced
// code blocks.
func markdownLines(text string) []line {
	var out []line
	fence := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		t := sc.Text()
		trimmed := strings.TrimLeft(t, " ")
		isFence := strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")
		switch {
		case fence == "" && isFence:
			fence = trimmed[:3]
			out = append(out, line{n, t, true})
		case fence != "" && isFence && strings.HasPrefix(trimmed, fence):
			fence = ""
			out = append(out, line{n, t, true})
		default:
			out = append(out, line{n, t, fence != ""})
		}
	}
	return out
}

var (
	// a path to a Markdown file with an anchor, as Go comments, strings
	// and Markdown prose name a section: docs/protocol.md#items.
	mdAnchor = regexp.MustCompile(`([A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)#([A-Za-z0-9_-]+)`)
	// a Markdown link's target: [text](target).
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// link is one reference found in a file.
type link struct {
	file   string // where it was found, relative to the root
	line   int
	target string // as written
}

func (l link) String() string { return fmt.Sprintf("%s:%d: %s", l.file, l.line, l.target) }

// repository lists the files the check reads: Go files and Markdown,
// outside hidden directories and testdata.
func repository(t *testing.T) (goFiles, mdFiles []string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go":
			goFiles = append(goFiles, p)
		case ".md":
			mdFiles = append(mdFiles, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return goFiles, mdFiles
}

// resolver checks targets against the files on disk, reading each
// document's headings once.
type resolver struct {
	headings map[string]map[string]bool
}

// resolve reports why target, found in the file from, does not resolve
// ("" when it does). A path is tried relative to from's directory, then
// to the repository's root (Go files and prose name docs/protocol.md from
// the root).
func (r *resolver) resolve(from, target string) string {
	path, anchor, hasAnchor := strings.Cut(target, "#")
	var file string
	if path == "" {
		file = from
	} else {
		for _, dir := range []string{filepath.Dir(from), root} {
			candidate := filepath.Join(dir, filepath.FromSlash(path))
			if _, err := os.Stat(candidate); err == nil {
				file = candidate
				break
			}
		}
		if file == "" {
			return "no such file"
		}
	}
	if !hasAnchor {
		return ""
	}
	if filepath.Ext(file) != ".md" {
		return "an anchor into a file that is not Markdown"
	}
	h, ok := r.headings[file]
	if !ok {
		b, err := os.ReadFile(file)
		if err != nil {
			return err.Error()
		}
		h = anchors(string(b))
		r.headings[file] = h
	}
	if !h[anchor] {
		return "no heading with the anchor #" + anchor
	}
	return ""
}

// references lists the links of one file: every document path with an
// anchor in a Go file; in Markdown, outside fenced code, every relative
// link target and every such path written in prose.
func references(t *testing.T, file string) []link {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, file)
	var out []link
	if filepath.Ext(file) == ".go" {
		for i, text := range strings.Split(string(b), "\n") {
			for _, m := range mdAnchor.FindAllString(text, -1) {
				out = append(out, link{rel, i + 1, m})
			}
		}
		return out
	}
	for _, l := range markdownLines(string(b)) {
		if l.code {
			continue
		}
		linked := map[string]bool{}
		for _, m := range mdLink.FindAllStringSubmatch(l.text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			linked[target] = true
			out = append(out, link{rel, l.number, target})
		}
		for _, m := range mdAnchor.FindAllString(l.text, -1) {
			if !linked[m] {
				out = append(out, link{rel, l.number, m})
			}
		}
	}
	return out
}

// Every link to a document or a section of one resolves: in Go files (the
// conformance checks' rules, doc comments), each document path with an anchor names a
// heading of that document; in Markdown, each relative link names a file
// that exists and, with an anchor, one of its headings (GitHub's slugs).
func TestLinksResolve(t *testing.T) {
	t.Parallel()
	goFiles, mdFiles := repository(t)
	r := &resolver{headings: map[string]map[string]bool{}}
	checked := 0
	for _, f := range append(goFiles, mdFiles...) {
		for _, l := range references(t, f) {
			checked++
			if why := r.resolve(filepath.Join(root, filepath.FromSlash(l.file)), l.target); why != "" {
				t.Errorf("%s: %s", l, why)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d links found: the walk or the patterns are broken", checked)
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ heading, want string }{
		{"The custom-app protocol", "the-custom-app-protocol"},
		{"Synchronizing an app: `appkit sync`", "synchronizing-an-app-appkit-sync"},
		{"The demo: `appkit host --demo`", "the-demo-appkit-host---demo"},
		{"GraphQL: `/api/graphql/space/<space>`", "graphql-apigraphqlspacespace"},
		{"The apps API (host)", "the-apps-api-host"},
		{"Help, shared flags and exit codes", "help-shared-flags-and-exit-codes"},
		{"Token refresh through /validate", "token-refresh-through-validate"},
		{"snake_case and Größe", "snake_case-and-größe"},
	} {
		if got := slug(c.heading); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

func TestAnchors(t *testing.T) {
	t.Parallel()
	doc := "# Title\n\n## Errors\n\n```sh\n# not a heading\n```\n\n### Errors\n\n~~~\n## Neither\n~~~\n## Limits ##\n"
	got := anchors(doc)
	for _, want := range []string{"title", "errors", "errors-1", "limits"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	for _, unwanted := range []string{"not-a-heading", "neither"} {
		if got[unwanted] {
			t.Errorf("anchor %q from a code block", unwanted)
		}
	}
}

// TestPackageMapIsComplete: every package under internal/ (a directory
// with a non-test Go file) is named in the package map of
// docs/architecture.md, so that the map stays true as packages are added.
func TestPackageMapIsComplete(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	goFiles, _ := repository(t)
	seen := map[string]bool{}
	for _, f := range goFiles {
		dir, err := filepath.Rel(root, filepath.Dir(f))
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.ToSlash(dir)
		if !strings.HasPrefix(dir, "internal/") || strings.HasSuffix(f, "_test.go") || seen[dir] {
			continue
		}
		seen[dir] = true
		if !strings.Contains(string(doc), dir+"/") && !strings.Contains(string(doc), "`"+dir+"`") {
			t.Errorf("docs/architecture.md does not name the package %s", dir)
		}
	}
	if len(seen) == 0 {
		t.Fatal("found no package under internal/")
	}
}
