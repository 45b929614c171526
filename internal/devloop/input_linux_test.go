package devloop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mayRead: the terminal's foreground group is the process's, or there is
// none, or the terminal cannot say.
func TestMayRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pgrp int
		err  error
		want bool
	}{
		{pgrp: 42, want: true},
		{pgrp: 7, want: false},
		{pgrp: 0, want: true},
		{pgrp: 7, err: unix.ENOTTY, want: true},
	} {
		if got := mayRead(tc.pgrp, tc.err, 42); got != tc.want {
			t.Errorf("mayRead(%d, %v, 42) = %v, want %v", tc.pgrp, tc.err, got, tc.want)
		}
	}
}

// ptyHelper selects what a re-executed test binary does in
// TestKeyInputInBackground: "leader" or "reader".
const ptyHelper = "DEVLOOP_PTY_HELPER"

// A process in the background of its terminal reading keys from it (as
// "appkit dev &") is not stopped: it waits, and reads once it is brought
// to the foreground. Three processes: this test opens a pty; a session
// leader, whose controlling terminal it is (its group in the foreground),
// starts the reader in a group of its own (in the background, not
// orphaned), watches whether it is stopped and, once the reader says it
// waits, brings it to the foreground; the reader then reads the line this
// test typed and exits.
func TestKeyInputInBackground(t *testing.T) {
	switch os.Getenv(ptyHelper) {
	case "leader":
		os.Exit(ptyLeader())
	case "reader":
		os.Exit(ptyReader())
	}
	t.Parallel()
	master, slave, err := openPty()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	var out strings.Builder
	cmd := exec.Command(os.Args[0], "-test.run=^TestKeyInputInBackground$")
	cmd.Env = append(os.Environ(), ptyHelper+"=leader")
	cmd.Stdin = slave
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go io.Copy(io.Discard, master) // the terminal's echo
	if _, err := io.WriteString(master, "h\n"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill() // the reader, its terminal's session gone, is hung up
		<-done
		t.Fatalf("the session did not end:\n%s", out.String())
	}
	if err != nil || !strings.Contains(out.String(), "reader: read \"h\\n\"") {
		t.Fatalf("session: %v\n%s", err, out.String())
	}
}

// openPty opens a new pseudo-terminal: its master and its slave (not the
// controlling terminal of this process).
func openPty() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("unlock the pty: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("name the pty: %w", err)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

// ptyLeader is the session leader: it starts the reader in the
// background, brings it to the foreground once it says it waits, and
// fails when it is stopped.
func ptyLeader() int {
	cmd := exec.Command(os.Args[0], "-test.run=^TestKeyInputInBackground$")
	cmd.Env = append(os.Environ(), ptyHelper+"=reader")
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	lines, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Println("leader:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Println("leader:", err)
		return 1
	}
	pid := cmd.Process.Pid
	go func() {
		s := bufio.NewScanner(lines)
		for s.Scan() {
			fmt.Println(s.Text())
			if s.Text() == "reader: waiting for the foreground" {
				if err := unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, pid); err != nil {
					fmt.Println("leader: to the foreground:", err)
				}
			}
		}
	}()
	for {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED, nil); err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			fmt.Println("leader: wait:", err)
			return 1
		}
		switch {
		case ws.Stopped():
			fmt.Println("leader: the reader was stopped:", ws.StopSignal())
			syscall.Kill(pid, syscall.SIGKILL)
			return 1
		case ws.Exited():
			fmt.Println("leader: the reader exited:", ws.ExitStatus())
			return ws.ExitStatus()
		case ws.Signaled():
			fmt.Println("leader: the reader was killed:", ws.Signal())
			return 1
		}
	}
}

// ptyReader is the reader: in the background, it reads a line of keys.
func ptyReader() int {
	if pgrp, err := unix.IoctlGetInt(0, unix.TIOCGPGRP); err != nil || pgrp == unix.Getpgrp() {
		fmt.Println("reader: not in the background at the start:", pgrp, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in := KeyInput(ctx, os.Stdin)
	r, ok := in.(*foregroundReader)
	if !ok {
		fmt.Printf("reader: the terminal is read as a %T\n", in)
		return 1
	}
	r.waiting = func() { fmt.Println("reader: waiting for the foreground") }
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil {
		fmt.Println("reader:", err)
		return 1
	}
	fmt.Printf("reader: read %q\n", line)
	return 0
}
