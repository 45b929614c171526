package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

// attachedTables are the tables of the data attached to entities.
var attachedTables = []string{"entity_comments", "entity_files", "entity_assignees", "entity_creators", "entity_notifications"}

// attachAll gives the entity a comment, a file, two assignees, a creator and
// a notification.
func attachAll(t *testing.T, st *store.Store, id string) {
	t.Helper()
	write(t, st, func(tx *store.Tx) error {
		for _, err := range []error{
			tx.AddComment(store.Comment{EntityID: id, Author: "a@example.com", Content: "first", Created: 1}),
			tx.AddComment(store.Comment{EntityID: id, Author: "b@example.com", Content: "second", Created: 1}),
			tx.AttachFile(store.File{EntityID: id, Name: "f.txt", ContentType: "text/plain", Data: []byte("bytes"), Created: 2}),
			tx.Assign(id, "b@example.com", 3),
			tx.Assign(id, "a@example.com", 4),
			tx.Assign(id, "b@example.com", 5), // once
			tx.SetCreator(id, "a@example.com"),
			tx.AddNotification(store.Notification{Recipient: "b@example.com", Sender: "a@example.com", Subject: "s", Message: "m",
				EntityID: id, EntityType: "Tasks", Created: 6}),
		} {
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// attachedRows counts the rows attached to the entities, by table.
func attachedRows(t *testing.T, st *store.Store, ids ...string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range attachedTables {
		for _, id := range ids {
			var n int
			if err := st.DB().QueryRow(st.Dialect().Rebind("SELECT COUNT(*) FROM "+table+" WHERE entity_id = ?"), id).Scan(&n); err != nil {
				t.Fatalf("count %s: %v", table, err)
			}
			out[table] += n
		}
	}
	return out
}

// The data attached to an entity is written and read through the store:
// comments and files in the order they were written, assignees once each,
// the creator, the recipient's notifications.
func TestAttachedData(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		createType(t, st, "A/Task", []store.FieldSpec{{Name: "A/name", Type: store.TText}})
		id := create(t, st, "A/Task", map[string]any{"A/name": "t"})["platform/id"].(string)
		attachAll(t, st, id)
		att := st.Attached()
		var comments []string
		if err := att.Comments(ctx, []string{id}, func(c store.Comment) error {
			comments = append(comments, c.Author+": "+c.Content)
			return nil
		}); err != nil || !slices.Equal(comments, []string{"a@example.com: first", "b@example.com: second"}) {
			t.Errorf("comments: %q %v", comments, err)
		}
		var files []store.File
		if err := att.Files(ctx, []string{id}, func(f store.File) error {
			files = append(files, f)
			return nil
		}); err != nil || len(files) != 1 || files[0].Name != "f.txt" || files[0].Size != 5 || files[0].Data != nil {
			t.Fatalf("files: %+v %v", files, err)
		}
		if f, found, err := att.File(ctx, files[0].ID); err != nil || !found || string(f.Data) != "bytes" || f.ContentType != "text/plain" {
			t.Errorf("file: %+v %v %v", f, found, err)
		}
		if _, found, err := att.File(ctx, store.NewEntityID()); err != nil || found {
			t.Errorf("no such file: %v %v", found, err)
		}
		var assignees []string
		if err := att.Assignees(ctx, []string{id}, func(_, email string) error {
			assignees = append(assignees, email)
			return nil
		}); err != nil || !slices.Equal(assignees, []string{"b@example.com", "a@example.com"}) {
			t.Errorf("assignees: %q %v", assignees, err)
		}
		if email, err := att.Creator(ctx, id); err != nil || email != "a@example.com" {
			t.Errorf("creator: %q %v", email, err)
		}
		if notes, err := att.Notifications(ctx, "b@example.com", 10); err != nil || len(notes) != 1 || notes[0].EntityID != id || notes[0].EntityType != "Tasks" {
			t.Errorf("notifications: %+v %v", notes, err)
		}
	})
}

// Deleting an entity or its type deletes the data attached to it, in the
// store: whichever API deletes (the command API, GraphQL, a
// synchronization's removals) goes through these. The rows of other
// entities stay.
func TestDeletesLeaveNoAttachedData(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		createType(t, st, "A/Task", []store.FieldSpec{{Name: "A/name", Type: store.TText}})
		a := create(t, st, "A/Task", map[string]any{"A/name": "a"})["platform/id"].(string)
		b := create(t, st, "A/Task", map[string]any{"A/name": "b"})["platform/id"].(string)
		attachAll(t, st, a)
		attachAll(t, st, b)
		all := map[string]int{"entity_comments": 2, "entity_files": 1, "entity_assignees": 2, "entity_creators": 1, "entity_notifications": 1}
		if got := attachedRows(t, st, a); !equalCounts(got, all) {
			t.Fatalf("attached to a: %v, want %v", got, all)
		}
		if err := st.Write(ctx, func(tx *store.Tx) error { return tx.Delete("A/Task", map[string]any{"platform/id": a}) }); err != nil {
			t.Fatal(err)
		}
		if got := attachedRows(t, st, a); !equalCounts(got, nil) {
			t.Errorf("after deleting a: %v left", got)
		}
		if got := attachedRows(t, st, b); !equalCounts(got, all) {
			t.Errorf("after deleting a, b's: %v, want %v", got, all)
		}
		writeSchema(t, st, func(tx *store.Tx) error { return tx.DeleteType("A/Task", true, true) })
		if got := attachedRows(t, st, b); !equalCounts(got, nil) {
			t.Errorf("after deleting the type: %v left", got)
		}
	})
}

// equalCounts compares counts by table, a missing table counting 0.
func equalCounts(got, want map[string]int) bool {
	for _, table := range attachedTables {
		if got[table] != want[table] {
			return false
		}
	}
	return true
}
