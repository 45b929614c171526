package conformance_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/conformance"
)

// The table of checks (id, level, rule, source) is published twice: in the
// package doc and in docs/protocol.md. Both are generated from Checks();
// this test fails when either drifts from the registered checks (run it
// with -update to rewrite them).

const (
	docFile        = "doc.go"
	docHeading     = "// # The checks, their levels and sources"
	protocolFile   = "../docs/protocol.md"
	protocolBegin  = "<!-- checks table: generated from conformance.Checks() by TestChecksTable (go test ./conformance -run TestChecksTable -update) -->"
	protocolEnd    = "<!-- end of the checks table -->"
	docWrapColumns = 76
)

// anchor turns a check's Rule ("docs/protocol.md#items") into a link
// within docs/protocol.md.
func anchor(rule string) string {
	_, a, _ := strings.Cut(rule, "#")
	return "#" + a
}

// mdEscape keeps a table cell's text as written: no column break, no HTML
// tag.
var mdEscape = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;")

// markdownTable renders the checks as docs/protocol.md shows them.
func markdownTable(checks []conformance.Check) string {
	var b strings.Builder
	b.WriteString("| check | level | rule | source |\n|---|---|---|---|\n")
	for _, c := range checks {
		fmt.Fprintf(&b, "| `%s` | %s | [%s](%s) | %s |\n", c.ID, c.Severity, mdEscape.Replace(c.Title), anchor(c.Rule), mdEscape.Replace(c.Source))
	}
	return b.String()
}

// wrap breaks text into lines of at most width columns: the first
// prefixed with first, the others with prefix.
func wrap(first, prefix, text string, width int) string {
	var b strings.Builder
	line := first
	for _, w := range strings.Fields(text) {
		if len(line) > len(prefix) && len(line)+1+len(w) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = prefix
		}
		if len(line) > len(prefix) {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
	return b.String()
}

// docSection renders the checks as the package doc's last section.
func docSection(checks []conformance.Check) string {
	var b strings.Builder
	b.WriteString(docHeading + "\n//\n")
	b.WriteString(wrap("// ", "// ", "Every check, sorted by id, with its level, what it checks (the rule, "+
		"and the section of docs/protocol.md that states it) and its source: for a failure, what the "+
		"protocol requires; for a warning, whose choice or tolerance it is.", docWrapColumns))
	b.WriteString("//\n")
	for _, c := range checks {
		b.WriteString(wrap("//   - ", "//     ", fmt.Sprintf("%s (%s): %s (%s).", c.ID, c.Severity, c.Title, c.Rule), docWrapColumns))
		b.WriteString(wrap("//     ", "//     ", "Source: "+c.Source, docWrapColumns))
	}
	return b.String()
}

// splice replaces what lies between begin and end (exclusive) in file.
func splice(t *testing.T, file []byte, begin, end, content string) []byte {
	t.Helper()
	i := bytes.Index(file, []byte(begin))
	if i < 0 {
		t.Fatalf("no %q", begin)
	}
	j := bytes.Index(file[i:], []byte(end))
	if j < 0 {
		t.Fatalf("no %q after %q", end, begin)
	}
	var out bytes.Buffer
	out.Write(file[:i])
	out.WriteString(content)
	out.Write(file[i+j:])
	return out.Bytes()
}

func TestChecksTable(t *testing.T) {
	checks := conformance.Checks()
	for _, f := range []struct {
		path, begin, end, content string
	}{
		{docFile, docHeading, "package conformance", docSection(checks)},
		{protocolFile, protocolBegin, protocolEnd, protocolBegin + "\n\n" + markdownTable(checks) + "\n"},
	} {
		old, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		want := splice(t, old, f.begin, f.end, f.content)
		if *update && !bytes.Equal(old, want) {
			if err := os.WriteFile(f.path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !bytes.Equal(old, want) {
			t.Errorf("%s: the checks table differs from conformance.Checks() (run go test ./conformance -run TestChecksTable -update)", f.path)
		}
	}
}

// Every check has a title, a rule that names a section of docs/protocol.md
// that exists, a level and a source; a warning's source says whose choice
// or tolerance it is, a failure's names the protocol's section.
func TestChecksDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(protocolFile)
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if h, ok := strings.CutPrefix(line, "### "); ok {
			headings["#"+strings.ReplaceAll(strings.ToLower(h), " ", "-")] = true
		}
	}
	for _, c := range conformance.Checks() {
		if c.Title == "" || c.Source == "" {
			t.Errorf("%s: no title or source", c.ID)
		}
		if !strings.HasPrefix(c.Rule, "docs/protocol.md#") || !headings[anchor(c.Rule)] {
			t.Errorf("%s: rule %q names no section of docs/protocol.md", c.ID, c.Rule)
		}
		switch c.Severity {
		case conformance.Failure:
			if strings.Contains(c.Source, "choice") || strings.Contains(c.Source, "tolerance") {
				t.Errorf("%s: a failure whose source is a choice or a tolerance: %s", c.ID, c.Source)
			}
		case conformance.Warning:
		default:
			t.Errorf("%s: level %q", c.ID, c.Severity)
		}
	}
}
