package graphql

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/mozillazg/go-unidecode"
)

// words transliterates s to ASCII (unidecode) and splits it into words of
// letters and digits: "Дата сдачи" → ["Data", "sdachi"], "dueDate" →
// ["due", "Date"], "HTTP_url" → ["HTTP", "url"].
func words(s string) []string {
	ascii := unidecode.Unidecode(s)
	var out []string
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for i := 0; i < len(ascii); i++ {
		c := ascii[i]
		isLetter := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		isDigit := c >= '0' && c <= '9'
		if !isLetter && !isDigit {
			flush()
			continue
		}
		// A lower-case letter followed by an upper-case one starts a word
		// ("dueDate"); so does the last capital of a run before a lower-case
		// letter ("HTTPServer" → HTTP, Server).
		if len(cur) > 0 && c >= 'A' && c <= 'Z' {
			prev := cur[len(cur)-1]
			next := byte(0)
			if i+1 < len(ascii) {
				next = ascii[i+1]
			}
			if (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9') ||
				(prev >= 'A' && prev <= 'Z' && next >= 'a' && next <= 'z') {
				flush()
			}
		}
		cur = append(cur, c)
	}
	flush()
	return out
}

func capitalize(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// pascalName is s as an ASCII PascalCase GraphQL name ("" when s has no
// letter or digit).
func pascalName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if isUpperWord(w) && len(w) > 1 {
			w = w[:1] + strings.ToLower(w[1:])
		}
		b.WriteString(capitalize(w))
	}
	return leadingDigit(b.String())
}

// camelName is s as an ASCII camelCase GraphQL name ("" when s has no letter
// or digit).
func camelName(s string) string {
	p := pascalName(s)
	if p == "" {
		return ""
	}
	if p[0] == '_' {
		return p
	}
	return strings.ToLower(p[:1]) + p[1:]
}

func isUpperWord(w string) bool {
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// leadingDigit prefixes a name starting with a digit with "_" (GraphQL names
// cannot start with a digit).
func leadingDigit(s string) string {
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		return "_" + s
	}
	return s
}

// plural is the English plural of a PascalCase name, by the common rules:
// a name already ending in "s" is kept.
func plural(s string) string {
	low := strings.ToLower(s)
	switch {
	case s == "":
		return s
	case strings.HasSuffix(low, "s"):
		return s
	case strings.HasSuffix(low, "y") && len(low) > 1 && !strings.ContainsRune("aeiou", rune(low[len(low)-2])):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(low, "x") || strings.HasSuffix(low, "z") || strings.HasSuffix(low, "ch") || strings.HasSuffix(low, "sh"):
		return s + "es"
	}
	return s + "s"
}

// namer hands out unique names: the first claim of a name gets it, later
// claims get it with 2, 3, ... appended. Claims happen in catalog order, so
// the names are stable while the catalog keeps its order.
type namer struct {
	used map[string]bool
}

func newNamer(reserved ...string) *namer {
	n := &namer{used: map[string]bool{}}
	for _, r := range reserved {
		n.used[r] = true
	}
	return n
}

// claim returns base, or base with the smallest number ≥ 2 appended, such
// that every name of base+suffix for the suffixes is free, and claims them.
// fallback replaces an empty base.
func (n *namer) claim(base, fallback string, suffixes ...string) string {
	if base == "" || strings.HasPrefix(base, "__") {
		base = fallback + strings.TrimLeft(base, "_")
	}
	if len(suffixes) == 0 {
		suffixes = []string{""}
	}
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = base + strconv.Itoa(i)
		}
		free := true
		for _, s := range suffixes {
			if n.used[name+s] {
				free = false
				break
			}
		}
		if free {
			for _, s := range suffixes {
				n.used[name+s] = true
			}
			return name
		}
	}
}
