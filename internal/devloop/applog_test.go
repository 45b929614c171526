package devloop

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/testkit"
)

// The app log is appended to across opens and rotated at its cap: PATH.1
// holds the file before, and the two never pass twice the cap (plus one
// write).
func TestAppLogRotates(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db.app.log")
	l, err := OpenAppLog(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 29) + "\n" // 30 bytes
	for range 3 {
		l.Write([]byte(line))
	}
	l.Close()
	if _, err := l.Write([]byte(line)); err == nil {
		t.Error("a closed app log took a write")
	}
	l, err = OpenAppLog(path, 100) // another session: appended
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if b, _ := os.ReadFile(path); len(b) != 90 {
		t.Fatalf("after reopening, the log holds %d bytes, want 90", len(b))
	}
	for i := range 20 {
		if _, err := l.Write([]byte(line)); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		cur, _ := os.Stat(path)
		old, errOld := os.Stat(path + ".1")
		total := cur.Size()
		if errOld == nil {
			total += old.Size()
		}
		if cur.Size() > 100 || total > 200 {
			t.Fatalf("after write %d: %s holds %d bytes, with %s.1 %d; the cap is 100", i, path, cur.Size(), path, total)
		}
	}
	if _, err := os.Stat(path + ".1"); err != nil {
		t.Errorf("no rotated file: %v", err)
	}
	if l.Path() != path {
		t.Errorf("Path %q", l.Path())
	}
}

// The tail keeps the last lines of an output, bounded: a first line cut
// by the bound is left out.
func TestTailLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		writes []string
		n      int
		want   []string
	}{
		{"none", nil, 5, nil},
		{"fewer", []string{"a\nb\n"}, 5, []string{"a", "b"}},
		{"last n", []string{"a\nb\n", "c\nd\r\n"}, 2, []string{"c", "d"}},
		{"no final newline", []string{"a\nb"}, 5, []string{"a", "b"}},
		{"cut first line left out", []string{strings.Repeat("y", tailBytes-3) + "\nz\n", "w\n"}, 5, []string{"z", "w"}},
		{"one huge write", []string{strings.Repeat("q", 3*tailBytes) + "\nend\n"}, 5, []string{"end"}},
	} {
		var tl tail
		for _, w := range tc.writes {
			if n, err := tl.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("%s: Write %d, %v", tc.name, n, err)
			}
		}
		if len(tl.buf) > tailBytes {
			t.Errorf("%s: the tail keeps %d bytes, more than %d", tc.name, len(tl.buf), tailBytes)
		}
		if got := tl.lines(tc.n); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: lines %q, want %q", tc.name, got, tc.want)
		}
	}
}

// An app whose output goes to a file and that exits before it answers:
// its last lines are printed with the loop's messages, the file named;
// the file holds them too, after a mark of the start.
func TestLoopShowsTheTailOfACrash(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/crash\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(`package main

import (
	"fmt"
	"os"
)

func main() {
	for i := 1; i <= 30; i++ {
		fmt.Printf("line %d\n", i)
	}
	os.Stderr.WriteString("panic: the configuration is wrong\n")
	os.Exit(2)
}
`), 0o644)
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "app.log")
	applog, err := OpenAppLog(logPath, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer applog.Close()
	out := &testkit.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		ended <- Loop(ctx, Config{Dir: dir, BinDir: t.TempDir(), Port: port, Out: out, AppOutput: applog,
			Tail: 5, AppLog: logPath, Quiet: 50 * time.Millisecond, Grace: time.Minute})
	}()
	want := "nothing serves at "
	timeout := time.NewTimer(5 * time.Minute)
	defer timeout.Stop()
	for {
		got, changed := out.Changes()
		if strings.Contains(got, want) {
			break
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("no %q in:\n%s", want, got)
		}
	}
	cancel()
	<-ended
	got := out.String()
	tailMsg := "the app's last output (all of it in " + logPath + "):\n  | line 27\n  | line 28\n  | line 29\n  | line 30\n  | panic: the configuration is wrong\n"
	if !strings.Contains(got, tailMsg) || strings.Contains(got, "line 26") {
		t.Errorf("the loop's output does not end the crash with its last 5 lines:\n%s", got)
	}
	b, _ := os.ReadFile(logPath)
	if !strings.HasPrefix(string(b), "==== appkit dev: app-1 started at ") || !strings.Contains(string(b), "line 1\n") {
		t.Errorf("the app log holds:\n%s", b)
	}
}

// The tail, a ring once full, shows what the last tailBytes of the whole
// output show, whatever the sizes of the writes: many small ones that wrap
// around it several times, large ones, one past its size.
func TestTailRing(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var tl tail
		var all bytes.Buffer
		for i := 0; all.Len() < 5*tailBytes; i++ {
			var w []byte
			switch rng.IntN(20) {
			case 0:
				w = bytes.Repeat([]byte("z"), rng.IntN(2*tailBytes))
			default:
				w = fmt.Appendf(nil, "round %d line %d %s\n", round, i, strings.Repeat("x", rng.IntN(300)))
			}
			if round%2 == 1 && len(w) > 1 {
				w = w[:1+rng.IntN(len(w)-1)] // lines written in pieces
			}
			all.Write(w)
			tl.Write(w)
			if len(tl.buf) > tailBytes {
				t.Fatalf("round %d: the tail keeps %d bytes, more than %d", round, len(tl.buf), tailBytes)
			}
			if rng.IntN(10) == 0 {
				var ref tail // the last tailBytes, written at once
				b := all.Bytes()
				if len(b) > tailBytes {
					b, ref.cut = b[len(b)-tailBytes:], true
				}
				ref.buf = b
				if got, want := tl.lines(20), ref.lines(20); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("round %d after %d bytes: lines\n%q\nwant\n%q", round, all.Len(), got, want)
				}
			}
		}
	}
}
