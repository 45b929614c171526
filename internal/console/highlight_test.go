package console

import (
	"html"
	"regexp"
	"strings"
	"testing"
)

var tags = regexp.MustCompile(`<[^>]*>`)

func TestHighlight(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode, text string
		want       []string
	}{
		{"json", `{"a": 1.5, "b": [true, null], "c": "x\"<y>"}`, []string{`<span class="hl-s">&#34;a&#34;</span>`, `<span class="hl-n">1.5</span>`, `<span class="hl-k">true</span>`, `<span class="hl-k">null</span>`, `&lt;y&gt;`}},
		{"sql", "SELECT id, 'it''s' FROM t -- note\nWHERE n > -2", []string{`<span class="hl-k">SELECT</span>`, `<span class="hl-k">FROM</span>`, `<span class="hl-c">-- note</span>`, `<span class="hl-n">-2</span>`, `<span class="hl-s">&#39;it&#39;</span>`}},
		{"", `<b>plain</b>`, []string{`&lt;b&gt;plain&lt;/b&gt;`}},
	}
	for _, c := range cases {
		got := string(highlight(c.text, c.mode))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %q: %s lacks %s", c.mode, c.text, got, w)
			}
		}
		if back := html.UnescapeString(tags.ReplaceAllString(got, "")); back != c.text {
			t.Errorf("%s: %q gives the text %q back", c.mode, c.text, back)
		}
	}
	if got := string(highlight(strings.Repeat("select ", maxHighlight/7+1), "sql")); strings.Contains(got, "<span") {
		t.Error("a text over the limit was coloured")
	}
}

// FuzzHighlight: whatever the text, the HTML holds only the highlighter's
// own tags and gives the text back.
func FuzzHighlight(f *testing.F) {
	f.Add(`{"a":[1,-2e3,"\"x"]}`, "json")
	f.Add("select 'a' -- b\n", "sql")
	f.Add("<script>", "sql")
	f.Fuzz(func(t *testing.T, text, mode string) {
		got := string(highlight(text, mode))
		for _, tag := range tags.FindAllString(got, -1) {
			if tag != "</span>" && !strings.HasPrefix(tag, `<span class="hl-`) {
				t.Fatalf("unexpected tag %q", tag)
			}
		}
		// html/template writes NUL as U+FFFD.
		want := strings.ReplaceAll(text, "\x00", "\uFFFD")
		if back := html.UnescapeString(tags.ReplaceAllString(got, "")); back != want && strings.ToValidUTF8(text, "") == text {
			t.Fatalf("%q gives %q back", text, back)
		}
	})
}
