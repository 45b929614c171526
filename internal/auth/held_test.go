package auth

// What the limits keep, for the tests of their sweeps: these counts are
// no part of the package's API.

// held is the number of keys the limiter keeps a bucket for.
func (l *Limiter) held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// held is the number of accounts the throttle follows.
func (t *AccountThrottle) held() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.accounts)
}
