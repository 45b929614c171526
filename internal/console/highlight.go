package console

import (
	"html/template"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxHighlight bounds the text the highlighter colours; beyond it the text
// is shown plain.
const maxHighlight = 64 << 10

// sqlKeywords are the words the SQL mode marks as keywords.
var sqlKeywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`select from where and or not in is null like ilike between join left right inner
outer full cross on using group by order having limit offset as distinct union all except intersect case when then
else end asc desc insert into values update set delete create table view index with recursive exists true false
count sum avg min max cast coalesce interval date time timestamp returning over partition`) {
		sqlKeywords[w] = true
	}
}

// token kinds of the highlighter (CSS classes).
const (
	hlString  = "s"
	hlNumber  = "n"
	hlKeyword = "k"
	hlComment = "c"
	hlPunct   = "p"
)

// highlight colours JSON or SQL (mode "json" or "sql"; anything else is
// shown plain) as HTML: each token in a span with a class, every character
// escaped. Stripping the tags and unescaping gives the text back.
func highlight(text, mode string) template.HTML {
	if len(text) > maxHighlight || !utf8.ValidString(text) || (mode != "json" && mode != "sql") {
		return template.HTML(template.HTMLEscapeString(text)) //nolint:gosec // escaped
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		class, j := nextToken(text, i, mode)
		if class == "" {
			b.WriteString(template.HTMLEscapeString(text[i:j]))
		} else {
			b.WriteString(`<span class="hl-` + class + `">`)
			b.WriteString(template.HTMLEscapeString(text[i:j]))
			b.WriteString(`</span>`)
		}
		i = j
	}
	return template.HTML(b.String()) //nolint:gosec // every piece escaped above
}

// nextToken reads the token of text starting at i (i < len(text)) in
// mode: its class ("" for none) and where it ends (past i).
func nextToken(text string, i int, mode string) (class string, end int) {
	c := text[i]
	switch {
	case c == '"' || (mode == "sql" && c == '\''):
		return hlString, quotedEnd(text, i, mode)
	case mode == "sql" && strings.HasPrefix(text[i:], "--"):
		if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
			return hlComment, i + j
		}
		return hlComment, len(text)
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(text) && (text[j] >= '0' && text[j] <= '9' || text[j] == '.' || text[j] == 'e' || text[j] == 'E' || text[j] == '+' || text[j] == '-') {
			j++
		}
		if c == '-' && j == i+1 {
			return hlPunct, j
		}
		return hlNumber, j
	case c < utf8.RuneSelf && (c == '_' || unicode.IsLetter(rune(c))):
		j := i + 1
		for j < len(text) && text[j] < utf8.RuneSelf && (text[j] == '_' || unicode.IsLetter(rune(text[j])) || unicode.IsDigit(rune(text[j]))) {
			j++
		}
		word := text[i:j]
		if (mode == "sql" && sqlKeywords[strings.ToLower(word)]) || (mode == "json" && (word == "true" || word == "false" || word == "null")) {
			return hlKeyword, j
		}
		return "", j
	case strings.IndexByte("{}[](),:;=<>*.", c) >= 0:
		return hlPunct, i + 1
	}
	_, size := utf8.DecodeRuneInString(text[i:])
	return "", i + size
}

// quotedEnd is where the string quoted at text[i] ends: past its closing
// quote (a JSON string's escapes skipped), or the end of text.
func quotedEnd(text string, i int, mode string) int {
	q := text[i]
	j := i + 1
	for j < len(text) && text[j] != q {
		if text[j] == '\\' && mode == "json" && j+1 < len(text) {
			j++
		}
		j++
	}
	if j < len(text) {
		j++
	}
	return j
}

// highlightView is the highlight fragment's content: the text coloured.
type highlightView struct {
	HTML template.HTML
}

// highlightFragment colours ?value= (or the first f.* / filter.* parameter,
// as htmx sends the textarea's own name) in ?mode=json|sql.
func (c *Console) highlightFragment(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	v := q.Get("value")
	if v == "" {
		for k, vs := range q {
			if (strings.HasPrefix(k, "f.") || strings.HasPrefix(k, "filter.")) && len(vs) > 0 {
				v = vs[0]
				break
			}
		}
	}
	return highlightFrag.show(c, w, r, http.StatusOK, layout{}, &highlightView{HTML: highlight(v, q.Get("mode"))})
}
