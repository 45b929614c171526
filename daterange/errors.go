package daterange

import (
	"errors"
	"fmt"
)

// Kinds of parse errors; match them with errors.Is on an error from Parse or
// ParseDay.
var (
	// ErrSyntax: the statement is not in the language.
	ErrSyntax = errors.New("syntax error")
	// ErrInvalidDate: a date that does not exist, such as 30 Feb 2017.
	ErrInvalidDate = errors.New("invalid date")
	// ErrStartAfterEnd: the range would start after it ends, such as
	// "between today and yesterday".
	ErrStartAfterEnd = errors.New("start after end")
	// ErrOutOfRange: a number of units reaches outside the years 0001-9999.
	ErrOutOfRange = errors.New("out of range")
)

// maxErrWord bounds how much of an offending word an error quotes.
const maxErrWord = 32

// Error is a parse error: what is wrong and where.
type Error struct {
	// Kind is ErrSyntax, ErrInvalidDate, ErrStartAfterEnd or ErrOutOfRange.
	Kind error
	// Pos is the byte offset of the offending word in the statement; it is
	// the length of the statement when the statement ends too early.
	Pos int
	// Word is the offending word (at most 32 bytes of it), or "" when the
	// statement ends too early.
	Word string
	// Msg says what is wrong.
	Msg string
}

// Error formats as
//
//	daterange: syntax error at position 5 ("0"): the number of units must be at least 1
func (e *Error) Error() string {
	if e.Word == "" {
		return fmt.Sprintf("daterange: %v at end of statement (position %d): %s", e.Kind, e.Pos, e.Msg)
	}
	return fmt.Sprintf("daterange: %v at position %d (%q): %s", e.Kind, e.Pos, e.Word, e.Msg)
}

// Unwrap returns Kind.
func (e *Error) Unwrap() error { return e.Kind }

func newError(kind error, t token, msg string) *Error {
	w := t.text
	if len(w) > maxErrWord {
		w = w[:maxErrWord]
	}
	return &Error{Kind: kind, Pos: t.pos, Word: w, Msg: msg}
}
