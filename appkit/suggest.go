package appkit

import (
	"fmt"
	"slices"
	"strings"
)

// tagOptions are the options of the `appkit` struct tag without a value;
// tagKeys are those written key=value.
var (
	tagOptions = []string{"readonly", "hidden", "omitempty"}
	tagKeys    = []string{"name", "desc", "options", "ref", "inverse", "match", "order", "format", "precision", "unit"}
)

// synonyms maps words that people write for a subType to the protocol's
// name for it.
var synonyms = map[string]string{
	"markdown": "md", "mdown": "md", "rich": "md", "richtext": "md",
	"enum": "single-select", "select": "single-select", "choice": "single-select",
	"multi": "multi-select", "tags": "multi-select",
	"mail": "email", "link": "url", "uri": "url", "bool": "boolean", "int": "integer",
	"attachment": "file", "attachments": "files", "status": "workflow", "state": "workflow",
	"date": "day",
}

// subTypeNames lists the subTypes' names, sorted.
func subTypeNames() []string {
	out := make([]string, 0, len(subTypeKinds))
	for s := range subTypeKinds {
		out = append(out, string(s))
	}
	slices.Sort(out)
	return out
}

// didYouMean returns ` (did you mean "x"?)` for the candidate nearest to
// word, or "" when none is near: a known synonym, the same word spelled
// with other separators or case, an abbreviation (a candidate whose letters
// appear in order in word, such as md in markdown, or the start of a
// candidate), or a candidate within a few edits.
func didYouMean(word string, candidates []string) string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(s))
	}
	w := norm(word)
	if w == "" {
		return ""
	}
	pick := func(c string) string { return fmt.Sprintf(" (did you mean %q?)", c) }
	if s, ok := synonyms[w]; ok && slices.Contains(candidates, s) {
		return pick(s)
	}
	for _, c := range candidates {
		if norm(c) == w {
			return pick(c)
		}
	}
	best, bestDist := "", max(1, len(w)/3)+1 // accept distances below this
	for _, c := range candidates {
		if d := editDistance(w, norm(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best != "" {
		return pick(best)
	}
	for _, c := range candidates {
		nc := norm(c)
		if (len(nc) >= 2 && isSubsequence(nc, w) && nc[0] == w[0]) || (len(w) >= 3 && strings.HasPrefix(nc, w)) {
			return pick(c)
		}
	}
	return ""
}

// isSubsequence reports whether the letters of a appear in b in order.
func isSubsequence(a, b string) bool {
	i := 0
	for j := 0; j < len(b) && i < len(a); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

// editDistance is the optimal-string-alignment distance of two short
// ASCII words: insertions, deletions, substitutions and transpositions of
// neighbours ("emial" is one edit from "email").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
