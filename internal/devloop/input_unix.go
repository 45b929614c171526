//go:build unix

package devloop

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// foregroundPoll is how often a [KeyInput] in the background checks
// whether it is in the foreground again.
const foregroundPoll = 250 * time.Millisecond

// KeyInput is f, the process's standard input, as the developer's keys are
// read from it: a terminal is read only while the process is in its
// foreground process group. A process in the background that reads its
// terminal is stopped by the system (SIGTTIN: "appkit dev &" would stop
// itself); instead, in the background, the reader waits until the process
// is brought to the foreground ("fg") and reads on from there, until ctx
// ends (its Read then returns ctx's error). SIGTTIN is ignored so that a
// read sent to the background while it waits (Ctrl-Z then "bg") fails with
// EIO instead of stopping the process; that read is then retried in the
// foreground. Programs the process starts inherit that SIGTTIN is ignored
// (a read of the terminal from the background fails for them too, rather
// than stopping them). A pipe, a file or a terminal that is not the
// process's controlling terminal is read as it is.
func KeyInput(ctx context.Context, f *os.File) io.Reader {
	fd := int(f.Fd())
	if _, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err != nil {
		return f // no controlling terminal: reading it never stops the process
	}
	signal.Ignore(syscall.SIGTTIN)
	return &foregroundReader{ctx: ctx, f: f, fd: fd}
}

// foregroundReader reads a terminal only while the process is in its
// foreground process group.
type foregroundReader struct {
	ctx context.Context
	f   *os.File
	fd  int
	// waiting, when set (by tests), is called each time the reader starts
	// to wait for the foreground.
	waiting func()
}

func (r *foregroundReader) Read(p []byte) (int, error) {
	for {
		if !foreground(r.fd) {
			if err := r.waitForeground(); err != nil {
				return 0, err
			}
		}
		n, err := r.f.Read(p)
		if n == 0 && errors.Is(err, syscall.EIO) && !foreground(r.fd) {
			continue // sent to the background while it read
		}
		return n, err
	}
}

// waitForeground returns once the process is in the terminal's foreground
// process group, or ctx's error once it ends.
func (r *foregroundReader) waitForeground() error {
	if r.waiting != nil {
		r.waiting()
	}
	tick := time.NewTicker(foregroundPoll)
	defer tick.Stop()
	for !foreground(r.fd) {
		select {
		case <-r.ctx.Done():
			return context.Cause(r.ctx)
		case <-tick.C:
		}
	}
	return nil
}

// foreground reports whether the process may read the terminal fd without
// being stopped.
func foreground(fd int) bool {
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return mayRead(pgrp, err, unix.Getpgrp())
}

// mayRead decides foreground: the terminal's foreground process group is
// pgrp (err: the terminal could not say, and a read will report what is
// wrong), own is the process's group. A terminal without a foreground
// group (pgrp 0) does not stop its readers.
func mayRead(pgrp int, err error, own int) bool {
	return err != nil || pgrp <= 0 || pgrp == own
}
