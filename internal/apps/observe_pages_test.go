package apps

import (
	"reflect"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/syncer"
)

// pageLog is an Observer that keeps the pages it is told about.
type pageLog struct{ took []time.Duration }

func (p *pageLog) RunEnded(RunEnd) {}

func (p *pageLog) PageWritten(app string, ev syncer.Event, took time.Duration) {
	p.took = append(p.took, took)
}

// Each page is observed with the time since its type's previous page (the
// first since the type's start), never negative, and the progress it
// wraps still sees every event; without an Observer the progress is left
// as it is.
func TestObservePages(t *testing.T) {
	t.Parallel()
	events := []syncer.Event{
		{Type: "task", Pages: 1, Elapsed: 30 * time.Millisecond},
		{Type: "project", Pages: 1, Elapsed: 10 * time.Millisecond},
		{Type: "task", Pages: 2, Elapsed: 50 * time.Millisecond},
		{Type: "task", Pages: 3, Elapsed: 40 * time.Millisecond}, // a clock step back
	}
	obs := &pageLog{}
	seen := 0
	progress := ObservePages(obs, "tracker", func(syncer.Event) { seen++ })
	for _, ev := range events {
		progress(ev)
	}
	want := []time.Duration{30 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 0}
	if !reflect.DeepEqual(obs.took, want) || seen != len(events) {
		t.Errorf("took %v, want %v; next saw %d events", obs.took, want, seen)
	}
	if ObservePages(nil, "tracker", nil) != nil {
		t.Error("no Observer: the progress is not left as it is")
	}
	ObservePages(&pageLog{}, "tracker", nil)(events[0]) // no next: no panic
}
