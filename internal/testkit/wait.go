package testkit

import (
	"testing"
	"time"
)

// WaitTimeout bounds WaitUntil: generous for a loaded 2-core machine under
// -race, it is a limit on a hung test, not a timing assertion.
const WaitTimeout = time.Minute

// WaitUntil checks cond every few milliseconds until it holds; when
// WaitTimeout passes without it, it fails the test with "timed out waiting
// for what".
func WaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(WaitTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
