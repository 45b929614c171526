package testkit

import (
	"bytes"
	"sync"
	"testing"
)

// Buffer is a bytes.Buffer that is safe for concurrent use: what a
// server's goroutines or a process's output copier write (a log), read by
// the test, which can wait for the next write (Changes).
type Buffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed at the next write (nil: none asked for)
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	return b.buf.Write(p)
}

// Changes returns what was written so far and a channel closed at the
// next write: a test waiting for some output checks the first and, until
// it is there, waits on the second.
func (b *Buffer) Changes() (string, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.buf.String(), b.changed
}

// ShowOnFailure logs the last 6000 bytes written to b, headed by name,
// when the test has failed by the time it ends. Cleanups registered after
// it (stopping what writes to b) run before it.
func (b *Buffer) ShowOnFailure(t testing.TB, name string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		s := b.String()
		if len(s) > 6000 {
			s = "…" + s[len(s)-6000:]
		}
		t.Logf("%s:\n%s", name, s)
	})
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
