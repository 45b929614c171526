// Package testhook lets appkit's test harness stop an app's own main
// function: appkit.ListenAndServe also stops when the context set here is
// cancelled. Nothing outside tests sets it.
package testhook

import (
	"context"
	"sync"
)

var (
	mu   sync.Mutex
	stop context.Context
)

// SetStop makes every later ListenAndServe stop when ctx is done.
func SetStop(ctx context.Context) {
	mu.Lock()
	defer mu.Unlock()
	stop = ctx
}

// Clear removes the hook.
func Clear() {
	mu.Lock()
	defer mu.Unlock()
	stop = nil
}

// Stop returns the context set by SetStop, or nil.
func Stop() context.Context {
	mu.Lock()
	defer mu.Unlock()
	return stop
}
