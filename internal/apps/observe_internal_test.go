package apps

import (
	"testing"

	"github.com/appkitgo/appkit/internal/syncer"
)

// A run resumed after a pause reports the counts of its earlier attempt
// too: what the Observer is told is only what the new attempt did, per
// type and per field's outcome; a type new to the run counts whole.
func TestSubtractTypes(t *testing.T) {
	t.Parallel()
	before := []*syncer.TypeReport{{Type: "task", Pages: 2, Items: 2000, Created: 1900, Updated: 100,
		Values: []*syncer.ValueReport{{Field: "due", Outcome: syncer.ValueDropped, Count: 3}}}}
	now := []*syncer.TypeReport{
		{Type: "task", Pages: 5, Items: 4500, Created: 4300, Updated: 200, Status: syncer.TypeCompleted,
			Values: []*syncer.ValueReport{{Field: "due", Outcome: syncer.ValueDropped, Count: 4}, {Field: "points", Outcome: syncer.ValueCoerced, Count: 1}}},
		{Type: "project", Pages: 1, Items: 10, Created: 10},
	}
	got := subtractTypes(now, before)
	task, project := got[0], got[1]
	if task.Pages != 3 || task.Items != 2500 || task.Created != 2400 || task.Updated != 100 || task.Status != syncer.TypeCompleted {
		t.Errorf("task: %+v", task)
	}
	if len(task.Values) != 2 || task.Values[0].Count != 1 || task.Values[1].Count != 1 {
		t.Errorf("task values: %+v %+v", task.Values[0], task.Values[1])
	}
	if project.Pages != 1 || project.Items != 10 || project.Created != 10 {
		t.Errorf("project: %+v", project)
	}
	if now[0].Pages != 5 || now[0].Values[0].Count != 4 {
		t.Error("the report itself was changed")
	}
}
