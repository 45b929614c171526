package store

import (
	"encoding/json"
	"testing"
)

func TestPresentation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		meta     map[string]any
		label    string
		desc     string
		title    bool
		hidden   bool
		order    float64
		hasOrder bool
	}{
		{name: "none", meta: nil},
		{name: "as the engine writes", meta: map[string]any{MetaLabel: " Due date ", MetaDescription: "When", MetaTitle: true, MetaHidden: true, MetaOrder: int64(3)},
			label: "Due date", desc: "When", title: true, hidden: true, order: 3, hasOrder: true},
		{name: "as the catalog decodes", meta: map[string]any{MetaOrder: 2.5}, order: 2.5, hasOrder: true},
		{name: "json number", meta: map[string]any{MetaOrder: json.Number("-1")}, order: -1, hasOrder: true},
		{name: "int", meta: map[string]any{MetaOrder: 7}, order: 7, hasOrder: true},
		{name: "not a number", meta: map[string]any{MetaOrder: "3", MetaTitle: "yes", MetaHidden: 1, MetaLabel: 4}},
		{name: "bad json number", meta: map[string]any{MetaOrder: json.Number("x")}},
	} {
		f := &Field{Name: "task/due", Meta: c.meta}
		n, ok := f.Order()
		if f.Label() != c.label || f.Description() != c.desc || f.IsTitle() != c.title || f.Hidden() != c.hidden || n != c.order || ok != c.hasOrder {
			t.Errorf("%s: label %q desc %q title %v hidden %v order %v %v", c.name, f.Label(), f.Description(), f.IsTitle(), f.Hidden(), n, ok)
		}
	}
	ty := &Type{Meta: map[string]any{MetaLabel: "Tasks"}, Fields: []*Field{{Name: "a"}, {Name: "b", Meta: map[string]any{MetaTitle: true}}, {Name: "c", Meta: map[string]any{MetaTitle: true}}}}
	if f := ty.TitleField(); f == nil || f.Name != "b" || ty.Label() != "Tasks" {
		t.Errorf("title field %v, label %q", f, ty.Label())
	}
	if f := (&Type{Fields: []*Field{{Name: "a"}}}).TitleField(); f != nil {
		t.Errorf("a type without a title has %v", f)
	}
}
