package store

// Test access to the catalog listener.

// ListenerPID is the backend pid of the catalog listener's connection.
func (s *Store) ListenerPID() uint32 { return s.fresh.pid.Load() }

// CatalogRetries is the number of reads View ran a second time.
func (s *Store) CatalogRetries() int64 { return s.fresh.retries.Load() }

// HoldNotifications makes the listener call hook before it handles each
// notification (nil removes it).
func (s *Store) HoldNotifications(hook func()) {
	if hook == nil {
		s.fresh.hook.Store(nil)
		return
	}
	s.fresh.hook.Store(&hook)
}

// HoldReconnect makes the listener call hook before each connection attempt
// (nil removes it).
func (s *Store) HoldReconnect(hook func()) {
	if hook == nil {
		s.fresh.connectHook.Store(nil)
		return
	}
	s.fresh.connectHook.Store(&hook)
}
