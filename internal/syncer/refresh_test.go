package syncer_test

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// lastSyncOf is whether the last data call for type typ carried
// lastSynchronizedAt.
func lastSyncOf(t *testing.T, app *fakeApp, typ string) bool {
	t.Helper()
	calls := callsOf(app, typ)
	if len(calls) == 0 {
		t.Fatalf("no call for %s", typ)
	}
	return calls[len(calls)-1].LastSynchronizedAt != nil
}

// Options.Full asks every type without lastSynchronizedAt, so a full answer
// removes what the app no longer has, even after delta runs.
func TestFullRefresh(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		var mu sync.Mutex
		items := []string{"a1", "a2"}
		app := multiTypeApp(t, func(c dataCall) (int, string, bool) {
			if c.RequestedType != "a" {
				return 0, "", false
			}
			mu.Lock()
			defer mu.Unlock()
			if c.LastSynchronizedAt != nil {
				return 200, `{"items":[],"synchronizationType":"delta"}`, true
			}
			return 200, pageOf(0, items...), true
		})
		st := teststore.Open(t, dsn)
		for range 2 {
			if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
				t.Fatal(err)
			}
		}
		if !lastSyncOf(t, app, "a") {
			t.Fatal("the second run was not a delta")
		}
		mu.Lock()
		items = []string{"a1"}
		mu.Unlock()
		if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
			t.Fatal(err)
		}
		if got := names(t, rows(t, st, "fake/a")); !reflect.DeepEqual(got, []string{"a1", "a2"}) {
			t.Fatalf("a delta run removed something: %v", got)
		}
		rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL, Full: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range []string{"a", "b", "c", "d"} {
			if lastSyncOf(t, app, typ) {
				t.Errorf("the full run asked %s with lastSynchronizedAt", typ)
			}
		}
		if a := reportOf(t, rep, "a"); a.Mode != "full" || a.Removed != 1 {
			t.Errorf("a: %+v", a)
		}
		if got := names(t, rows(t, st, "fake/a")); !reflect.DeepEqual(got, []string{"a1"}) {
			t.Errorf("after the full run a holds %v", got)
		}
	})
}

// A type whose schema gained fields is asked for in full by the next run
// (its entities would keep the new fields empty under a delta); the
// others keep their delta.
func TestSchemaGainedFieldsAskedInFull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app := multiTypeApp(t, func(dataCall) (int, string, bool) { return 0, "", false })
	st := openStore(t)
	for range 2 {
		if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
			t.Fatal(err)
		}
	}
	if !lastSyncOf(t, app, "b") || !lastSyncOf(t, app, "c") {
		t.Fatal("the second run was not a delta")
	}
	schema := typesSchema("a", "b", "c", "d")
	schema = strings.Replace(schema, `"b":{`, `"b":{"prio":{"id":"prio","name":"Priority","type":"number"},`, 1)
	app.set(func(a *fakeApp) { a.schema = schema })
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	if lastSyncOf(t, app, "b") {
		t.Error("the type that gained a field was asked with lastSynchronizedAt")
	}
	for _, typ := range []string{"a", "c", "d"} {
		if !lastSyncOf(t, app, typ) {
			t.Errorf("%s lost its delta", typ)
		}
	}
	// The run after is a delta again.
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	if !lastSyncOf(t, app, "b") {
		t.Error("b stays full")
	}
}

// A field whose name (its label) changed is reported as relabelled: GraphQL
// and the console name the field after it.
func TestRelabelReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app := multiTypeApp(t, func(dataCall) (int, string, bool) { return 0, "", false })
	st := openStore(t)
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	schema := strings.Replace(typesSchema("a", "b", "c", "d"), `"b":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name"`, `"b":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Title"`, 1)
	app.set(func(a *fakeApp) { a.schema = schema })
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	want := `relabelled field fake.b/name: "Name" → "Title"`
	if got := strings.Join(rep.SchemaChanges, "\n"); !strings.Contains(got, want) {
		t.Errorf("schema changes %q lack %q", got, want)
	}
	if len(rep.SchemaChanges) != 1 {
		t.Errorf("schema changes: %q", rep.SchemaChanges)
	}
}
