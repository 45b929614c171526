package conformance

import (
	"fmt"
	"testing"
)

func TestRelationsOnce(t *testing.T) {
	t.Parallel()
	rel := func(name, target, targetName string) map[string]any {
		return map[string]any{"relation": map[string]any{"cardinality": "many-to-one", "name": name, "targetType": target, "targetName": targetName}}
	}
	cases := []struct {
		name   string
		schema map[string]map[string]map[string]any
		want   int
	}{
		{"one side", map[string]map[string]map[string]any{
			"task": {"project": rel("Project", "project", "Tasks")}, "project": {}}, 0},
		{"both sides, by name", map[string]map[string]map[string]any{
			"task": {"project": rel("Project", "project", "Tasks")}, "project": {"tasks": rel("Tasks", "task", "Project")}}, 1},
		{"both sides, the target name is a field id", map[string]map[string]map[string]any{
			"task": {"project": rel("Project", "project", "tasks")}, "project": {"tasks": rel("Work", "task", "Owner")}}, 1},
		{"two relations between the same types", map[string]map[string]map[string]any{
			"task": {"project": rel("Project", "project", "Tasks"), "origin": rel("Origin", "project", "Spawned")}, "project": {}}, 0},
		{"a self relation", map[string]map[string]map[string]any{
			"task": {"parent": rel("Parent", "task", "Parent")}}, 0},
		{"a self relation declared twice", map[string]map[string]map[string]any{
			"task": {"parent": rel("Parent", "task", "Children"), "children": rel("Children", "task", "Parent")}}, 1},
	}
	for _, tc := range cases {
		if got := relationsOnce(tc.schema); len(got) != tc.want {
			t.Errorf("%s: %d problems %v, want %d", tc.name, len(got), got, tc.want)
		}
	}
}

// A hostile schema of many relations is checked in linear time: 100,000
// relations between two types, each declared once (quadratic pairing would
// compare 5·10⁹ pairs).
func TestRelationsOnceMany(t *testing.T) {
	t.Parallel()
	const n = 100000
	task := map[string]map[string]any{}
	for i := range n {
		task[fmt.Sprintf("r%d", i)] = map[string]any{"relation": map[string]any{
			"cardinality": "many-to-one", "name": fmt.Sprintf("R%d", i), "targetType": "project", "targetName": fmt.Sprintf("Back%d", i)}}
	}
	project := map[string]map[string]any{"back7": {"relation": map[string]any{
		"cardinality": "many-to-many", "name": "Back7", "targetType": "task", "targetName": "R7"}}}
	got := relationsOnce(map[string]map[string]map[string]any{"task": task, "project": project})
	if len(got) != 1 {
		t.Fatalf("%d problems, want the one relation declared twice: %v", len(got), got)
	}
}
