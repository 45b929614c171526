// Package capped is a list that keeps the first items it is given, up to a
// bound, and counts the rest: what a record of calls keeps when a hostile
// or runaway peer makes more of them than anyone should store.
package capped

import "sync"

// List keeps at most Max items, in the order added, and counts those it
// did not keep. It is safe for concurrent use; the zero value keeps
// nothing and counts everything.
type List[T any] struct {
	// Max is how many items the list keeps.
	Max int

	mu      sync.Mutex
	items   []T
	dropped int
}

// Add keeps item, or counts it as dropped once Max items are kept.
func (l *List[T]) Add(item T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.items) >= l.Max {
		l.dropped++
		return
	}
	l.items = append(l.items, item)
}

// Drop counts an item as dropped without keeping it: one the caller
// refused, counted with those beyond Max.
func (l *List[T]) Drop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropped++
}

// Items returns a copy of the items kept (nil when none) and how many were
// dropped.
func (l *List[T]) Items() ([]T, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.items) == 0 {
		return nil, l.dropped
	}
	return append([]T(nil), l.items...), l.dropped
}
