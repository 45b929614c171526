// Package problems collects the problems of a declaration (a Config, an
// Options) so that its validation reports every one at once, wrapped in
// the declaring package's sentinel error: the convention every Config of
// the host follows (WithDefaults, then a validate that returns
// List.Err(ErrConfig)).
package problems

import (
	"errors"
	"fmt"
)

// List is the problems found so far; the zero value is empty and ready.
type List struct{ errs []error }

// Add records a problem, formatted as fmt.Errorf formats it.
func (l *List) Add(format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf(format, args...))
}

// Err is nil without problems; else an error that wraps kind and every
// problem (errors.Is matches kind and each wrapped problem), its message
// kind's, then the problems one per line.
func (l *List) Err(kind error) error {
	if len(l.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", kind, errors.Join(l.errs...))
}

// Positive records a problem unless the limit name, v, is more than 0:
// "name is v, want more than 0". A duration is shown as one (1.5s).
func Positive[T ~int | ~int64](l *List, name string, v T) {
	if v <= 0 {
		l.Add("%s is %v, want more than 0", name, v)
	}
}

// NotNegative records a problem if the limit name, v, is below 0, where 0
// stands for its default: "name is v, want 0 (the default) or more". A
// duration is shown as one (-1s).
func NotNegative[T ~int | ~int64](l *List, name string, v T) {
	if v < 0 {
		l.Add("%s is %v, want 0 (the default) or more", name, v)
	}
}
