package apps

import (
	"fmt"
	"testing"

	"github.com/appkitgo/appkit/internal/syncer"
)

// The progress board keeps the latest event per type of a tracked run,
// sorted by type, at most maxProgressTypes types, and forgets the run when
// it ends.
func TestProgressBoard(t *testing.T) {
	t.Parallel()
	s := &Service{core: &core{}}
	if s.Progress("r") != nil {
		t.Fatal("an untracked run has progress")
	}
	hook, done := s.core.progress.track("r")
	hook(syncer.Event{Type: "b", Pages: 1, Items: 10})
	hook(syncer.Event{Type: "a", Pages: 1, Items: 5})
	hook(syncer.Event{Type: "b", Pages: 2, Items: 20})
	got := s.Progress("r")
	if len(got) != 2 || got[0].Type != "a" || got[1].Type != "b" || got[1].Items != 20 {
		t.Fatalf("progress %+v", got)
	}
	for i := 0; i < maxProgressTypes+10; i++ {
		hook(syncer.Event{Type: fmt.Sprint("t", i)})
	}
	if n := len(s.Progress("r")); n != maxProgressTypes {
		t.Errorf("%d types tracked", n)
	}
	hook(syncer.Event{Type: "a", Items: 6})
	if s.Progress("r")[0].Items != 6 {
		t.Error("a known type is not updated once the board is full")
	}
	done()
	if s.Progress("r") != nil {
		t.Error("an ended run still has progress")
	}
	hook(syncer.Event{Type: "late"})
	if s.Progress("r") != nil {
		t.Error("an event after the end brought the run back")
	}
}
