package appkit_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/appkitgo/appkit/appkit"
)

type testInstruments struct{ calls prometheus.Counter }

type otherInstruments struct{ calls prometheus.Counter }

// TestInstrumentsOf: one set of instruments per registry and kind, built
// once; another registry, or another kind in the same registry, gets its
// own.
func TestInstrumentsOf(t *testing.T) {
	t.Parallel()
	builds := 0
	build := func(r *prometheus.Registry) *testInstruments {
		builds++
		return &testInstruments{calls: appkit.RegisterOnce(r, prometheus.NewCounter(prometheus.CounterOpts{Name: "test_calls_total", Help: "calls"}))}
	}
	r1, r2 := prometheus.NewRegistry(), prometheus.NewRegistry()
	a := appkit.InstrumentsOf(r1, build)
	if b := appkit.InstrumentsOf(r1, build); b != a || builds != 1 {
		t.Fatalf("second call on the same registry: same set %v, builds %d; want the same set, built once", b == a, builds)
	}
	if c := appkit.InstrumentsOf(r2, build); c == a || builds != 2 {
		t.Fatalf("another registry: same set %v, builds %d; want a set of its own", c == a, builds)
	}
	other := appkit.InstrumentsOf(r1, func(r *prometheus.Registry) *otherInstruments {
		return &otherInstruments{calls: appkit.RegisterOnce(r, prometheus.NewCounter(prometheus.CounterOpts{Name: "other_calls_total", Help: "calls"}))}
	})
	if other == nil || other.calls == a.calls {
		t.Fatal("another kind in the same registry got the first kind's instruments")
	}
}
