package devloop

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultQuiet is how long the sources must stay unchanged before a batch
// of changes is reported: an editor's save (write a temporary file, rename
// it, touch a lock) and a "git checkout" come as one batch.
const DefaultQuiet = 300 * time.Millisecond

// Relevant says whether a change to the file name (a base name) can change
// the app's build: Go files other than tests, and go.mod. Editors'
// temporary, backup and lock files never are (*~, .#*, #*#, *.swp, *.swx,
// 4913, *.tmp, any hidden file), nor is anything in a hidden directory,
// testdata, vendor or a directory starting with _ (see [Watch]).
func Relevant(name string) bool {
	switch {
	case name == "go.mod":
		return true
	case strings.HasPrefix(name, "."), strings.HasPrefix(name, "#"), strings.HasPrefix(name, "_"),
		strings.HasSuffix(name, "~"), name == "4913":
		return false
	}
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
}

// skipDir says whether the go command ignores the directory (and so a
// change in it cannot change the build).
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor"
}

// Watcher reports changes to the sources of a module.
type Watcher struct {
	fw      *fsnotify.Watcher
	changes chan []string
	errs    chan error
	done    chan struct{}
}

// Watch watches the directory root and its subdirectories (those the go
// command reads; new ones are added as they appear) and reports the
// relevant files changed (see [Relevant]) on [Watcher.Changes], in batches
// sent once no change came for quiet (0: [DefaultQuiet]). It stops when
// ctx ends or Close is called.
func Watch(ctx context.Context, root string, quiet time.Duration) (*Watcher, error) {
	if quiet <= 0 {
		quiet = DefaultQuiet
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	w := &Watcher{fw: fw, changes: make(chan []string), errs: make(chan error, 1), done: make(chan struct{})}
	if err := w.addTree(root); err != nil {
		fw.Close()
		return nil, err
	}
	names := make(chan string)
	go w.forward(ctx, names)
	go func() {
		defer close(w.done)
		debounce(ctx, names, quiet, w.changes)
	}()
	return w, nil
}

// Changes delivers the batches of changed files (paths, sorted, each once).
// It is closed when the watcher stops.
func (w *Watcher) Changes() <-chan []string { return w.changes }

// Errors delivers the watcher's errors (it keeps watching).
func (w *Watcher) Errors() <-chan error { return w.errs }

// Close stops watching.
func (w *Watcher) Close() error { return w.fw.Close() }

// addTree watches dir and its subdirectories that the go command reads.
func (w *Watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return fmt.Errorf("watch %s: %w", dir, err)
			}
			return nil // gone meanwhile, or unreadable: not a source
		}
		if !d.IsDir() {
			return nil
		}
		if path != dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		if err := w.fw.Add(path); err != nil {
			return fmt.Errorf("watch %s: %w", path, err)
		}
		return nil
	})
}

// forward turns fsnotify's events into the names of relevant files (and
// watches new directories), until the watcher is closed or ctx ends.
func (w *Watcher) forward(ctx context.Context, names chan<- string) {
	defer close(names)
	defer w.fw.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			select {
			case w.errs <- err:
			default:
			}
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			base := filepath.Base(ev.Name)
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					if !skipDir(base) {
						_ = w.addTree(ev.Name)
					}
					continue
				}
			}
			if !Relevant(base) {
				continue
			}
			select {
			case names <- ev.Name:
			case <-ctx.Done():
				return
			}
		}
	}
}

// debounce gathers the names received on in and sends them on out, sorted
// and each once, when quiet has passed without a new one. It returns (and
// closes out) when in is closed or ctx ends; a pending batch is dropped.
func debounce(ctx context.Context, in <-chan string, quiet time.Duration, out chan<- []string) {
	defer close(out)
	pending := map[string]bool{}
	timer := time.NewTimer(quiet)
	timer.Stop()
	defer timer.Stop()
	var send chan<- []string // non-nil when a batch is ready
	var batch []string
	for {
		select {
		case <-ctx.Done():
			return
		case name, ok := <-in:
			if !ok {
				return
			}
			pending[name] = true
			send, batch = nil, nil
			timer.Reset(quiet)
		case <-timer.C:
			batch = make([]string, 0, len(pending))
			for n := range pending {
				batch = append(batch, n)
			}
			sort.Strings(batch)
			send = out
		case send <- batch:
			pending = map[string]bool{}
			send, batch = nil, nil
		}
	}
}
