package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// eachStore runs fn on a fresh store on every engine under test.
func eachStore(t *testing.T, fn func(t *testing.T, st *store.Store)) {
	t.Helper()
	testkit.EachStore(t, func(t *testing.T, dsn string) { fn(t, teststore.Open(t, dsn)) })
}

// wantError fails unless err is a store error with the given name.
func wantError(t *testing.T, what string, err error, name string) {
	t.Helper()
	e, ok := store.AsError(err)
	if !ok || e.Name != name {
		t.Fatalf("%s: err = %v, want %s", what, err, name)
	}
}

func count(t *testing.T, st *store.Store, table string) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// createType creates the type name with fields, failing the test on an
// error.
func createType(t *testing.T, st *store.Store, name string, fields []store.FieldSpec) {
	t.Helper()
	writeSchema(t, st, func(tx *store.Tx) error { return tx.CreateType(store.TypeSpec{Name: name, Fields: fields}) })
}

// write runs fn in a write transaction, failing the test on an error.
func write(t *testing.T, st *store.Store, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := st.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func writeSchema(t *testing.T, st *store.Store, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := st.WriteSchema(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// Built-in types and fields refuse every schema change; afterwards documents
// still work.
func TestBuiltinsRefuseSchemaChanges(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		writeSchema(t, st, func(tx *store.Tx) error {
			if err := tx.CreateEnum("A/state"); err != nil {
				return err
			}
			return tx.CreateType(store.TypeSpec{Name: "A/Task", Fields: []store.FieldSpec{
				{Name: "A/name", Type: store.TText}, {Name: "A/body", Type: store.DocumentType}, {Name: "A/state", Type: "A/state"},
			}})
		})
		doc, secret := store.DocumentType, store.DocumentSecret
		for _, tc := range []struct {
			name string
			run  func(tx *store.Tx) error
		}{
			{"rename the secret field", func(tx *store.Tx) error { return tx.RenameField(doc, secret, "X/secret") }},
			{"rename the document's platform/id", func(tx *store.Tx) error { return tx.RenameField(doc, "platform/id", "X/id") }},
			{"rename a type's platform/id", func(tx *store.Tx) error { return tx.RenameField("A/Task", "platform/id", "X/id") }},
			{"rename a public id", func(tx *store.Tx) error { return tx.RenameField("A/Task", "platform/public-id", "X/p") }},
			{"rename a creation date", func(tx *store.Tx) error { return tx.RenameField("A/Task", "platform/creation-date", "X/c") }},
			{"rename a modification date", func(tx *store.Tx) error {
				return tx.RenameField("A/Task", "platform/modification-date", "X/m")
			}},
			{"rename an enum's name", func(tx *store.Tx) error { return tx.RenameField("A/state", "enum/name", "X/n") }},
			{"rename an enum's rank", func(tx *store.Tx) error { return tx.RenameField("A/state", "platform/rank", "X/r") }},
			{"delete the secret field", func(tx *store.Tx) error { return tx.DeleteField(doc, secret, true) }},
			{"delete a type's platform/id", func(tx *store.Tx) error { return tx.DeleteField("A/Task", "platform/id", true) }},
			{"delete an enum's name", func(tx *store.Tx) error { return tx.DeleteField("A/state", "enum/name", true) }},
			{"set meta of the secret field", func(tx *store.Tx) error { return tx.SetFieldMeta(doc, secret, "ui/x", true) }},
			{"set meta of a platform/id", func(tx *store.Tx) error { return tx.SetFieldMeta("A/Task", "platform/id", "ui/x", true) }},
			{"make a creation date optional", func(tx *store.Tx) error {
				return tx.SetFieldMeta("A/Task", "platform/modification-date", "platform/required?", nil)
			}},
			{"rename the document type", func(tx *store.Tx) error { return tx.RenameType(doc, "X/Doc") }},
			{"delete the document type", func(tx *store.Tx) error { return tx.DeleteType(doc, true, true) }},
			{"add a field to the document type", func(tx *store.Tx) error {
				return tx.CreateField(store.FieldSpec{Holder: doc, Name: "X/f", Type: store.TText})
			}},
			{"install mixins on the document type", func(tx *store.Tx) error {
				return tx.InstallMixins(map[string][]string{doc: {"platform/rank-mixin"}})
			}},
		} {
			err := st.WriteSchema(ctx, tc.run)
			wantError(t, tc.name, err, store.NameBuiltinProtected)
		}
		// Ordinary fields still change.
		writeSchema(t, st, func(tx *store.Tx) error {
			if err := tx.RenameField("A/Task", "A/name", "A/title"); err != nil {
				return err
			}
			return tx.SetFieldMeta("A/Task", "A/title", "ui/label", "Title")
		})
		// Documents still work: a new entity gets a document whose secret exists.
		e := create(t, st, "A/Task", map[string]any{"A/title": "x"})
		id := e["platform/id"].(string)
		var secrets map[string]string
		err := st.Write(ctx, func(tx *store.Tx) error {
			ty := tx.Catalog().Type("A/Task")
			var err error
			secrets, err = tx.DocumentSecrets(ty, ty.Field("A/body"), []string{id})
			return err
		})
		if err != nil || secrets[id] == "" {
			t.Fatalf("document secret after the refused changes: %v %v", secrets, err)
		}
		if ok, err := st.DocumentSecretExists(ctx, strings.ToUpper(secrets[id])); err != nil || !ok {
			t.Fatalf("DocumentSecretExists(upper) = %v %v", ok, err)
		}
	})
}

// Deleting an entity, a rich-text field or a type deletes the documents it
// held with their contents: nothing is left behind, and documents of
// other entities stay.
func TestDeletesLeaveNoDocuments(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		createType(t, st, "A/Task", []store.FieldSpec{
			{Name: "A/name", Type: store.TText}, {Name: "A/body", Type: store.DocumentType}, {Name: "A/notes", Type: store.DocumentType},
		})
		cat, err := st.Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		docTable := cat.Type(store.DocumentType).Table
		// newTask creates a task and writes content into both its documents.
		newTask := func() string {
			id := create(t, st, "A/Task", map[string]any{"A/name": "t"})["platform/id"].(string)
			write(t, st, func(tx *store.Tx) error {
				ty := tx.Catalog().Type("A/Task")
				contents := map[string]string{}
				for _, f := range []string{"A/body", "A/notes"} {
					s, err := tx.DocumentSecrets(ty, ty.Field(f), []string{id})
					if err != nil {
						return err
					}
					contents[strings.ToUpper(s[id])] = "content of " + f
				}
				return tx.PutDocuments(contents)
			})
			return id
		}
		a, b := newTask(), newTask()
		if d, c := count(t, st, docTable), count(t, st, store.DocumentsTable); d != 4 || c != 4 {
			t.Fatalf("%d documents, %d contents; want 4 and 4", d, c)
		}
		var upper int
		if err := st.DB().QueryRow("SELECT count(*) FROM " + store.DocumentsTable + " WHERE secret <> lower(secret)").Scan(&upper); err != nil || upper != 0 {
			t.Fatalf("%d contents under upper-case secrets (%v)", upper, err)
		}
		if err := st.Write(ctx, func(tx *store.Tx) error { return tx.Delete("A/Task", map[string]any{"platform/id": a}) }); err != nil {
			t.Fatal(err)
		}
		if d, c := count(t, st, docTable), count(t, st, store.DocumentsTable); d != 2 || c != 2 {
			t.Fatalf("after deleting an entity: %d documents, %d contents; want 2 and 2 (b's)", d, c)
		}
		writeSchema(t, st, func(tx *store.Tx) error { return tx.DeleteField("A/Task", "A/notes", true) })
		if d, c := count(t, st, docTable), count(t, st, store.DocumentsTable); d != 1 || c != 1 {
			t.Fatalf("after deleting a rich-text field: %d documents, %d contents; want 1 and 1", d, c)
		}
		_ = b
		writeSchema(t, st, func(tx *store.Tx) error { return tx.DeleteType("A/Task", true, true) })
		if d, c := count(t, st, docTable), count(t, st, store.DocumentsTable); d != 0 || c != 0 {
			t.Fatalf("after deleting the type: %d documents, %d contents; want none", d, c)
		}
	})
}

// A NUL character or invalid UTF-8 in a text value is refused with
// entity.error/invalid-value on both engines, on every write path, and
// nothing is written.
func TestTextWithNULIsRefused(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		createType(t, st, "A/Task", []store.FieldSpec{
			{Name: "A/name", Type: store.TText}, {Name: "A/mail", Type: store.TEmail}, {Name: "A/icon", Type: store.TEmoji},
			{Name: "A/data", Type: store.TJSON},
		})
		for _, tc := range []struct {
			name  string
			field string
			value any
		}{
			{"NUL in text", "A/name", "a\x00b"},
			{"NUL in e-mail", "A/mail", "a\x00@b"},
			{"NUL in emoji", "A/icon", "\x00"},
			{"invalid UTF-8 in text", "A/name", "a\xffb"},
		} {
			err := st.Write(ctx, func(tx *store.Tx) error {
				_, err := tx.Create("A/Task", map[string]any{tc.field: tc.value})
				return err
			})
			wantError(t, tc.name, err, store.NameInvalidValue)
			if e, _ := store.AsError(err); e.Data["field"] != tc.field {
				t.Errorf("%s: error data %v does not name %s", tc.name, e.Data, tc.field)
			}
		}
		// A json value keeps the NUL escaped and is stored.
		e := create(t, st, "A/Task", map[string]any{"A/data": map[string]any{"k": "a\x00b"}})
		id := e["platform/id"].(string)
		err := st.Write(ctx, func(tx *store.Tx) error {
			_, err := tx.Update("A/Task", map[string]any{"platform/id": id, "A/name": "x\x00"})
			return err
		})
		wantError(t, "update", err, store.NameInvalidValue)
		// The bulk path takes converted values: the last guard refuses them.
		err = st.Write(ctx, func(tx *store.Tx) error {
			ty := tx.Catalog().Type("A/Task")
			_, err := tx.BulkUpsert(ty, []*store.Field{ty.Field("A/name")}, []store.BulkRow{{ID: uuid.NewString(), Values: []any{"bulk\x00"}}})
			return err
		})
		wantError(t, "bulk", err, store.NameInvalidValue)
		err = st.Write(ctx, func(tx *store.Tx) error {
			return tx.PutDocuments(map[string]string{uuid.NewString(): "doc\x00"})
		})
		wantError(t, "document content", err, store.NameInvalidValue)
		if n := count(t, st, "host_documents"); n != 0 {
			t.Fatalf("%d document contents written", n)
		}
		cat, _ := st.Catalog(ctx)
		if n := count(t, st, cat.Type("A/Task").Table); n != 1 {
			t.Fatalf("%d rows, want the one valid entity", n)
		}
		if err := store.CheckText("$p", "a\x00"); err == nil {
			t.Fatal("CheckText accepted a NUL")
		}
		if err := store.CheckText("$p", "ordinary ✓"); err != nil {
			t.Fatal(err)
		}
	})
}

// A field that would take a type past MaxTypeColumns is refused with a named
// error before any DDL runs; the type stays usable.
func TestColumnLimit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("creates a thousand columns")
	}
	eachStore(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		createTask(t, st) // 4 built-in columns and A/name
		writeSchema(t, st, func(tx *store.Tx) error {
			// 4 + 1 + 993 = 998 columns.
			for i := range store.MaxTypeColumns - 7 {
				if err := tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: fmt.Sprintf("A/f%d", i), Type: store.TInt}); err != nil {
					return err
				}
			}
			// A collection takes no column.
			return tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/subtasks", Type: "A/Task", Meta: map[string]any{"platform/collection?": true}})
		})
		// 998 + a range (two columns) = 1000: fits.
		writeSchema(t, st, func(tx *store.Tx) error {
			return tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/span", Type: store.TDateRange})
		})
		for _, fs := range []store.FieldSpec{
			{Holder: "A/Task", Name: "A/one-more", Type: store.TText},
			{Holder: "A/Task", Name: "A/range", Type: store.TDateTimeRange},
			{Holder: "A/Task", Name: "A/parent", Type: "A/Task"},
			{Holder: "A/Task", Name: "A/body", Type: store.DocumentType},
		} {
			err := st.WriteSchema(ctx, func(tx *store.Tx) error { return tx.CreateField(fs) })
			wantError(t, fs.Name, err, store.NameTooManyFields)
		}
		err := st.WriteSchema(ctx, func(tx *store.Tx) error {
			return tx.InstallMixins(map[string][]string{"A/Task": {"platform/rank-mixin"}})
		})
		wantError(t, "rank mixin", err, store.NameTooManyFields)
		if e := create(t, st, "A/Task", map[string]any{"A/name": "still works", "A/f0": 1}); e["A/name"] != "still works" {
			t.Fatalf("create after the limit: %v", e)
		}
		// Deleting a field makes room again.
		writeSchema(t, st, func(tx *store.Tx) error { return tx.DeleteField("A/Task", "A/f0", true) })
		writeSchema(t, st, func(tx *store.Tx) error {
			return tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/one-more", Type: store.TText})
		})
	})
}

// On PostgreSQL dropped columns keep counting towards the engine's 1,600:
// the store checks that too and answers the named error.
func TestColumnLimitCountsDroppedColumnsOnPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("creates sixteen hundred columns")
	}
	ctx := context.Background()
	st := teststore.Open(t, testkit.PostgresDSN(t))
	createTask(t, st) // 5 columns
	add := func(prefix string, n int) {
		writeSchema(t, st, func(tx *store.Tx) error {
			for i := range n {
				if err := tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: fmt.Sprintf("A/%s%d", prefix, i), Type: store.TInt}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	add("old", 900)
	writeSchema(t, st, func(tx *store.Tx) error {
		for i := range 900 {
			if err := tx.DeleteField("A/Task", fmt.Sprintf("A/old%d", i), true); err != nil {
				return err
			}
		}
		return nil
	})
	add("new", 1600-905) // the engine's 1,600 reached, 700 live columns
	err := st.WriteSchema(ctx, func(tx *store.Tx) error {
		return tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/last", Type: store.TText})
	})
	wantError(t, "past 1,600 with dropped columns", err, store.NameTooManyFields)
}

// A failed write leaves nothing: no rows, no documents, no public ids used,
// no schema change.
func TestFailedWriteLeavesNoRows(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		createType(t, st, "A/Task", []store.FieldSpec{
			{Name: "A/name", Type: store.TText, Meta: map[string]any{"platform/required?": true}}, {Name: "A/body", Type: store.DocumentType},
		})
		cat, _ := st.Catalog(ctx)
		version := cat.Version
		err := st.WriteSchema(ctx, func(tx *store.Tx) error {
			if err := tx.CreateField(store.FieldSpec{Holder: "A/Task", Name: "A/points", Type: store.TInt}); err != nil {
				return err
			}
			if err := tx.PutDocuments(map[string]string{uuid.NewString(): "content"}); err != nil {
				return err
			}
			for i := range 3 {
				if _, err := tx.Create("A/Task", map[string]any{"A/name": fmt.Sprint(i), "A/points": i}); err != nil {
					return err
				}
			}
			_, err := tx.Create("A/Task", map[string]any{"A/points": 4}) // A/name missing
			return err
		})
		wantError(t, "the failing create", err, store.NameRequiredMissing)
		cat, err = st.Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if cat.Version != version || cat.Type("A/Task").Field("A/points") != nil {
			t.Fatalf("the schema change of the failed write stayed (version %d, was %d)", cat.Version, version)
		}
		for _, table := range []string{cat.Type("A/Task").Table, cat.Type(store.DocumentType).Table, store.DocumentsTable} {
			if n := count(t, st, table); n != 0 {
				t.Errorf("%s holds %d rows after the failed write", table, n)
			}
		}
		if e := create(t, st, "A/Task", map[string]any{"A/name": "first"}); e["platform/public-id"] != "1" {
			t.Fatalf("public id after the failed write = %v, want 1", e["platform/public-id"])
		}
	})
}

// An update moves the modification date to the clock's time and keeps the
// creation date; setting the modification date explicitly wins.
func TestUpdateMovesModificationDate(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		now := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
		st.SetClock(func() time.Time { return now })
		createTask(t, st)
		e := create(t, st, "A/Task", map[string]any{"A/name": "a"})
		id := e["platform/id"].(string)
		if e["platform/creation-date"] != "2024-03-01T12:00:00.000Z" || e["platform/modification-date"] != "2024-03-01T12:00:00.000Z" {
			t.Fatalf("created %v", e)
		}
		update := func(m map[string]any) map[string]any {
			t.Helper()
			var out map[string]any
			write(t, st, func(tx *store.Tx) error {
				var err error
				out, err = tx.Update("A/Task", m)
				return err
			})
			return out
		}
		now = now.Add(90*time.Minute + 250*time.Millisecond)
		u := update(map[string]any{"platform/id": id, "A/name": "b"})
		if u["platform/modification-date"] != "2024-03-01T13:30:00.250Z" || u["platform/creation-date"] != "2024-03-01T12:00:00.000Z" {
			t.Fatalf("after an update at 13:30:00.250: %v", u)
		}
		now = now.Add(time.Hour)
		u = update(map[string]any{"platform/id": id, "platform/modification-date": "2020-01-01T00:00:00.000Z"})
		if u["platform/modification-date"] != "2020-01-01T00:00:00.000Z" {
			t.Fatalf("explicit modification date: %v", u)
		}
	})
}

// Required fields of every kind are enforced on create (missing or null)
// and on update (set to null).
func TestRequiredFieldsOfEveryKind(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		req := map[string]any{"platform/required?": true}
		prims := []string{store.TInt, store.TDecimal, store.TBool, store.TText, store.TEmail, store.TEmoji, store.TDate,
			store.TDateTime, store.TDateRange, store.TDateTimeRange, store.TUUID, store.TRank, store.TJSON}
		valid := map[string]any{
			store.TInt: 1, store.TDecimal: "1.5", store.TBool: false, store.TText: "t", store.TEmail: "a@b.c", store.TEmoji: "✓",
			store.TDate: "2024-01-01", store.TDateTime: "2024-01-01T00:00:00.000Z",
			store.TDateRange:     map[string]any{"start": "2024-01-01", "end": "2024-01-02"},
			store.TDateTimeRange: map[string]any{"start": "2024-01-01T00:00:00.000Z", "end": "2024-01-02T00:00:00.000Z"},
			store.TUUID:          uuid.NewString(), store.TRank: 3, store.TJSON: map[string]any{"a": 1},
		}
		var project string
		writeSchema(t, st, func(tx *store.Tx) error {
			if err := tx.CreateType(store.TypeSpec{Name: "A/Project"}); err != nil {
				return err
			}
			if err := tx.CreateEnum("A/state"); err != nil {
				return err
			}
			fields := []store.FieldSpec{{Name: "A/project", Type: "A/Project", Meta: req}, {Name: "A/state", Type: "A/state", Meta: req}}
			for _, p := range prims {
				fields = append(fields, store.FieldSpec{Name: "A/" + strings.TrimPrefix(p, "platform/"), Type: p, Meta: req})
			}
			if err := tx.CreateType(store.TypeSpec{Name: "A/Task", Fields: fields}); err != nil {
				return err
			}
			p, err := tx.Create("A/Project", map[string]any{})
			project = p["platform/id"].(string)
			return err
		})
		option := uuid.NewString()
		write(t, st, func(tx *store.Tx) error {
			return tx.EnsureEnumOptions(tx.Catalog().Type("A/state"), map[string]string{option: "open"})
		})
		full := map[string]any{"A/project": map[string]any{"platform/id": project}, "A/state": map[string]any{"platform/id": option}}
		for _, p := range prims {
			full["A/"+strings.TrimPrefix(p, "platform/")] = valid[p]
		}
		e := create(t, st, "A/Task", full)
		id := e["platform/id"].(string)
		for field := range full {
			without := map[string]any{}
			for k, v := range full {
				if k != field {
					without[k] = v
				}
			}
			err := st.Write(ctx, func(tx *store.Tx) error { _, err := tx.Create("A/Task", without); return err })
			wantError(t, "create without "+field, err, store.NameRequiredMissing)
			if e, _ := store.AsError(err); e.Data["field"] != field {
				t.Errorf("create without %s: error names %v", field, e.Data["field"])
			}
			without[field] = nil
			err = st.Write(ctx, func(tx *store.Tx) error { _, err := tx.Create("A/Task", without); return err })
			wantError(t, "create with null "+field, err, store.NameRequiredMissing)
			err = st.Write(ctx, func(tx *store.Tx) error {
				_, err := tx.Update("A/Task", map[string]any{"platform/id": id, field: nil})
				return err
			})
			wantError(t, "update to null "+field, err, store.NameRequiredMissing)
		}
		cat, _ := st.Catalog(ctx)
		if n := count(t, st, cat.Type("A/Task").Table); n != 1 {
			t.Fatalf("%d tasks, want the one complete task", n)
		}
	})
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{"", "mysql://x", "sqlite:", "sqlite:a?b", "sqlite:a#b", "postgres"} {
		st, err := store.Open(context.Background(), dsn)
		if err == nil {
			st.Close()
		}
		if !errors.Is(err, store.ErrDSN) {
			t.Errorf("Open(%q) = %v, want ErrDSN", dsn, err)
		}
	}
}
