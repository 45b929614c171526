package graphql

import (
	"context"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

const (
	relProjectTasks = "11111111-1111-1111-1111-111111111111"
	relTaskTags     = "22222222-2222-2222-2222-222222222222"
)

// forEachStore runs fn on SQLite and, when configured, PostgreSQL.
func forEachStore(t *testing.T, fn func(t *testing.T, st *store.Store)) {
	testkit.EachStore(t, func(t *testing.T, dsn string) { fn(t, teststore.Open(t, dsn)) })
}

func write(t testing.TB, st *store.Store, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := st.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// trackerSchema creates the space "tracker": projects, tasks (every kind
// of field), labels; and a type of another space.
func trackerSchema(t testing.TB, st *store.Store) {
	t.Helper()
	if err := st.WriteSchema(context.Background(), func(tx *store.Tx) error {
		if err := tx.CreateEnum("tracker.task.status/options"); err != nil {
			return err
		}
		if err := tx.CreateType(store.TypeSpec{Name: "tracker/project", Meta: map[string]any{"ui/label": "Projects"}, Fields: []store.FieldSpec{
			{Name: "tracker.project/name", Type: store.TText, Meta: map[string]any{"ui/label": "Name"}},
			{Name: "tracker.project/budget", Type: store.TDecimal, Meta: map[string]any{"ui/label": "Budget"}},
		}}); err != nil {
			return err
		}
		if err := tx.CreateType(store.TypeSpec{Name: "tracker/label", Meta: map[string]any{"ui/label": "Labels"}, Fields: []store.FieldSpec{
			{Name: "tracker.label/name", Type: store.TText, Meta: map[string]any{"ui/label": "Name"}},
		}}); err != nil {
			return err
		}
		if err := tx.CreateType(store.TypeSpec{Name: "tracker/task", Meta: map[string]any{"ui/label": "Tasks"}, Fields: []store.FieldSpec{
			{Name: "tracker.task/name", Type: store.TText, Meta: map[string]any{"ui/label": "Name"}},
			{Name: "tracker.task/points", Type: store.TInt, Meta: map[string]any{"ui/label": "Points"}},
			{Name: "tracker.task/estimate", Type: store.TDecimal, Meta: map[string]any{"ui/label": "Estimate"}},
			{Name: "tracker.task/done", Type: store.TBool, Meta: map[string]any{"ui/label": "Done"}},
			{Name: "tracker.task/due", Type: store.TDateTime, Meta: map[string]any{"ui/label": "Due date"}},
			{Name: "tracker.task/period", Type: store.TDateRange, Meta: map[string]any{"ui/label": "Period"}},
			{Name: "tracker.task/extra", Type: store.TJSON, Meta: map[string]any{"ui/label": "Extra"}},
			{Name: "tracker.task/deadline", Type: store.TText, Meta: map[string]any{"ui/label": "Срок сдачи"}},
			{Name: "tracker.task/secret", Type: store.TText, Meta: map[string]any{"ui/hidden?": true}},
		}}); err != nil {
			return err
		}
		for _, f := range []store.FieldSpec{
			{Holder: "tracker/task", Name: "tracker.task/status", Type: "tracker.task.status/options", Meta: map[string]any{"ui/label": "Status"}},
			{Holder: "tracker/task", Name: "tracker.task/notes", Type: store.DocumentType, Meta: map[string]any{"ui/label": "Notes"}},
			{Holder: "tracker/task", Name: "tracker.task/project", Type: "tracker/project", Meta: map[string]any{"ui/label": "Project", "platform/relation": relProjectTasks}},
			{Holder: "tracker/project", Name: "tracker.project/tasks", Type: "tracker/task", Meta: map[string]any{"ui/label": "Tasks", "platform/relation": relProjectTasks, "platform/collection?": true}},
			{Holder: "tracker/task", Name: "tracker.task/labels", Type: "tracker/label", Meta: map[string]any{"ui/label": "Labels", "platform/relation": relTaskTags, "platform/collection?": true}},
		} {
			if err := tx.CreateField(f); err != nil {
				return err
			}
		}
		return tx.CreateType(store.TypeSpec{Name: "other/thing", Fields: []store.FieldSpec{{Name: "other.thing/name", Type: store.TText}}})
	}); err != nil {
		t.Fatal(err)
	}
}

// ids of the fixture's entities.
const (
	idAlpha = "a0000000-0000-0000-0000-000000000001"
	idBeta  = "a0000000-0000-0000-0000-000000000002"
	idOpen  = "b0000000-0000-0000-0000-000000000001"
	idDone  = "b0000000-0000-0000-0000-000000000002"
	idRed   = "c0000000-0000-0000-0000-000000000001"
	idBlue  = "c0000000-0000-0000-0000-000000000002"
	idT1    = "d0000000-0000-0000-0000-000000000001"
	idT2    = "d0000000-0000-0000-0000-000000000002"
	idT3    = "d0000000-0000-0000-0000-000000000003"
	idT4    = "d0000000-0000-0000-0000-000000000004"
)

// trackerData fills the space: two projects, two options, two labels and
// four tasks.
func trackerData(t testing.TB, st *store.Store) {
	t.Helper()
	ref := func(id string) map[string]any { return map[string]any{"platform/id": id} }
	write(t, st, func(tx *store.Tx) error {
		cat := tx.Catalog()
		if err := tx.EnsureEnumOptions(cat.Type("tracker.task.status/options"), map[string]string{idOpen: "Open", idDone: "Done"}); err != nil {
			return err
		}
		for _, e := range []struct {
			typ string
			val map[string]any
		}{
			{"tracker/project", map[string]any{"platform/id": idAlpha, "tracker.project/name": "Alpha", "tracker.project/budget": "10.50"}},
			{"tracker/project", map[string]any{"platform/id": idBeta, "tracker.project/name": "Beta"}},
			{"tracker/label", map[string]any{"platform/id": idRed, "tracker.label/name": "red"}},
			{"tracker/label", map[string]any{"platform/id": idBlue, "tracker.label/name": "blue"}},
			{"tracker/task", map[string]any{"platform/id": idT1, "tracker.task/name": "Write docs", "tracker.task/points": int64(3), "tracker.task/estimate": "1.5",
				"tracker.task/done": false, "tracker.task/due": "2024-03-01T10:00:00Z", "tracker.task/status": ref(idOpen), "tracker.task/project": ref(idAlpha),
				"tracker.task/period": map[string]any{"start": "2024-03-01", "end": "2024-03-05"}, "tracker.task/extra": map[string]any{"k": []any{1.0, 2.0}}, "tracker.task/deadline": "soon"}},
			{"tracker/task", map[string]any{"platform/id": idT2, "tracker.task/name": "Fix bug", "tracker.task/points": int64(5), "tracker.task/estimate": "2",
				"tracker.task/done": true, "tracker.task/due": "2024-02-01T10:00:00Z", "tracker.task/status": ref(idDone), "tracker.task/project": ref(idAlpha)}},
			{"tracker/task", map[string]any{"platform/id": idT3, "tracker.task/name": "Plan release", "tracker.task/points": int64(8),
				"tracker.task/done": false, "tracker.task/status": ref(idOpen), "tracker.task/project": ref(idBeta)}},
			{"tracker/task", map[string]any{"platform/id": idT4, "tracker.task/name": "idle"}},
		} {
			if _, err := tx.Create(e.typ, e.val); err != nil {
				return err
			}
		}
		if err := tx.CollectionItems("tracker/task", "tracker.task/labels", idT1, []any{idRed, idBlue}, true); err != nil {
			return err
		}
		if err := tx.CollectionItems("tracker/task", "tracker.task/labels", idT2, []any{idRed}, true); err != nil {
			return err
		}
		secrets, err := tx.DocumentSecrets(cat.Type("tracker/task"), cat.Type("tracker/task").Field("tracker.task/notes"), []string{idT1})
		if err != nil {
			return err
		}
		return tx.PutDocuments(map[string]string{secrets[idT1]: "# Notes\n\nSome **bold** text."})
	})
}

var viewer = Viewer{ID: "u1", Email: "ann@example.com"}

// run executes a request and returns the answer as JSON.
func run(t testing.TB, svc *Service, space, q string, vars map[string]any) string {
	t.Helper()
	resp, err := svc.Execute(context.Background(), space, viewer, &Request{Query: q, Variables: vars})
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	b, err := resp.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// step is a request on the space tracker and its whole answer.
type step struct {
	name, query string
	vars        map[string]any
	want        string
}

// runSteps runs the steps in order on svc, reporting each answer that is
// not the one wanted.
func runSteps(t *testing.T, svc *Service, steps []step) {
	t.Helper()
	for _, s := range steps {
		if got := run(t, svc, "tracker", s.query, s.vars); got != s.want {
			t.Errorf("%s:\n got %s\nwant %s", s.name, got, s.want)
		}
	}
}

func newTracker(t *testing.T, st *store.Store) *Service {
	trackerSchema(t, st)
	trackerData(t, st)
	return mustNew(t, Config{Store: st})
}
