package syncer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// An app as found in the wild: a descriptor without website and with extra
// keys, answers with charset, a schema with a type not asked for, data
// without pagination or synchronizationType, a relation matched on another
// field, a date range as a JSON string, an error with {message, code}, bad
// items, duplicate ids and a relation to an id that never arrives. It
// refuses requests without a filter object.
func TestWildApp(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, testWildApp)
}

func testWildApp(t *testing.T, dsn string) {
	ctx := context.Background()
	schema := `{
	 "item": {"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},
	  "done":{"id":"done","name":"Done","type":"text","subType":"boolean"},
	  "span":{"id":"span","name":"Span","type":"text","subType":"date-range"},
	  "size":{"id":"size","name":"Size","type":"number","subType":"integer"},
	  "when":{"id":"when","name":"When","type":"date"},
	  "owner":{"id":"owner","name":"Owner","type":"text","relation":{"cardinality":"many-to-one","name":"Owner","targetType":"person","targetName":"Items","targetFieldId":"email"}},
	  "helpers":{"id":"helpers","name":"Helpers","type":"array[text]","relation":{"cardinality":"many-to-many","name":"Helpers","targetType":"person","targetName":"Helps","targetFieldId":"id"}},
	  "__syncAction":{"id":"__syncAction","name":"Sync action","type":"text"}},
	 "person": {"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},"email":{"id":"email","name":"E-mail","type":"text","subType":"email"}},
	 "extra": {"id":{"id":"id","name":"ID","type":"id"}}
	}`
	items := `{"items":[
	  {"id":"i1","name":"One","done":"yes","span":"{\"start\":\"2024-01-01\",\"end\":\"2024-01-08\"}","size":3,"when":"2024-02-03T04:05:06Z","owner":"ann@example.com","helpers":["p1","p2"],"junk":{"x":1}},
	  {"id":"i2","name":"Two","done":"0","size":"4","when":"2024-02-03","owner":"nobody@example.com","helpers":["p9"]},
	  {"name":"no id"},
	  {"id":"i3","name":"Bad size","size":"big"},
	  {"id":"i1","name":"One again","done":"checked","size":5,"owner":"bob@example.com","helpers":[]},
	  7
	]}`
	people := `{"items":[{"id":"p1","name":"Ann","email":"ann@example.com"},{"id":"p2","name":"Bob","email":"bob@example.com"}],"pagination":{"hasNext":false},"synchronizationType":"full"}`
	app := newFakeApp(t, schema, func(c dataCall) (int, string) {
		if len(c.Filter) == 0 || string(c.Filter) == "null" {
			return 500, `{"message":"Cannot read properties of undefined (reading 'status')","code":"E_CRASH"}`
		}
		if c.RequestedType == "person" {
			return 200, people
		}
		return 200, items
	})
	app.set(func(a *fakeApp) {
		a.descriptor = `{"name":"Fake","version":"1","description":"d","authentication":[{"id":"none","name":"None"}],"responsibleFor":{"dataSynchronization":true},"color":"red"}`
		a.config = `{"types":[{"id":"item","name":"Items"},{"id":"person","name":"People"}],"filters":[],"extra":true}`
	})
	st := teststore.Open(t, dsn)
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL, Types: []string{"item", "person"}})
	if err != nil {
		t.Fatal(err)
	}
	warns := strings.Join(rep.Warnings, "\n")
	for _, w := range []string{"no website", "keys the protocol does not define (ignored): color", "types that were not asked for (ignored): extra"} {
		if !strings.Contains(warns, w) {
			t.Errorf("warnings lack %q:\n%s", w, warns)
		}
	}
	if rep.Space != "fake" {
		t.Errorf("space %q", rep.Space)
	}
	got := rows(t, st, "fake/item")
	want := map[string]map[string]any{
		"i1": {"name": "One again", "done": true, "size": int64(5), "owner": "p2", "helpers": nil},
		"i2": {"name": "Two", "done": false, "size": int64(4), "when": "2024-02-03T00:00:00.000Z"},
		// Kept without the value that does not fit.
		"i3": {"name": "Bad size", "size": nil},
	}
	for id, w := range want {
		g := got[id]
		for k, v := range w {
			if v == nil {
				if _, ok := g[k]; ok {
					t.Errorf("%s.%s = %v, want empty", id, k, g[k])
				}
				continue
			}
			if fmt.Sprint(g[k]) != fmt.Sprint(v) {
				t.Errorf("%s.%s = %#v, want %#v", id, k, g[k], v)
			}
		}
	}
	if len(got) != 3 {
		t.Errorf("items: %v", got)
	}
	var item *syncer.TypeReport
	for _, tr := range rep.Types {
		if tr.Type == "item" {
			item = tr
		}
	}
	if item.Status != syncer.TypeCompleted || item.Mode != "full" || item.Pages != 1 || item.Items != 6 || item.Created != 3 || item.Skipped != 2 || item.Duplicates != 1 {
		t.Errorf("item report: %+v", item)
	}
	// The values that did not come in their stated form, one line a field.
	var values []string
	for _, v := range item.Values {
		values = append(values, fmt.Sprintf("%s %s %d %s %s", v.Field, v.Outcome, v.Count, v.Example, v.Detail))
	}
	wantValues := []string{
		`size coerced 1 "4" a numeric string, read as a number`,
		`size dropped 1 "big" want an integer, got a string`,
	}
	if !reflect.DeepEqual(values, wantValues) {
		t.Errorf("values:\n%s\nwant\n%s", strings.Join(values, "\n"), strings.Join(wantValues, "\n"))
	}
	problems := strings.Join(item.Problems, "\n")
	for _, p := range []string{"no id", "not an object", `"i1" sent twice`, `item "i2": owner: the app never sent person with email "nobody@example.com"`, `item "i2": helpers: the app never sent person "p9"`} {
		if !strings.Contains(problems, p) {
			t.Errorf("problems lack %q:\n%s", p, problems)
		}
	}
	// The many-to-many relation: the duplicate i1, which won, has none.
	if n := links(t, st, "fake/item", "fake.item/helpers"); n != 0 {
		t.Errorf("%d helper links, want 0", n)
	}
	// The date range of the first i1 was replaced by the duplicate: check
	// the conversion on its own.
	app.set(func(a *fakeApp) {
		a.data = func(c dataCall) (int, string) {
			if c.RequestedType == "person" {
				return 200, people
			}
			return 200, `{"items":[{"id":"i1","name":"One","span":"{\"start\":\"2024-01-01\",\"end\":\"2024-01-08\"}","owner":"ann@example.com","helpers":["p1","p2"]}]}`
		}
	})
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	got = rows(t, st, "fake/item")
	if len(got) != 1 || fmt.Sprint(got["i1"]["span"]) != fmt.Sprint(map[string]any{"start": "2024-01-01", "end": "2024-01-07"}) || got["i1"]["owner"] != "p1" {
		t.Errorf("after the second run: %v", got)
	}
	if n := links(t, st, "fake/item", "fake.item/helpers"); n != 2 {
		t.Errorf("%d helper links, want 2", n)
	}
	calls := app.dataCalls()
	last := calls[len(calls)-1]
	if string(last.Filter) != "{}" || last.OperationID == "" || last.LastSynchronizedAt == nil {
		t.Errorf("last data call: %+v", last)
	}
}

// hangStatus, answered by a fail function of pagedApp, makes the app keep
// the request unanswered until the engine gives up on it.
const hangStatus = -1

// pagedApp serves n items of type "item" in pages of size, with a numeric
// cursor, answering full; fail decides per call whether to misbehave.
func pagedApp(t testing.TB, n, size int, fail func(page, call int) (int, string, bool)) *fakeApp {
	schema := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`
	calls := map[int]int{}
	var mu sync.Mutex
	app := newFakeApp(t, schema, func(c dataCall) (int, string) {
		var cur struct{ Next int }
		json.Unmarshal(c.Pagination, &cur)
		page := cur.Next / size
		mu.Lock()
		calls[page]++
		call := calls[page]
		mu.Unlock()
		if fail != nil {
			if status, body, ok := fail(page, call); ok {
				if status == hangStatus {
					// No answer until the engine gives up (or a generous bound).
					select {
					case <-c.ctx.Done():
					case <-time.After(time.Minute):
					}
				}
				return status, body
			}
		}
		var items []map[string]any
		for i := cur.Next; i < min(cur.Next+size, n); i++ {
			items = append(items, map[string]any{"id": fmt.Sprint("i", i), "name": fmt.Sprint("Item ", i)})
		}
		resp := map[string]any{"items": items, "synchronizationType": "full",
			"pagination": map[string]any{"hasNext": cur.Next+size < n, "nextPageConfig": map[string]any{"Next": cur.Next + size}}}
		b, _ := json.Marshal(resp)
		return 200, string(b)
	})
	return app
}

func names(t testing.TB, m map[string]map[string]any) []string {
	var out []string
	for id := range m {
		out = append(out, id)
	}
	return sortedCopy(out)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func itemIDs(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprint("i", i))
	}
	return sortedCopy(out)
}

// tryLater on page 2 beyond the retry bound pauses the run; the next run
// resumes from page 2 with the same operation id, and only then are the
// entities the run did not deliver removed.
func TestTryLaterPausesAndResumes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	// A first good run with 5 items.
	app := pagedApp(t, 5, 2, nil)
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL, Retry: fastRetry}); err != nil {
		t.Fatal(err)
	}
	// Now 3 items; page 1 (the second) answers tryLater for a while.
	var broken atomic.Bool
	broken.Store(true)
	app2 := pagedApp(t, 3, 2, func(page, call int) (int, string, bool) {
		if page == 1 && broken.Load() {
			return 503, `{"message":"rate limited upstream","tryLater":true}`, true
		}
		return 0, "", false
	})
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app2.srv.URL, Retry: fastRetry})
	if !errors.Is(err, syncer.ErrPaused) || !strings.Contains(err.Error(), "rate limited upstream") {
		t.Fatalf("err = %v", err)
	}
	if n := len(app2.dataCalls()); n != 1+fastRetry.Attempts {
		t.Errorf("%d data calls, want 1 + %d attempts", n, fastRetry.Attempts)
	}
	// Nothing removed yet: the last good run's 5 items are all there.
	if got := names(t, rows(t, st, "fake/item")); !reflect.DeepEqual(got, itemIDs(0, 5)) {
		t.Errorf("after the paused run: %v", got)
	}
	broken.Store(false)
	rep2, err := syncer.Run(ctx, st, syncer.Options{AppURL: app2.srv.URL, Retry: fastRetry})
	if err != nil {
		t.Fatal(err)
	}
	if !rep2.Resumed || rep2.OperationID != rep.OperationID {
		t.Errorf("resumed %v, operation %s then %s", rep2.Resumed, rep.OperationID, rep2.OperationID)
	}
	calls := app2.dataCalls()
	resumed := calls[1+fastRetry.Attempts]
	if string(resumed.Pagination) != `{"Next":2}` || resumed.OperationID != rep.OperationID {
		t.Errorf("the resumed run asked for %s (operation %s)", resumed.Pagination, resumed.OperationID)
	}
	if got := names(t, rows(t, st, "fake/item")); !reflect.DeepEqual(got, itemIDs(0, 3)) {
		t.Errorf("after the resumed run: %v", got)
	}
	// The 3 items kept come with the values they had: unchanged.
	if tr := rep2.Types[0]; tr.Removed != 2 || tr.Pages != 2 || tr.Created != 0 || tr.Updated != 0 || tr.Unchanged != 3 {
		t.Errorf("resumed report: %+v", tr)
	}
}

// A 500 mid-run, malformed JSON and an app that never answers fail the run
// (the last two after retries); the last good data stays.
func TestFailedRunKeepsData(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fail    func(page, call int) (int, string, bool)
		timeout time.Duration
		want    string
		paused  bool
	}{
		{"500", func(page, call int) (int, string, bool) { return 500, `{"message":"boom","code":42}`, page == 1 }, 0, "boom (code 42)", true},
		{"malformed", func(page, call int) (int, string, bool) { return 200, `{"items":[{"id":`, page == 1 }, 0, "malformed JSON", false},
		{"400", func(page, call int) (int, string, bool) { return 400, `not json`, page == 1 }, 0, "400: Bad Request", false},
		{"slow", func(page, call int) (int, string, bool) { return hangStatus, "", page == 1 }, time.Second, "no answer within 1s", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := openStore(t)
			if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: pagedApp(t, 5, 2, nil).srv.URL}); err != nil {
				t.Fatal(err)
			}
			_, err := syncer.Run(ctx, st, syncer.Options{AppURL: pagedApp(t, 3, 2, tc.fail).srv.URL, Retry: fastRetry, RequestTimeout: tc.timeout})
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, syncer.ErrPaused) != tc.paused {
				t.Fatalf("err = %v, want %q (paused %v)", err, tc.want, tc.paused)
			}
			got := rows(t, st, "fake/item")
			if !reflect.DeepEqual(names(t, got), itemIDs(0, 5)) {
				t.Errorf("after the failed run: %v", got)
			}
		})
	}
}

// Delta pages: SET with a partial item leaves the other fields alone,
// REMOVE deletes; an unknown action is skipped.
func TestDelta(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},"size":{"id":"size","name":"Size","type":"number"}}}`
	page := `{"items":[{"id":"a","name":"A","size":1},{"id":"b","name":"B","size":2},{"id":"c","name":"C","size":3}],"synchronizationType":"full"}`
	app := newFakeApp(t, schema, func(c dataCall) (int, string) { return 200, page })
	st := openStore(t)
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	app.set(func(a *fakeApp) {
		a.data = func(c dataCall) (int, string) {
			return 200, `{"items":[{"id":"a","size":10,"__syncAction":"SET"},{"id":"b","__syncAction":"REMOVE"},{"id":"zz","__syncAction":"REMOVE"},{"id":"d","name":"D","__syncAction":"SET"},{"id":"c","__syncAction":"FROB"},{"id":"e","name":"E","__syncAction":"SET"},{"id":"e","__syncAction":"REMOVE"},{"id":"c","__syncAction":"REMOVE"},{"id":"c","name":"C2","__syncAction":"SET"}],"synchronizationType":"delta","pagination":{"hasNext":false}}`
		}
	})
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	got := rows(t, st, "fake/item")
	want := map[string]map[string]any{"a": {"name": "A", "size": "10"}, "c": {"name": "C2", "size": "3"}, "d": {"name": "D"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after delta:\n got %v\nwant %v", got, want)
	}
	if tr := rep.Types[0]; tr.Mode != "delta" || tr.Created != 1 || tr.Updated != 2 || tr.Removed != 1 || tr.Skipped != 1 {
		t.Errorf("delta report: %+v", tr)
	}
}

// A run with another filter (or other types) than the last successful one
// starts without lastSynchronizedAt; the same selection sends it.
func TestSelectionChangeResetsDelta(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`
	app := newFakeApp(t, schema, func(c dataCall) (int, string) { return 200, `{"items":[{"id":"a","name":"A"}]}` })
	app.set(func(a *fakeApp) {
		a.config = `{"types":[{"id":"item","name":"Items"}],"filters":[{"id":"q","title":"Query","type":"text","optional":true}]}`
	})
	st := openStore(t)
	for i, f := range []string{"x", "x", "y", "y"} {
		if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL, Filter: map[string][]string{"q": {f}}}); err != nil {
			t.Fatal(err)
		}
		calls := app.dataCalls()
		c := calls[len(calls)-1]
		if (c.LastSynchronizedAt != nil) != (i%2 == 1) || string(c.Filter) != `{"q":"`+f+`"}` {
			t.Errorf("run %d: lastSynchronizedAt %v, filter %s", i+1, c.LastSynchronizedAt, c.Filter)
		}
	}
	// Without a filter, the remembered one is used.
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	calls := app.dataCalls()
	if c := calls[len(calls)-1]; c.LastSynchronizedAt == nil || string(c.Filter) != `{"q":"y"}` {
		t.Errorf("remembered filter: lastSynchronizedAt %v, filter %s", c.LastSynchronizedAt, c.Filter)
	}
}

// Two runs of one app into one store at once: the second is refused.
func TestConcurrentRunsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	app := pagedApp(t, 1, 2, func(page, call int) (int, string, bool) {
		once.Do(func() { close(entered); <-release })
		return 0, "", false
	})
	st := openStore(t)
	done := make(chan error, 1)
	go func() {
		_, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
		done <- err
	}()
	<-entered
	_, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
	close(release)
	if !errors.Is(err, syncer.ErrBusy) {
		t.Errorf("second run: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("first run: %v", err)
	}
}

// Descriptors the service could not use are refused with the reason.
func TestDescriptorRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ descriptor, want string }{
		{`{"version":"1","authentication":[{"id":"none","name":"None"}]}`, "app refused: GET /: the descriptor has no name"},
		{`{"name":"X","authentication":[]}`, "app refused: GET /: the descriptor declares no authentication"},
		{`{"name":"X","authentication":[{"name":"no id"}]}`, "app refused: GET /: authentication 1 has no id"},
		{`{"name":"X","authentication":"token"}`, "app refused: GET /: the descriptor does not parse"},
		{`<html>`, "app refused: GET /: 200: malformed JSON"},
	} {
		app := newFakeApp(t, `{}`, nil)
		app.set(func(a *fakeApp) { a.descriptor = tc.descriptor })
		_, err := syncer.Run(context.Background(), openStore(t), syncer.Options{AppURL: app.srv.URL})
		if !errors.Is(err, syncer.ErrRefused) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.descriptor, err, tc.want)
		}
	}
	_, err := syncer.Run(context.Background(), openStore(t), syncer.Options{AppURL: "http://127.0.0.1:1", Retry: fastRetry})
	if err == nil || !strings.HasPrefix(err.Error(), "cannot reach the app: GET /: ") {
		t.Errorf("nothing listening: %v", err)
	}
}

// A relation of a type to itself (a task's parent), whatever the order the
// items arrive in.
func TestSelfRelation(t *testing.T) {
	t.Parallel()
	schema := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},
	  "parent":{"id":"parent","name":"Parent","type":"text","relation":{"cardinality":"many-to-one","name":"Parent","targetType":"item","targetName":"Children","targetFieldId":"id"}}}}`
	app := newFakeApp(t, schema, func(c dataCall) (int, string) {
		return 200, `{"items":[{"id":"c","name":"C","parent":"b"},{"id":"b","name":"B","parent":"a"},{"id":"a","name":"A"}]}`
	})
	st := openStore(t)
	if _, err := syncer.Run(context.Background(), st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	got := rows(t, st, "fake/item")
	want := map[string]map[string]any{"a": {"name": "A"}, "b": {"name": "B", "parent": "a"}, "c": {"name": "C", "parent": "b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	cat, _ := st.Catalog(context.Background())
	if f := cat.Type("fake/item").Field("fake.item/children"); f == nil || !f.Collection {
		t.Errorf("no children collection: %v", cat.Type("fake/item").Fields)
	}
}
