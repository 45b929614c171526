package devloop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultGrace is how long a stopped app may take to end before it is
// killed.
const DefaultGrace = 10 * time.Second

// Config configures a [Loop].
type Config struct {
	// Dir is the directory of the app's main package; Root the module's
	// directory, watched (empty: Dir).
	Dir, Root string
	// BinDir receives the builds (a temporary directory of the caller).
	BinDir string
	// Port is the loopback port the app listens on ($PORT, with HOST set
	// to 127.0.0.1); the same for every restart, so that the app's
	// address stays.
	Port int
	// Env is the app's environment (nil: the process's); HOST and PORT
	// are added.
	Env []string
	// AppOutput receives the app's stdout and stderr.
	AppOutput io.Writer
	// Tail is how many of the app's last output lines are printed (on
	// Out, after the message) when the app exits before it answers or
	// while serving; 0: none, for an AppOutput the developer already
	// sees. Set it when AppOutput is a file: a crash must not be hidden
	// there.
	Tail int
	// AppLog names the file AppOutput writes to ("": AppOutput is no
	// file). When set, the message of a crash names it, and a line is
	// written to AppOutput before each start of the app, naming the build
	// and the time: the file says where each run of the app begins.
	AppLog string
	// Out receives the loop's messages, one line each, starting with
	// "appkit dev: ".
	Out io.Writer
	// Quiet is the watcher's debounce (0: DefaultQuiet); Grace the time a
	// stopped app gets to end (0: DefaultGrace).
	Quiet, Grace time.Duration
	// Ready is called once the app (first started, or restarted after a
	// change) answers at appURL: the caller checks and synchronizes it.
	// An error is printed and the loop goes on.
	Ready func(ctx context.Context, appURL string) error
}

// Loop builds and runs the app, then watches its module until ctx ends:
// each batch of changes rebuilds it; a build the compiler refuses is
// printed and the last good app keeps serving; a good one replaces the
// app (stopped gracefully, then started) and Ready is called again. An
// app that builds but exits before it answers is reported and the last
// good one is started again; an app that exits later, on its own, is
// reported and the good build before it is started again. Where no good
// build is left, the output says that nothing serves until the next
// change. When ctx ends, the app is stopped and Loop returns nil; it
// returns an error only when it could not watch the sources.
func Loop(ctx context.Context, cfg Config) error {
	if cfg.Root == "" {
		cfg.Root = cfg.Dir
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	w, err := Watch(ctx, cfg.Root, cfg.Quiet)
	if err != nil {
		return err
	}
	defer w.Close()
	l := &loop{cfg: cfg, url: "http://127.0.0.1:" + strconv.Itoa(cfg.Port)}
	defer l.stop()
	l.rebuild(ctx, nil)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-l.exited():
			l.crashed(ctx)
		case err := <-w.Errors():
			l.say("watch: %v", err)
		case files, ok := <-w.Changes():
			if !ok {
				return nil
			}
			l.rebuild(ctx, files)
		}
	}
}

// loop is the state of a Loop: the app running and its binary.
type loop struct {
	cfg    Config
	url    string
	proc   *Process
	tail   *tail  // the running app's last output
	good   string // the binary of the app running (or last running)
	prev   string // the good binary before it, started again if good exits
	builds int
}

// exited is closed when the running app exits (nil, never ready, when
// none runs): an exit the loop did not ask for.
func (l *loop) exited() <-chan struct{} {
	if l.proc == nil {
		return nil
	}
	return l.proc.Done()
}

// crashed handles the running app's exit on its own: the good build
// before it is started again, or the output says that nothing serves.
func (l *loop) crashed(ctx context.Context) {
	err := l.proc.Err()
	l.proc = nil
	if err == nil {
		l.say("the app exited (status 0) while serving")
	} else {
		l.say("the app exited while serving: %v", err)
	}
	l.showTail(l.tail)
	prev := l.prev
	l.prev = ""
	if l.fallBack(ctx, "previous", prev) {
		l.good = prev
	}
}

// fallBack starts bin, an earlier good build ("" for none; which names it
// in the output: "previous", "last"), again once the app serving has
// stopped, and reports whether it serves. When it does not, the output
// says why and that nothing serves (nothing when ctx ends while it
// starts).
func (l *loop) fallBack(ctx context.Context, which, bin string) bool {
	if bin != "" && ctx.Err() == nil {
		failed, err := l.start(ctx, bin)
		if err == nil {
			l.say("the %s good app serves again at %s", which, l.url)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		l.say("the %s good app did not start again: %v", which, err)
		l.showTail(failed)
	}
	l.say("nothing serves at %s until a change builds an app that starts", l.url)
	return false
}

func (l *loop) say(format string, args ...any) {
	fmt.Fprintf(l.cfg.Out, "appkit dev: "+format+"\n", args...)
}

// rebuild builds the app after a change (files; nil for the first build)
// and replaces the running app with it.
func (l *loop) rebuild(ctx context.Context, files []string) {
	if files != nil {
		rel := make([]string, len(files))
		for i, f := range files {
			if r, err := filepath.Rel(l.cfg.Root, f); err == nil {
				f = r
			}
			rel[i] = f
		}
		l.say("changed: %s; rebuilding", strings.Join(rel, ", "))
	} else {
		l.say("building %s (the first build of a new app takes a while: it compiles appkit and its dependencies)", l.cfg.Dir)
	}
	l.builds++
	bin := filepath.Join(l.cfg.BinDir, fmt.Sprintf("app-%d", l.builds))
	start := time.Now()
	err := Build(ctx, l.cfg.Dir, bin)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		var be *BuildError
		if errors.As(err, &be) {
			l.say("build failed:\n%s", strings.TrimRight(be.Output, "\n"))
		} else {
			l.say("build failed: %v", err)
		}
		if l.proc != nil {
			l.say("the last good app keeps serving at %s", l.url)
		}
		return
	}
	l.say("built in %s", time.Since(start).Round(100*time.Millisecond))
	if l.proc != nil {
		l.proc.Stop(l.cfg.Grace)
		l.proc = nil
	}
	if failed, err := l.start(ctx, bin); err != nil {
		if ctx.Err() != nil {
			return
		}
		l.say("the new app did not start: %v", err)
		l.showTail(failed)
		l.fallBack(ctx, "last", l.good)
		return
	}
	if l.good != "" {
		l.prev = l.good
	}
	l.good = bin
	if l.cfg.Ready != nil {
		if err := l.cfg.Ready(ctx, l.url); err != nil && ctx.Err() == nil {
			l.say("%v", err)
		}
	}
}

// start runs bin and waits until it answers. When it does not, the error
// comes with the last output of the app that ran and did not answer (nil
// when it could not be run).
func (l *loop) start(ctx context.Context, bin string) (*tail, error) {
	out := l.cfg.AppOutput
	if out == nil {
		out = io.Discard
	}
	if l.cfg.AppLog != "" {
		fmt.Fprintf(out, "==== appkit dev: %s started at %s ====\n", filepath.Base(bin), time.Now().Format(time.RFC3339))
	}
	t := &tail{}
	if l.cfg.Tail > 0 {
		out = io.MultiWriter(out, t)
	}
	p, err := Start(bin, l.cfg.Dir, l.cfg.Port, l.cfg.Env, out)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := WaitReady(wctx, p, l.url); err != nil {
		p.Stop(l.cfg.Grace)
		return t, err
	}
	l.proc, l.tail = p, t
	l.say("app running at %s", l.url)
	return nil, nil
}

// showTail prints the last lines of an app's output, when asked for
// (Config.Tail) and there are some.
func (l *loop) showTail(t *tail) {
	if t == nil || l.cfg.Tail <= 0 {
		return
	}
	lines := t.lines(l.cfg.Tail)
	if len(lines) == 0 {
		l.say("the app wrote nothing before it exited")
		return
	}
	where := ""
	if l.cfg.AppLog != "" {
		where = " (all of it in " + l.cfg.AppLog + ")"
	}
	var b strings.Builder
	for _, s := range lines {
		b.WriteString("\n  | ")
		b.WriteString(s)
	}
	l.say("the app's last output%s:%s", where, b.String())
}

// stop stops the app.
func (l *loop) stop() {
	if l.proc != nil {
		l.proc.Stop(l.cfg.Grace)
		l.proc = nil
		l.say("app stopped")
	}
}
