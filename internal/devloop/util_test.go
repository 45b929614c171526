package devloop_test

import (
	"bytes"
	"strconv"
	"sync"
)

func itoa(n int) string { return strconv.Itoa(n) }

// syncWriter is a buffer written by a process's output copier and read by
// the test.
type syncWriter struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
