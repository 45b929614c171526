package apps

import (
	"context"
	"sync"
)

// holdings is the work of this process on the syncs it leased, by sync id:
// what cancels it here and what tells when it ended.
type holdings struct {
	mu   sync.Mutex
	held map[string]*holding
}

func newHoldings() *holdings { return &holdings{held: map[string]*holding{}} }

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
