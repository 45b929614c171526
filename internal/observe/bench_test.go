package observe

import (
	"net/http"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/syncer"
)

// noop answers every request at once.
type noop struct{ resp *http.Response }

func (n noop) RoundTrip(*http.Request) (*http.Response, error) { return n.resp, nil }

// BenchmarkObservedCall is what the host's metrics add to one call to an
// app (compare BenchmarkBareCall): the endpoint, a counter and a histogram.
func BenchmarkObservedCall(b *testing.B) {
	rt := New(Config{}).Transport(noop{&http.Response{StatusCode: 200}})
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8080/api/v1/synchronizer/data", nil)
	b.ReportAllocs()
	for b.Loop() {
		rt.RoundTrip(req)
	}
}

func BenchmarkBareCall(b *testing.B) {
	var rt http.RoundTripper = noop{&http.Response{StatusCode: 200}}
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8080/api/v1/synchronizer/data", nil)
	b.ReportAllocs()
	for b.Loop() {
		rt.RoundTrip(req)
	}
}

// BenchmarkPageWritten is what the metrics add to each page written.
func BenchmarkPageWritten(b *testing.B) {
	h := New(Config{})
	ev := syncer.Event{Type: "task", Pages: 1, Items: 1000}
	b.ReportAllocs()
	for b.Loop() {
		h.PageWritten("tracker", ev, 20*time.Millisecond)
	}
}
