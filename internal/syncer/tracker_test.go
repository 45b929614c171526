package syncer_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// trackerNow is the tracker's clock in these tests.
var trackerNow = tracker.Epoch.Add(200 * 24 * time.Hour)

// serveTracker serves the tracker (quiet, its clock at trackerNow unless
// cfg sets one) until the test ends and returns its URL.
func serveTracker(t testing.TB, cfg tracker.Config) string {
	t.Helper()
	nop := zerolog.Nop()
	cfg.Logger = &nop
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return trackerNow }
	}
	return testapp.Serve(t, tracker.New(cfg))
}

func openStore(t testing.TB) *store.Store {
	t.Helper()
	return teststore.Open(t, "sqlite::memory:")
}

// entity reads the entity of a store type whose app id is id (nil when
// missing).
func entity(t testing.TB, st *store.Store, typeName, id string) map[string]any {
	t.Helper()
	var out map[string]any
	err := st.Write(context.Background(), func(tx *store.Tx) error {
		ty := tx.Catalog().Type(typeName)
		space, appType, _ := strings.Cut(typeName, "/")
		f := ty.Field(space + "." + appType + ".sync/app-id")
		var pid string
		rows, err := tx.Querier().QueryContext(context.Background(), tx.Dialect().Rebind("SELECT id FROM "+ty.Table+" WHERE "+f.Col+" = ?"), id)
		if err != nil {
			return err
		}
		defer rows.Close()
		if !rows.Next() {
			return nil
		}
		if err := rows.Scan(&pid); err != nil {
			return err
		}
		rows.Close()
		out, err = tx.Read(ty, pid)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTrackerFullThenDelta(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, testTrackerFullThenDelta)
}

func testTrackerFullThenDelta(t *testing.T, dsn string) {
	ctx := context.Background()
	appURL := serveTracker(t, tracker.Config{Projects: 3, Tasks: 1200})
	st := teststore.Open(t, dsn)
	var events []syncer.Event
	opts := syncer.Options{AppURL: appURL, Account: map[string]string{"token": "demo"},
		Now: func() time.Time { return trackerNow }, Progress: func(e syncer.Event) { events = append(events, e) }}
	rep, err := syncer.Run(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Space != "tracker" || rep.Account != "Demo tracker" || rep.Resumed || !strings.HasPrefix(string(rep.Logo), "<svg") {
		t.Fatalf("report: %+v", rep)
	}
	ds := tracker.DatasetOf(tracker.Config{Projects: 3, Tasks: 1200})
	live := 0
	for j := 1; j <= ds.Tasks; j++ {
		task := ds.Task(j, trackerNow)
		if task.Live(trackerNow) {
			live++
		}
	}
	if got := teststore.Count(t, st, "tracker/project"); got != 3 {
		t.Errorf("projects: %d", got)
	}
	if got := teststore.Count(t, st, "tracker/task"); got != live {
		t.Errorf("tasks: %d, want %d", got, live)
	}
	byType := map[string]*syncer.TypeReport{}
	for _, tr := range rep.Types {
		byType[tr.Type] = tr
	}
	if tr := byType["task"]; tr.Created != live || tr.Updated != 0 || tr.Removed != 0 || tr.Skipped != 0 || tr.Mode != "full" || tr.Pages < 3 {
		t.Errorf("task report: %+v", tr)
	}
	if len(events) == 0 || !events[len(events)-1].Done {
		t.Errorf("progress events: %+v", events)
	}
	// One task, field by field.
	var j int
	for j = 1; ; j++ {
		if task := ds.Task(j, trackerNow); task.Live(trackerNow) {
			break
		}
	}
	want := ds.Task(j, trackerNow)
	got := entity(t, st, "tracker/task", want.ID)
	if got == nil {
		t.Fatalf("task %s missing", want.ID)
	}
	proj := entity(t, st, "tracker/project", want.ProjectID)
	checks := map[string]any{
		"tracker.task/name":     want.Name,
		"tracker.task/priority": int64(want.Priority),
		"tracker.task/due":      want.Due.Format(time.DateOnly),
		"tracker.task/assignee": want.Assignee,
		"tracker.task/project":  map[string]any{"platform/id": proj["platform/id"]},
	}
	for k, v := range checks {
		if g := got[k]; !equalJSON(g, v) {
			t.Errorf("%s = %#v, want %#v", k, g, v)
		}
	}
	// The rich-text description is a document holding the markdown.
	docs, err := documents.NewStore(ctx, st.DB(), st.Dialect())
	if err != nil {
		t.Fatal(err)
	}
	secret := documentSecret(t, st, got["tracker.task/description"])
	md, found, err := docs.Get(ctx, secret)
	if err != nil || !found || md != want.Description {
		t.Errorf("description document: %q %v %v, want %q", md, found, err, want.Description)
	}

	// A second run 30 days later is a delta: changed tasks updated, removed
	// ones removed, nothing else touched.
	later := trackerNow.Add(30 * 24 * time.Hour)
	opts.AppURL = serveTracker(t, tracker.Config{Projects: 3, Tasks: 1200, Now: func() time.Time { return later }})
	opts.Now = func() time.Time { return later }
	opts.Account = nil // the stored account is used
	rep2, err := syncer.Run(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	live2 := 0
	for j := 1; j <= ds.Tasks; j++ {
		if task := ds.Task(j, later); task.Live(later) {
			live2++
		}
	}
	if got := teststore.Count(t, st, "tracker/task"); got != live2 {
		t.Errorf("tasks after delta: %d, want %d", got, live2)
	}
	for _, tr := range rep2.Types {
		if tr.Type == "task" && (tr.Mode != "delta" || tr.Updated == 0) {
			t.Errorf("delta report: %+v", tr)
		}
	}
	want2 := ds.Task(j, later)
	got2 := entity(t, st, "tracker/task", want2.ID)
	if want2.Live(later) && (got2 == nil || got2["tracker.task/status"] == nil) {
		t.Errorf("task after delta: %v", got2)
	}
}

func documentSecret(t testing.TB, st *store.Store, ref any) string {
	t.Helper()
	m, ok := ref.(map[string]any)
	if !ok {
		t.Fatalf("not a reference: %#v", ref)
	}
	cat, _ := st.Catalog(context.Background())
	dt := cat.Type(store.DocumentType)
	var secret string
	if err := st.DB().QueryRow(st.Dialect().Rebind("SELECT "+dt.Field(store.DocumentSecret).Col+" FROM "+dt.Table+" WHERE id = ?"), m["platform/id"]).Scan(&secret); err != nil {
		t.Fatal(err)
	}
	return secret
}

func equalJSON(a, b any) bool {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		if len(am) != len(bm) {
			return false
		}
		for k := range am {
			if !equalJSON(am[k], bm[k]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func TestAccountRejected(t *testing.T) {
	t.Parallel()
	appURL := serveTracker(t, tracker.Config{Projects: 1, Tasks: 1})
	_, err := syncer.Run(context.Background(), openStore(t), syncer.Options{AppURL: appURL, Account: map[string]string{"token": "nope"}})
	if !errors.Is(err, syncer.ErrAccountRejected) || !strings.Contains(err.Error(), "account rejected: invalid token") {
		t.Fatalf("err = %v", err)
	}
}

// Filters: a multidropdown given by the datalist's titles is sent as its
// values, a date statement as {_min, _max}; the store holds exactly the
// matching tasks.
func TestTrackerFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := tracker.Config{Projects: 4, Tasks: 900}
	appURL := serveTracker(t, cfg)
	st := openStore(t)
	ds := tracker.DatasetOf(cfg)
	p2 := ds.Project(2)
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: appURL, Account: map[string]string{"token": "demo"}, Types: []string{"task"},
		Now:    func() time.Time { return trackerNow },
		Filter: map[string][]string{"projects": {p2.Name}, "status": {"todo,doing"}, "due": {"this year"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for j := 1; j <= ds.Tasks; j++ {
		task := ds.Task(j, trackerNow)
		if task.Live(trackerNow) && task.ProjectID == p2.ID && task.Status != "done" && task.Due.Year() == trackerNow.Year() {
			want++
		}
	}
	if want == 0 {
		t.Fatal("the filter selects nothing; pick another")
	}
	if got := teststore.Count(t, st, "tracker/task"); got != want || rep.Types[0].Created != want {
		t.Errorf("%d tasks stored, %d created; want %d", got, rep.Types[0].Created, want)
	}
	_, err = syncer.Run(ctx, st, syncer.Options{AppURL: appURL, Filter: map[string][]string{"projects": {"No such project"}}})
	if !errors.Is(err, syncer.ErrFilterRejected) || !strings.Contains(err.Error(), `"No such project" is not one of the app's values`) {
		t.Errorf("unknown project: %v", err)
	}
	_, err = syncer.Run(ctx, st, syncer.Options{AppURL: appURL, Filter: map[string][]string{"due": {"next week"}}})
	if !errors.Is(err, syncer.ErrFilterRejected) || !strings.Contains(err.Error(), "filter due (Due)") {
		t.Errorf("bad date statement: %v", err)
	}
}
