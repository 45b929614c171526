package upstream

import (
	"context"
	"errors"
	"fmt"
)

// ErrTooMany: [All] met more items than its limit.
var ErrTooMany = errors.New("upstream: more items than the limit")

// DefaultAllLimit is the limit of [All] when it is given none: the items
// one answer (a datalist's options, say) may hold.
const DefaultAllLimit = 10_000

// All loads every page of a list endpoint through the pager and returns
// its items, for handlers that need a whole list at once rather than page
// by page (a datalist's options, a lookup table for a data handler): r is
// the first page's request (its Path and Query), as for [Fetch]. It stops
// with an error wrapping [ErrTooMany] as soon as the list holds more than
// limit items (limit <= 0: [DefaultAllLimit]), so that a list far longer
// than expected is never read to its end in memory; the errors of the
// calls are those of [Fetch].
func All[Raw any](ctx context.Context, s *Session, p Pager, r Request, limit int) ([]Raw, error) {
	if limit <= 0 {
		limit = DefaultAllLimit
	}
	var (
		out []Raw
		c   *Cursor
	)
	for {
		f, err := Fetch[Raw](ctx, s, p, r, c)
		if err != nil {
			return nil, err
		}
		if len(out)+len(f.Items) > limit {
			return nil, fmt.Errorf("%s: %w (%d)", r.Path, ErrTooMany, limit)
		}
		out = append(out, f.Items...)
		if f.Next == nil {
			return out, nil
		}
		c = f.Next
	}
}
