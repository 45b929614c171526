package apps

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// holdings is the work of this process on the syncs it leased, by sync id:
// what cancels it here and what tells when it ended.
type holdings struct {
	mu   sync.Mutex
	held map[string]*holding
	// changing counts the changes of each sync in progress here: the
	// scheduler of this process claims none of them meanwhile.
	changing map[string]int
}

func newHoldings() *holdings {
	return &holdings{held: map[string]*holding{}, changing: map[string]int{}}
}

// change records a change of the sync in progress until the returned
// function is called: a run of this process that the change cancels is
// not followed by another, with the settings before the change, until the
// change is written.
func (s *holdings) change(syncID string) (done func()) {
	s.mu.Lock()
	s.changing[syncID]++
	s.mu.Unlock()
	return sync.OnceFunc(func() {
		s.mu.Lock()
		if s.changing[syncID]--; s.changing[syncID] <= 0 {
			delete(s.changing, syncID)
		}
		s.mu.Unlock()
	})
}

// changingIDs are the syncs with a change in progress here.
func (s *holdings) changingIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Keys(s.changing))
}

// holding is the work of this process on a leased sync.
type holding struct {
	cancel context.CancelCauseFunc
	done   chan struct{}

	// reason is why this process cancelled it (under holdings.mu).
	reason string
}

// hold records that this process works on the sync until release is
// called.
func (s *holdings) hold(syncID string, cancel context.CancelCauseFunc) (h *holding, release func()) {
	h = &holding{cancel: cancel, done: make(chan struct{})}
	s.mu.Lock()
	s.held[syncID] = h
	s.mu.Unlock()
	return h, func() {
		s.mu.Lock()
		if s.held[syncID] == h {
			delete(s.held, syncID)
		}
		s.mu.Unlock()
		close(h.done)
	}
}

// cancelHere cancels the work of this process on the sync (if any) and
// returns what to wait on for it to end (nil when there is none).
func (s *holdings) cancelHere(syncID, reason string) <-chan struct{} {
	s.mu.Lock()
	h := s.held[syncID]
	if h != nil && h.reason == "" {
		h.reason = reason
	}
	s.mu.Unlock()
	if h == nil {
		return nil
	}
	h.cancel(errCancelled)
	return h.done
}

// localReason is why this process cancelled its work on the sync ("" when
// it did not).
func (s *holdings) localReason(h *holding) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return h.reason
}
