package sqlsync

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxQueryBytes bounds the length of the query filter.
const MaxQueryBytes = 64 << 10

// readers are the statements that can only read: the first keyword of an
// accepted query.
var readers = map[string]bool{"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true}

// CheckStatement reports why q is not one read-only statement, and returns
// it without a trailing semicolon otherwise. It reads the query the way both
// databases do (quoted strings and identifiers, SQLite's [bracketed]
// identifiers, PostgreSQL's E'...' strings with backslash escapes, dollar
// quoting, -- and /* */ comments, nested in PostgreSQL) to find its first
// keyword and any statement after the first.
//
// It is a friendly first line, for clear messages: what keeps the database
// unchanged holds without it (see [DB.Query]): the database itself parses
// the one statement it runs, on a connection that cannot write.
func CheckStatement(q string) (string, error) {
	if len(q) > MaxQueryBytes {
		return "", fmt.Errorf("the query is %d bytes long; at most %d", len(q), MaxQueryBytes)
	}
	if !utf8.ValidString(q) || strings.ContainsRune(q, 0) {
		return "", fmt.Errorf("the query is not valid UTF-8 text")
	}
	first, end := "", -1
	i := 0
	for i < len(q) {
		c := q[i]
		switch {
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				i = len(q)
			} else {
				i += j + 1
			}
			continue
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			j, err := skipBlockComment(q, i)
			if err != nil {
				return "", err
			}
			i = j
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
			continue
		}
		if end >= 0 {
			return "", fmt.Errorf("the query holds more than one statement (text after the ';' at byte %d): send one SELECT", end)
		}
		switch {
		case c == '[':
			k := strings.IndexByte(q[i:], ']')
			if k < 0 {
				return "", fmt.Errorf("the [ at byte %d is never closed", i)
			}
			i += k + 1
		case (c == 'E' || c == 'e') && i+1 < len(q) && q[i+1] == '\'' && (i == 0 || !isWordByte(q[i-1])):
			j, err := skipEscapeString(q, i+1)
			if err != nil {
				return "", err
			}
			if first == "" {
				return "", fmt.Errorf("the query starts with a string: start it with SELECT or WITH")
			}
			i = j
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for {
				k := strings.IndexByte(q[j:], c)
				if k < 0 {
					return "", fmt.Errorf("the quote at byte %d is never closed", i)
				}
				j += k + 1
				if j < len(q) && q[j] == c { // a doubled quote stays inside
					j++
					continue
				}
				break
			}
			i = j
		case c == '$':
			j, ok := skipDollar(q, i)
			if !ok {
				i++
				continue
			}
			if j < 0 {
				return "", fmt.Errorf("the dollar-quoted string at byte %d is never closed", i)
			}
			i = j
		case c == ';':
			end = i
			i++
		case isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			if first == "" {
				first = strings.ToUpper(q[i:j])
			}
			i = j
		default:
			if first == "" {
				return "", fmt.Errorf("the query starts with %q: start it with SELECT or WITH", string(c))
			}
			i++
		}
	}
	if first == "" {
		return "", fmt.Errorf("the query is empty: write a SELECT")
	}
	if !readers[first] {
		return "", fmt.Errorf("the query starts with %s: only SELECT, WITH, VALUES and TABLE statements are run (the app only reads)", first)
	}
	if end >= 0 {
		q = q[:end]
	}
	return strings.TrimSpace(q), nil
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// skipEscapeString returns the index after PostgreSQL's E'...' string whose
// quote is at i: a backslash escapes the next byte, and a doubled quote
// stays inside.
func skipEscapeString(q string, i int) (int, error) {
	for j := i + 1; j < len(q); j++ {
		switch q[j] {
		case '\\':
			j++
		case '\'':
			if j+1 < len(q) && q[j+1] == '\'' {
				j++
				continue
			}
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("the quote at byte %d is never closed", i)
}

// skipBlockComment returns the index after the /* */ comment at i
// (PostgreSQL nests them).
func skipBlockComment(q string, i int) (int, error) {
	depth, j := 0, i
	for j < len(q) {
		switch {
		case strings.HasPrefix(q[j:], "/*"):
			depth++
			j += 2
		case strings.HasPrefix(q[j:], "*/"):
			depth--
			j += 2
			if depth == 0 {
				return j, nil
			}
		default:
			j++
		}
	}
	return 0, fmt.Errorf("the comment at byte %d is never closed", i)
}

// skipDollar reads a PostgreSQL dollar-quoted string ($tag$...$tag$) at i:
// ok is false when i starts no dollar quote (a parameter such as $1, or a
// lone $), and the end is -1 when the string is never closed.
func skipDollar(q string, i int) (end int, ok bool) {
	j := i + 1
	for j < len(q) && q[j] != '$' {
		c := q[j]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || (j > i+1 && c >= '0' && c <= '9')) {
			return 0, false
		}
		j++
	}
	if j >= len(q) {
		return 0, false
	}
	tag := q[i : j+1]
	k := strings.Index(q[j+1:], tag)
	if k < 0 {
		return -1, true
	}
	return j + 1 + k + len(tag), true
}
