package store_test

import (
	"context"
	"maps"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

// TestCommandsOnMissingEntities: delete and the collection commands refuse an
// entity that is not a reference (invalid-value naming how the command calls
// it) or that does not exist (entity-not-found naming the type and id, and the
// field only when the missing entity is an item of the collection).
func TestCommandsOnMissingEntities(t *testing.T) {
	t.Parallel()
	const missing = "aaaaaaaa-0000-0000-0000-0000000000ff"
	eachStore(t, func(t *testing.T, st *store.Store) {
		createTask(t, st)
		writeSchema(t, st, func(tx *store.Tx) error {
			return tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/subtasks", Type: "A/Task", Meta: map[string]any{"platform/collection?": true}})
		})
		task := create(t, st, "A/Task", map[string]any{"A/name": "one"})["platform/id"]
		cases := []struct {
			what     string
			fn       func(tx *store.Tx) error
			name     string
			wantData map[string]any
		}{
			{"delete, not a uuid", func(tx *store.Tx) error {
				return tx.Delete("A/Task", map[string]any{"platform/id": "nope"})
			}, store.NameInvalidValue, map[string]any{"field": "platform/id"}},
			{"delete, missing", func(tx *store.Tx) error {
				return tx.Delete("A/Task", map[string]any{"platform/id": missing})
			}, store.NameEntityNotFound, map[string]any{"type": "A/Task", "platform/id": missing}},
			{"add items, entity not a uuid", func(tx *store.Tx) error {
				return tx.CollectionItems("A/Task", "A/subtasks", "nope", []any{task}, true)
			}, store.NameInvalidValue, map[string]any{"field": "entity"}},
			{"remove items, entity missing", func(tx *store.Tx) error {
				return tx.CollectionItems("A/Task", "A/subtasks", map[string]any{"platform/id": missing}, []any{task}, false)
			}, store.NameEntityNotFound, map[string]any{"type": "A/Task", "platform/id": missing}},
			{"add items, item missing", func(tx *store.Tx) error {
				return tx.CollectionItems("A/Task", "A/subtasks", task, []any{missing}, true)
			}, store.NameEntityNotFound, map[string]any{"type": "A/Task", "platform/id": missing, "field": "A/subtasks"}},
		}
		for _, c := range cases {
			err := st.Write(context.Background(), c.fn)
			var name string
			var data map[string]any
			if e, ok := store.AsError(err); ok {
				name, data = e.Name, e.Data
			}
			if name != c.name || !maps.Equal(data, c.wantData) {
				t.Errorf("%s: err = %v with data %v, want %s with data %v", c.what, err, data, c.name, c.wantData)
			}
		}
	})
}

// TestEntityWritesRefuseBuiltinTypes: the entities of a built-in type (the
// documents) are the store's own: create, update and delete refuse them.
func TestEntityWritesRefuseBuiltinTypes(t *testing.T) {
	t.Parallel()
	const id = "aaaaaaaa-0000-0000-0000-0000000000ff"
	doc := store.DocumentType
	eachStore(t, func(t *testing.T, st *store.Store) {
		for _, c := range []struct {
			what string
			fn   func(tx *store.Tx) error
			want string
		}{
			{"create", func(tx *store.Tx) error {
				_, err := tx.Create(doc, map[string]any{})
				return err
			}, "entities of " + doc + " are created by the store"},
			{"update", func(tx *store.Tx) error {
				_, err := tx.Update(doc, map[string]any{"platform/id": id})
				return err
			}, "entities of " + doc + " are managed by the store"},
			{"delete", func(tx *store.Tx) error {
				return tx.Delete(doc, map[string]any{"platform/id": id})
			}, "entities of " + doc + " are managed by the store"},
		} {
			err := st.Write(context.Background(), c.fn)
			e, ok := store.AsError(err)
			if !ok || e.Name != store.NameBuiltinProtected || e.Message != c.want || e.Data["type"] != doc {
				t.Errorf("%s: err = %v, want %s: %s", c.what, err, store.NameBuiltinProtected, c.want)
			}
		}
	})
}
