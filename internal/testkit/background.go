package testkit

import (
	"context"
	"sync"
	"testing"
)

// Background runs fn (a scheduler, say) in a goroutine until stop is
// called or the test ends, whichever comes first: stop cancels fn's
// context and waits for fn to return. fn's error is not looked at: a
// test checks what fn did.
func Background(t testing.TB, fn func(ctx context.Context) error) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = fn(ctx)
	}()
	stop = sync.OnceFunc(func() {
		cancel()
		<-done
	})
	t.Cleanup(stop)
	return stop
}
