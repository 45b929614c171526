package main

import (
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// keysSession runs a session's key reader on a pipe, with no host: what
// it prints, and a channel closed when the reader ends.
func keysSession(t *testing.T) (d *devSession, in *io.PipeWriter, out *lineWaiter, ended chan struct{}) {
	t.Helper()
	out = &lineWaiter{}
	d = &devSession{stdout: out, stderr: io.Discard}
	pr, pw := io.Pipe()
	ended = make(chan struct{})
	go func() {
		defer close(ended)
		d.keys(t.Context(), pr)
	}()
	t.Cleanup(func() { pw.Close() })
	return d, pw, out, ended
}

// waitClosed fails the test when ch is not closed within devWait.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(devWait):
		t.Fatalf("%s did not happen", what)
	}
}

// The keys: h and ? list them, an unknown or long line is refused with a
// line, f and s (or Enter alone) ask for a run (none before the app's
// first sync); the end of the input, or an error, ends the reading only.
func TestDevKeys(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"eof", "error", "last line without newline"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			_, in, out, ended := keysSession(t)
			for _, tc := range []struct{ line, want string }{
				{"h\n", `appkit dev: ` + regexp.QuoteMeta(devKeysHint) + `\n`},
				{" ? \n", `appkit dev: ` + regexp.QuoteMeta(devKeysHint) + `\n`},
				{"x\n", `appkit dev: unknown key "x": h then Enter lists the keys\n`},
				{strings.Repeat("y", 3*maxKeyLine) + "\n", `appkit dev: unknown key "\(a long line\)": h then Enter lists the keys\n`},
				{"f\n", `appkit dev: no full refresh yet: the app is synchronized once it first starts\n`},
				{"S\n", `appkit dev: no sync yet: the app is synchronized once it first starts\n`},
				{"\n", `appkit dev: no sync yet: the app is synchronized once it first starts\n`},
			} {
				if _, err := io.WriteString(in, tc.line); err != nil {
					t.Fatal(err)
				}
				out.waitFor(t, regexp.MustCompile(`\A`+tc.want))
			}
			switch end {
			case "eof":
				in.Close()
			case "error":
				in.CloseWithError(errors.New("the terminal went away"))
			default:
				io.WriteString(in, "h")
				in.Close()
				out.waitFor(t, regexp.MustCompile(`\Aappkit dev: `+regexp.QuoteMeta(devKeysHint)+`\n`))
			}
			waitClosed(t, ended, "the end of the key reader at "+end)
		})
	}
}

// A key pressed while a run is in progress starts its run after it: runs
// never overlap.
func TestDevKeyWaitsForTheRun(t *testing.T) {
	t.Parallel()
	d, in, out, _ := keysSession(t)
	d.runMu.Lock() // a rebuild's run, in progress
	if _, err := io.WriteString(in, "f\n"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, regexp.MustCompile(`\Aappkit dev: a run is in progress: the full refresh starts after it\n`))
	if s := out.String(); strings.Contains(s, "no full refresh yet") {
		t.Fatalf("the key's run did not wait for the run in progress:\n%s", s)
	}
	d.runMu.Unlock()
	out.waitFor(t, regexp.MustCompile(`\Aappkit dev: no full refresh yet`))
}

// End to end on a file store, keys typed on a pipe: the hint at the start,
// f runs a full refresh (its result says so), s a sync that is not, and
// after the input ends dev goes on synchronizing at every change.
func TestDevKeysEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a new module")
	}
	dir := newDevApp(t)
	pr, pw := io.Pipe()
	db := filepath.Join(t.TempDir(), "dev.db")
	r := startDev(t, pr, dir, "--addr", "127.0.0.1:0", "--store", "sqlite:"+db, "--account", "token=demo")
	r.out.waitFor(t, regexp.MustCompile(`appkit dev: `+regexp.QuoteMeta(devKeysHint)+`\n`))
	r.out.waitFor(t, regexp.MustCompile(`synced in \S+\n`))
	r.out.waitFor(t, regexp.MustCompile(`note\s+completed\s+120\s+0\s+0\s+0\s+0\n`))

	io.WriteString(pw, "f\n")
	r.out.waitFor(t, regexp.MustCompile(`appkit dev: a full refresh, asked for\n`))
	r.out.waitFor(t, regexp.MustCompile(`synced in \S+ \(a full refresh\)\n`))
	r.out.waitFor(t, regexp.MustCompile(`note\s+completed\s+0\s+\d+\s+\d+\s+0\s+0\n`))

	io.WriteString(pw, "s\n")
	r.out.waitFor(t, regexp.MustCompile(`appkit dev: a sync, asked for\n`))
	r.out.waitFor(t, regexp.MustCompile(`synced in \d\S*\n`))

	pw.Close()
	editFile(t, filepath.Join(dir, "app", "app.go"), "Name: n.Title,", `Name: n.Title + " (edited)",`)
	r.out.waitFor(t, regexp.MustCompile(`my-notes/note "n-1": name: "Note 1" → "Note 1 \(edited\)"`))
	r.stop()
	if strings.Contains(r.out.String(), "a run is in progress") {
		t.Log("a key waited for a run in progress") // possible: the go.mod write of the first build may start one
	}
}
