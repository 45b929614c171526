package testkit

import (
	"os"
	"os/exec"
	"sync"
	"testing"
)

// Child is the test binary run again, as a process of its own, to run one
// test: the other half of a test of several processes (a host killed
// mid-run, say).
type Child struct {
	t    testing.TB
	cmd  *exec.Cmd
	out  Buffer
	once sync.Once
}

// StartChild starts the test binary running only the test named test,
// with env added to this process's environment. The child is killed when
// the test ends at the latest; if the test failed, its output (stdout and
// stderr) is logged then, headed by name.
func StartChild(t testing.TB, name, test string, env ...string) *Child {
	t.Helper()
	c := &Child{t: t, cmd: exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")}
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	c.out.ShowOnFailure(t, name)
	t.Cleanup(c.Kill) // before its output is shown
	return c
}

// Kill kills the child with SIGKILL (no chance to clean up: what it
// leaves is what a crash leaves) and waits for its end. Only the first
// call does anything.
func (c *Child) Kill() {
	c.once.Do(func() {
		if err := c.cmd.Process.Kill(); err != nil {
			c.t.Errorf("kill the child: %v", err)
		}
		c.cmd.Wait()
	})
}
