package devloop

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
)

// DefaultAppLogMax is the size at which an [AppLog] is rotated.
const DefaultAppLogMax = 8 << 20

// AppLog is the file an app's output goes to during a dev session. It is
// appended to (the output of an earlier session, a crash included, stays
// readable after a restart of the session) and rotated when a write would
// take it past its cap: the file becomes PATH.1 (replacing the one before)
// and a new PATH is started, so that a long session uses at most twice the
// cap, plus one write. It is safe for concurrent use.
type AppLog struct {
	path string
	max  int64

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenAppLog opens (creating or appending to) the app log at path, rotated
// at max bytes (0 or less: [DefaultAppLogMax]).
func OpenAppLog(path string, max int64) (*AppLog, error) {
	if max <= 0 {
		max = DefaultAppLogMax
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the app log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open the app log: %w", err)
	}
	return &AppLog{path: path, max: max, f: f, size: st.Size()}, nil
}

// Path is the log's file.
func (l *AppLog) Path() string { return l.path }

// Write appends p, rotating the file first when p would take it past its
// cap. A rotation that fails leaves the output going to the file as it is.
func (l *AppLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		l.rotate()
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	if err != nil {
		return n, fmt.Errorf("write the app log: %w", err)
	}
	return n, nil
}

// rotate moves the file to PATH.1 and starts a new one (l.mu held).
func (l *AppLog) rotate() {
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return // the renamed file, still open, keeps the output
	}
	l.f.Close()
	l.f, l.size = f, 0
}

// Close closes the file.
func (l *AppLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// tailBytes bounds what a [tail] keeps of a process's output.
const tailBytes = 16 << 10

// tail keeps the last tailBytes of a process's output, for the lines shown
// when it exits unasked. Once full it is a ring: a write costs what it
// writes, not a shift of the buffer (a chatty app writes a line at a
// time). It is safe for concurrent use.
type tail struct {
	mu  sync.Mutex
	buf []byte // at most tailBytes; once full, the oldest byte at start
	// start is where the output begins in buf, and the next write goes
	// (0 until buf is full).
	start int
	cut   bool // the start of the output was dropped
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > tailBytes {
		p, t.cut = p[len(p)-tailBytes:], true
	}
	if room := tailBytes - len(t.buf); room > 0 {
		k := min(room, len(p))
		t.buf, p = append(t.buf, p[:k]...), p[k:]
	}
	if len(p) > 0 {
		t.cut = true
	}
	for len(p) > 0 {
		k := copy(t.buf[t.start:], p)
		p, t.start = p[k:], (t.start+k)%len(t.buf)
	}
	return n, nil
}

// lines returns the last n lines kept (a first line cut by the bound is
// left out), without their line ends.
func (t *tail) lines(n int) []string {
	t.mu.Lock()
	out := make([]byte, 0, len(t.buf))
	out = append(append(out, t.buf[t.start:]...), t.buf[:t.start]...)
	cut := t.cut
	t.mu.Unlock()
	b := string(bytes.TrimRight(out, "\r\n"))
	if len(b) == 0 || n <= 0 {
		return nil
	}
	all := strings.Split(b, "\n")
	if cut && len(all) > 1 {
		all = all[1:] // cut by the bound
	}
	if len(all) > n {
		all = all[len(all)-n:]
	}
	for i, s := range all {
		all[i] = strings.TrimRight(s, "\r")
	}
	return all
}
