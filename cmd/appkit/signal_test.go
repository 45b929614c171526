package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// signalHelperEnv makes TestSignalHelperProcess act as a command that
// ignores its context's end (a shutdown that hangs).
const signalHelperEnv = "APPKIT_TEST_SIGNAL_HELPER"

func TestSignalHelperProcess(t *testing.T) {
	if os.Getenv(signalHelperEnv) != "1" {
		t.Skip("run by TestSecondInterruptForceQuits")
	}
	ctx := signalContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	fmt.Println("ready")
	<-ctx.Done()
	fmt.Println("stopping")
	select {} // a shutdown that never ends: only the second signal ends the process
}

// The first SIGINT ends the command's context; the second ends the process
// even when the command does not stop.
func TestSecondInterruptForceQuits(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a bound for a loaded machine
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSignalHelperProcess$")
	cmd.Env = append(os.Environ(), signalHelperEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	expect := func(want string) {
		t.Helper()
		for lines.Scan() {
			if lines.Text() == want {
				return
			}
		}
		t.Fatalf("the helper ended before printing %q", want)
	}
	expect("ready")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	expect("stopping")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("wait: %v", err)
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("the helper ended with %v, want killed by the second SIGINT", err)
	}
}
