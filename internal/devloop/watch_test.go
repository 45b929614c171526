package devloop

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/synctest"
	"time"
)

func TestRelevant(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"main.go", true},
		{"go.mod", true},
		{"app.go", true},
		{"app_test.go", false},
		{"go.sum", false},
		{"README.md", false},
		{"app.go~", false},
		{".#app.go", false},
		{"#app.go#", false},
		{".app.go.swp", false},
		{".app.go.swx", false},
		{"4913", false},
		{"app.go.tmp", false},
		{".hidden.go", false},
		{"_ignored.go", false},
	} {
		if got := Relevant(tc.name); got != tc.want {
			t.Errorf("Relevant(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A burst of changes comes as one batch once quiet has passed without a
// change; each name once, sorted; a change during the quiet time starts it
// again.
func TestDebounce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		in, out := make(chan string), make(chan []string)
		go debounce(t.Context(), in, time.Second, out)
		in <- "b.go"
		time.Sleep(900 * time.Millisecond)
		in <- "a.go"
		time.Sleep(900 * time.Millisecond)
		in <- "b.go"
		time.Sleep(999 * time.Millisecond)
		synctest.Wait()
		select {
		case got := <-out:
			t.Fatalf("a batch before quiet passed: %v", got)
		default:
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		select {
		case got := <-out:
			if want := []string{"a.go", "b.go"}; !reflect.DeepEqual(got, want) {
				t.Errorf("batch %v, want %v", got, want)
			}
		default:
			t.Fatal("no batch once quiet passed")
		}
		// The next batch holds only what changed since.
		in <- "c.go"
		time.Sleep(2 * time.Second)
		if got := <-out; !reflect.DeepEqual(got, []string{"c.go"}) {
			t.Errorf("second batch %v", got)
		}
		close(in)
		if _, ok := <-out; ok {
			t.Error("out not closed after in")
		}
	})
}

// A batch not taken yet grows with the changes that follow.
func TestDebounceBatchNotTaken(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		in, out := make(chan string), make(chan []string)
		go debounce(t.Context(), in, time.Second, out)
		in <- "a.go"
		time.Sleep(2 * time.Second)
		in <- "b.go"
		time.Sleep(2 * time.Second)
		if got := <-out; !reflect.DeepEqual(got, []string{"a.go", "b.go"}) {
			t.Errorf("batch %v", got)
		}
	})
}

// The watcher reports Go files and go.mod of the module, in new
// directories too, and nothing for tests, editors' files, testdata or
// hidden directories.
func TestWatch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"app", "testdata", ".git"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := Watch(ctx, root, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	write := func(rel string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	next := func() []string {
		t.Helper()
		select {
		case b := <-w.Changes():
			return b
		case <-time.After(time.Minute):
			t.Fatal("no batch within a minute")
			return nil
		}
	}
	for _, f := range []string{"app/app_test.go", "app/.#app.go", "app/app.go~", "testdata/x.go", ".git/x.go", "README.md"} {
		write(f)
	}
	write("app/app.go")
	if got := next(); !reflect.DeepEqual(got, []string{filepath.Join(root, "app", "app.go")}) {
		t.Errorf("batch %v, want only app/app.go", got)
	}
	// A directory made after the start is watched as well.
	if err := os.Mkdir(filepath.Join(root, "store"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("go.mod")
	got := next()
	if !reflect.DeepEqual(got, []string{filepath.Join(root, "go.mod")}) {
		t.Errorf("batch %v, want go.mod", got)
	}
	write("store/store.go")
	if got := next(); !reflect.DeepEqual(got, []string{filepath.Join(root, "store", "store.go")}) {
		t.Errorf("batch %v, want store/store.go", got)
	}
	cancel()
	for range w.Changes() {
	}
}
