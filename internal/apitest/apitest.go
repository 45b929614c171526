// Package apitest holds fixtures shared by the tests and benchmarks of the
// host's two data APIs, the command API (internal/commands) and GraphQL
// (internal/graphql), and of the store beneath them (TwoProcesses).
package apitest

import (
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// TwoProcesses opens two stores on one fresh PostgreSQL schema, as two host
// processes on one database hold it, each closed when the test ends. It
// skips the test when APPKIT_TEST_POSTGRES is not set.
func TwoProcesses(t *testing.T) (a, b *store.Store) {
	t.Helper()
	dsn := testkit.PostgresDSN(t)
	return teststore.Open(t, dsn), teststore.Open(t, dsn)
}

// Interleave resets b's timer, then runs base and other alternately b.N
// times, so that load from elsewhere hits both alike, and returns the time
// each took in all.
func Interleave(b *testing.B, base, other func()) (tBase, tOther time.Duration) {
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		base()
		t1 := time.Now()
		other()
		tOther += time.Since(t1)
		tBase += t1.Sub(t0)
	}
	return tBase, tOther
}
