package devloop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"
)

// Process is a running app.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // set before done is closed
}

// FreePort returns a TCP port free on the loopback interface now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start runs the program bin in dir with HOST set to 127.0.0.1 and PORT
// to port (and the rest of env, nil meaning the process's environment): an
// app that reads them (appkit.ListenAddr does) listens on this machine
// only, and appkit's server then also refuses requests that name another
// host (DNS rebinding). Its output goes to out.
func Start(bin, dir string, port int, env []string, out io.Writer) (*Process, error) {
	cmd := exec.Command(bin)
	cmd.Dir = dir
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env[:len(env):len(env)], "HOST=127.0.0.1", "PORT="+strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the app: %w", err)
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is the process's exit error, once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// Stop asks the process to end (SIGTERM; an interrupt where there are no
// signals), waits up to grace, then kills it; it returns once the process
// has exited.
func (p *Process) Stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	sig := os.Signal(os.Interrupt)
	if runtime.GOOS != "windows" {
		sig = sigterm
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.cmd.Process.Kill()
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.cmd.Process.Kill()
		<-p.done
	}
}

// ErrExited is returned by [WaitReady] when the app exited before it
// answered.
var ErrExited = errors.New("the app exited")

// WaitReady waits until url answers an HTTP request (whatever the status),
// the process exits ([ErrExited]) or ctx ends.
func WaitReady(ctx context.Context, p *Process, url string) error {
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%w before it answered at %s: %v", ErrExited, url, p.err)
		case <-ctx.Done():
			return fmt.Errorf("wait for the app at %s: %w", url, context.Cause(ctx))
		case <-tick.C:
		}
	}
}
