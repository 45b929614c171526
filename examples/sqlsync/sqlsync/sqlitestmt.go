package sqlsync

import (
	"errors"
	"fmt"
	"strings"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// MaxSemicolons bounds the ';' a SQLite query may hold (inside strings,
// identifiers or comments: one outside them is refused anyway). Each one
// costs a pass of SQLite's tokenizer over the text before it.
const MaxSemicolons = 64

// sqliteOneStatement reports an error unless SQLite's own tokenizer reads
// text as one statement: sqlite3_complete, which is true for a text that
// ends at the ';' of a complete statement, must be false for the text up
// to every ';' it holds. The driver would run every statement of a text
// that holds several; this check is how the app runs only one.
func sqliteOneStatement(text string) error {
	if strings.Count(text, ";") > MaxSemicolons {
		return fmt.Errorf("the query holds more than %d ';'", MaxSemicolons)
	}
	if strings.IndexByte(text, 0) >= 0 {
		return errors.New("the query holds a NUL byte")
	}
	if !strings.Contains(text, ";") {
		return nil
	}
	tls := libc.NewTLS()
	defer tls.Close()
	for i := 0; i < len(text); i++ {
		if text[i] != ';' {
			continue
		}
		complete, err := sqliteComplete(tls, text[:i+1])
		if err != nil {
			return err
		}
		if complete {
			return fmt.Errorf("the query holds more than one statement (a statement ends at byte %d): send one SELECT", i)
		}
	}
	return nil
}

// sqliteComplete is sqlite3_complete(s).
func sqliteComplete(tls *libc.TLS, s string) (bool, error) {
	p, err := libc.CString(s)
	if err != nil {
		return false, fmt.Errorf("sqlite3_complete: %w", err)
	}
	defer libc.Xfree(tls, p)
	return sqlite3.Xsqlite3_complete(tls, p) != 0, nil
}
