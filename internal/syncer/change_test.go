package syncer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// A changed schema: a field whose id changed (same name and type) is
// renamed, a field the app no longer sends is retired, a field whose type
// changed is kept under a retired name next to the new one, a new field is
// added; no value is lost.
func TestSchemaChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema1 := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},
	  "old":{"id":"old","name":"Colour","type":"text"},"gone":{"id":"gone","name":"Gone","type":"text"},"kind":{"id":"kind","name":"Kind","type":"text"}}}`
	schema2 := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},
	  "colour":{"id":"colour","name":"Colour","type":"text"},"kind":{"id":"kind","name":"Kind","type":"number"},"extra":{"id":"extra","name":"Extra","type":"text"}}}`
	page := `{"items":[{"id":"a","name":"A","old":"red","gone":"x","kind":"3"},{"id":"b","name":"B","old":"green"}]}`
	app := newFakeApp(t, schema1, func(c dataCall) (int, string) { return 200, page })
	st := openStore(t)
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	app.set(func(a *fakeApp) { a.schema = schema2 })
	app.set(func(a *fakeApp) {
		a.data = func(c dataCall) (int, string) {
			return 200, `{"items":[{"id":"a","name":"A","colour":"blue","kind":4,"extra":"e"},{"id":"b","name":"B"}]}`
		}
	})
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	wantChanges := []string{
		`renamed field fake.item/old to fake.item/colour (the app renamed "old" to "colour"; values kept)`,
		`added field fake.item/extra (text)`,
		`retired field fake.item/kind as fake.item/kind~text (its type changed to decimal; values kept)`,
		`added field fake.item/kind (decimal)`,
		`retired field fake.item/gone (the app no longer sends "gone"; values kept)`,
	}
	if !reflect.DeepEqual(rep.SchemaChanges, wantChanges) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(rep.SchemaChanges, "\n"), strings.Join(wantChanges, "\n"))
	}
	got := rows(t, st, "fake/item")
	want := map[string]map[string]any{
		"a": {"name": "A", "colour": "blue", "gone": "x", "kind~text": "3", "kind": "4", "extra": "e"},
		"b": {"name": "B"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entities:\n got %v\nwant %v", got, want)
	}
	// A third run with the same schema changes nothing.
	before, _ := st.Catalog(ctx)
	rep, err = syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
	after, _ := st.Catalog(ctx)
	if err != nil || len(rep.SchemaChanges) != 0 || after.Version != before.Version {
		t.Errorf("third run: %v %v, catalog version %d -> %d", rep.SchemaChanges, err, before.Version, after.Version)
	}
	// What the app says for display follows it: a new label and order.
	app.set(func(a *fakeApp) {
		a.schema = strings.Replace(schema2, `"name":"Extra","type":"text"`, `"name":"More","type":"text","order":3,"ignore":true`, 1)
	})
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	cat, _ := st.Catalog(ctx)
	m := cat.Type("fake/item").Field("fake.item/extra").Meta
	if m["ui/label"] != "More" || fmt.Sprint(m["ui/order"]) != "3" || m["ui/hidden?"] != true {
		t.Errorf("meta %v", m)
	}
}

// OAuth tokens given once are refreshed through /validate before every run;
// the refreshed tokens are stored and sent with the data requests.
func TestOAuthRefresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`
	var seen []string
	var mu sync.Mutex
	app := newFakeApp(t, schema, func(c dataCall) (int, string) {
		mu.Lock()
		seen = append(seen, fmt.Sprint("data:", c.Account["access_token"], ",auth:", c.Account["auth"]))
		mu.Unlock()
		return 200, `{"items":[{"id":"a","name":"A"}]}`
	})
	n := 0
	app.set(func(a *fakeApp) {
		a.descriptor = `{"name":"Fake","website":"w","version":"1","description":"d","responsibleFor":{"dataSynchronization":true},
		  "authentication":[{"id":"oauth2","name":"OAuth","fields":[{"id":"oauth","name":"Sign in","type":"oauth","description":""}]}]}`
		a.validate = func(fields map[string]any) (int, string) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, fmt.Sprint("validate:", fields["access_token"], ",", fields["refresh_token"]))
			if fields["refresh_token"] != "r0" {
				return 401, `{"message":"refresh token revoked"}`
			}
			n++
			return 200, fmt.Sprintf(`{"name":"me","access_token":"a%d","expire_on":"2030-01-01T00:00:00Z"}`, n)
		}
	})
	st := openStore(t)
	opts := syncer.Options{AppURL: app.srv.URL, Account: map[string]string{"access_token": "a0", "refresh_token": "r0"}}
	if _, err := syncer.Run(ctx, st, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	want := []string{"validate:a0,r0", "data:a1,auth:oauth2", "validate:a1,r0", "data:a2,auth:oauth2"}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("calls %v, want %v", seen, want)
	}
	_, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL, Account: map[string]string{"refresh_token": "bad"}})
	if err == nil || err.Error() != "account rejected: refresh token revoked" {
		t.Errorf("err = %v", err)
	}
}

// The child half of TestKillMidRun: a sync run in its own process.
func TestKillMidRunChild(t *testing.T) {
	dsn, url := os.Getenv("APPKIT_SYNC_CHILD_DSN"), os.Getenv("APPKIT_SYNC_CHILD_APP")
	if dsn == "" {
		t.Skip("run by TestKillMidRun")
	}
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	_, err = syncer.Run(context.Background(), st, syncer.Options{AppURL: url, CommitItems: 1}) // a commit per page
	t.Fatalf("the run was not killed: %v", err)
}

// A kill -9 of the syncing process mid-run loses nothing: the next run
// resumes from the last page committed and ends with exactly the app's data.
func TestKillMidRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a process")
	}
	testkit.EachSharedStore(t, testKillMidRun) // SQLite in a file the child opens too
}

func testKillMidRun(t *testing.T, dsn string) {
	ctx := context.Background()
	const n, size = 9, 2
	hang := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	blocking := true
	var mu sync.Mutex
	app := pagedApp(t, n, size, func(page, call int) (int, string, bool) {
		mu.Lock()
		b := blocking
		mu.Unlock()
		if page == 3 && b {
			once.Do(func() { close(hang) })
			<-release
			return 503, `{"message":"gone"}`, true
		}
		return 0, "", false
	})
	defer close(release)
	child := testkit.StartChild(t, "the child run's output", "TestKillMidRunChild", "APPKIT_SYNC_CHILD_DSN="+dsn, "APPKIT_SYNC_CHILD_APP="+app.srv.URL)
	select {
	case <-hang:
	case <-time.After(30 * time.Second):
		t.Fatal("the child never reached page 4")
	}
	child.Kill() // SIGKILL
	mu.Lock()
	blocking = false
	mu.Unlock()
	before := len(app.dataCalls())
	st := teststore.Open(t, dsn)
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Resumed {
		t.Errorf("the run was not resumed: %+v", rep)
	}
	first := app.dataCalls()[before]
	var cur struct{ Next int }
	if err := json.Unmarshal(first.Pagination, &cur); err != nil || cur.Next < 2*size || cur.Next > 3*size {
		t.Errorf("the resumed run started at %s, want page 3 or 4", first.Pagination)
	}
	if got := names(t, rows(t, st, "fake/item")); !reflect.DeepEqual(got, itemIDs(0, n)) {
		t.Errorf("after the resumed run: %v", got)
	}
	if tr := rep.Types[0]; tr.Pages != 5 || tr.Items != n || tr.Created != n {
		t.Errorf("report: %+v", tr)
	}
}
