package syncer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// typesSchema is the schema of plain types (id and name) by type id.
func typesSchema(types ...string) string {
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf(`%q:{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}`, t)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// pageOf is a full data page of items with these ids, and a next cursor
// {"p": next} when next > 0.
func pageOf(next int, ids ...string) string {
	items := make([]string, len(ids))
	for i, id := range ids {
		items[i] = fmt.Sprintf(`{"id":%q,"name":"Name of %s"}`, id, id)
	}
	pag := `{"hasNext":false}`
	if next > 0 {
		pag = fmt.Sprintf(`{"hasNext":true,"nextPageConfig":{"p":%d}}`, next)
	}
	return fmt.Sprintf(`{"items":[%s],"pagination":%s,"synchronizationType":"full"}`, strings.Join(items, ","), pag)
}

// cursorPage is the page number a data call asks for (1 without a cursor).
func cursorPage(c dataCall) int {
	var p struct{ P int }
	if json.Unmarshal(c.Pagination, &p) != nil || p.P == 0 {
		return 1
	}
	return p.P
}

// multiTypeApp serves types a, b, c and d; fail, when it answers, takes
// over a call.
func multiTypeApp(t *testing.T, fail func(c dataCall) (int, string, bool)) *fakeApp {
	types := []string{"a", "b", "c", "d"}
	app := newFakeApp(t, typesSchema(types...), func(c dataCall) (int, string) {
		if status, body, ok := fail(c); ok {
			return status, body
		}
		return 200, pageOf(0, c.RequestedType+"1", c.RequestedType+"2")
	})
	app.set(func(a *fakeApp) {
		a.config = `{"types":[{"id":"a","name":"A"},{"id":"b","name":"B"},{"id":"c","name":"C"},{"id":"d","name":"D"}]}`
	})
	return app
}

// reportOf is the report of type t.
func reportOf(t *testing.T, rep *syncer.Report, typ string) *syncer.TypeReport {
	t.Helper()
	for _, tr := range rep.Types {
		if tr.Type == typ {
			return tr
		}
	}
	t.Fatalf("no report of type %s", typ)
	return nil
}

// failedTypes are the ids of the failed types of a report.
func failedTypes(rep *syncer.Report) []string {
	var out []string
	for _, tr := range rep.Failed() {
		out = append(out, tr.Type)
	}
	return out
}

// callsOf are the data calls for type typ.
func callsOf(app *fakeApp, typ string) []dataCall {
	var out []dataCall
	for _, c := range app.dataCalls() {
		if c.RequestedType == typ {
			out = append(out, c)
		}
	}
	return out
}

// Values sent as apps for the service send them (locale date strings,
// Markdown as an array of strings, numbers in text, numeric strings) are
// kept, converted, and counted once per field with an example.
func TestLenientValuesKept(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		schema := `{"post":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},
		  "at":{"id":"at","name":"At","type":"date"},"body":{"id":"body","name":"Body","type":"text","subType":"md"},
		  "count":{"id":"count","name":"Count","type":"number"},"code":{"id":"code","name":"Code","type":"text"}}}`
		const n = 250
		var items []string
		for i := range n {
			items = append(items, fmt.Sprintf(`{"id":"p%d","name":7,"at":"11/14/2023, 10:13 PM","body":["# Title","text"],"count":"12.5","code":"x%d"}`, i, i))
		}
		app := newFakeApp(t, schema, func(c dataCall) (int, string) {
			return 200, `{"items":[` + strings.Join(items, ",") + `],"synchronizationType":"full"}`
		})
		app.set(func(a *fakeApp) { a.config = `{"types":[{"id":"post","name":"Posts"}]}` })
		st := teststore.Open(t, dsn)
		rep, err := syncer.Run(context.Background(), st, syncer.Options{AppURL: app.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		tr := reportOf(t, rep, "post")
		if tr.Status != syncer.TypeCompleted || tr.Created != n || tr.Skipped != 0 {
			t.Fatalf("report %+v", tr)
		}
		got := map[string]string{}
		for _, v := range tr.Values {
			got[v.Field+" "+v.Outcome] = fmt.Sprintf("%d %s: %s", v.Count, v.Example, v.Detail)
		}
		want := map[string]string{
			"at coerced":    `250 "11/14/2023, 10:13 PM": a month-first locale date-time (M/D/YYYY[, h:mm[:ss] AM/PM]), read as UTC`,
			"body coerced":  `250 ["# Title","text"]: an array of strings, joined with newlines`,
			"count coerced": `250 "12.5": a numeric string, read as a number`,
			"name coerced":  `250 7: a number or boolean, kept as its JSON text`,
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("values %v\nwant %v", got, want)
		}
		r := rows(t, st, "fake/post")["p3"]
		if fmt.Sprint(r["at"]) != "2023-11-14T22:13:00.000Z" || fmt.Sprint(r["name"]) != "7" || fmt.Sprint(r["count"]) != "12.5" {
			t.Errorf("p3 = %v", r)
		}
		if len(rows(t, st, "fake/post")) != n {
			t.Errorf("%d posts stored", len(rows(t, st, "fake/post")))
		}
	})
}

// A type whose pages are malformed fails alone: the other types complete
// in every run; it is resumed at the page it failed at, and after failing
// there three runs in a row it starts over from its first page.
func TestFailingTypeFailsAlone(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		app := multiTypeApp(t, func(c dataCall) (int, string, bool) {
			if c.RequestedType != "b" {
				return 0, "", false
			}
			if cursorPage(c) == 1 {
				return 200, pageOf(2, "b1", "b2"), true
			}
			return 200, `{"items":{"b3":{"id":"b3"}},"pagination":{"hasNext":false}}`, true
		})
		st := teststore.Open(t, dsn)
		for run := 1; run <= 4; run++ {
			before := len(callsOf(app, "b"))
			rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
			if !errors.Is(err, syncer.ErrPartial) || !strings.Contains(err.Error(), "type b") {
				t.Fatalf("run %d: err = %v", run, err)
			}
			if got := failedTypes(rep); !reflect.DeepEqual(got, []string{"b"}) {
				t.Fatalf("run %d: failed %v", run, got)
			}
			b := reportOf(t, rep, "b")
			if !strings.Contains(b.Error, "items is an object, not an array") {
				t.Errorf("run %d: b's reason %q", run, b.Error)
			}
			if startsOver := strings.Contains(b.Error, "starts this type over"); startsOver != (run == 3) {
				t.Errorf("run %d: b's reason %q", run, b.Error)
			}
			for _, typ := range []string{"a", "c", "d"} {
				if tr := reportOf(t, rep, typ); tr.Status != syncer.TypeCompleted {
					t.Errorf("run %d: %s %+v", run, typ, tr)
				}
				if got := names(t, rows(t, st, "fake/"+typ)); !reflect.DeepEqual(got, []string{typ + "1", typ + "2"}) {
					t.Errorf("run %d: %s holds %v", run, typ, got)
				}
			}
			// Runs 2 and 3 resume b at page 2; runs 1 and 4 begin it at
			// page 1 (4: after three failures at page 2).
			first := callsOf(app, "b")[before]
			if want := map[int]int{1: 1, 2: 2, 3: 2, 4: 1}[run]; cursorPage(first) != want {
				t.Errorf("run %d: b asked first for page %d, want %d", run, cursorPage(first), want)
			}
			if got := names(t, rows(t, st, "fake/b")); !reflect.DeepEqual(got, []string{"b1", "b2"}) {
				t.Errorf("run %d: b holds %v", run, got)
			}
		}
	})
}

// A type carried from a failed run removes, when it completes, only what
// its whole attempt did not deliver: the items of its pages written in the
// earlier run stay. Until it completes, it removes nothing.
func TestCarriedTypeRemovesOnlyWhatItsAttemptMissed(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		var mu sync.Mutex
		phase := 1
		app := multiTypeApp(t, func(c dataCall) (int, string, bool) {
			if c.RequestedType != "b" {
				return 0, "", false
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case phase == 1 && cursorPage(c) == 1:
				return 200, pageOf(2, "b0", "b1"), true
			case phase == 1:
				return 200, pageOf(0, "b2", "b3"), true
			case cursorPage(c) == 1:
				return 200, pageOf(2, "b0", "b1"), true
			case phase == 2:
				return 400, `{"message":"bad cursor"}`, true
			default:
				return 200, pageOf(0, "b2"), true
			}
		})
		st := teststore.Open(t, dsn)
		if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		phase = 2
		mu.Unlock()
		rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
		if !errors.Is(err, syncer.ErrPartial) || !strings.Contains(reportOf(t, rep, "b").Error, "bad cursor") {
			t.Fatalf("err = %v", err)
		}
		if got := names(t, rows(t, st, "fake/b")); !reflect.DeepEqual(got, []string{"b0", "b1", "b2", "b3"}) {
			t.Errorf("after the failed run b holds %v", got)
		}
		mu.Lock()
		phase = 3
		mu.Unlock()
		rep, err = syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if b := reportOf(t, rep, "b"); b.Status != syncer.TypeCompleted || b.Removed != 1 || b.Pages != 2 {
			t.Errorf("b: %+v", b)
		}
		if got := names(t, rows(t, st, "fake/b")); !reflect.DeepEqual(got, []string{"b0", "b1", "b2"}) {
			t.Errorf("after the resumed run b holds %v", got)
		}
	})
}

// A cursor that repeats, or a page repeating an earlier page's ids with a
// fresh cursor, fails that type at once; the others complete, and its next
// run starts it over.
func TestPagingThatGoesBackFailsTheTypeAlone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		page func(c dataCall) string
		want string
	}{
		{"cursor", func(c dataCall) string { return pageOf(7, fmt.Sprint("a", cursorPage(c))) }, "nextPageConfig it had already sent"},
		{"page", func(c dataCall) string { return pageOf(cursorPage(c)+1, "a1", "a2") }, "ids are exactly those of page 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			app := multiTypeApp(t, func(c dataCall) (int, string, bool) {
				if c.RequestedType != "a" {
					return 0, "", false
				}
				return 200, tc.page(c), true
			})
			st := openStore(t)
			rep, err := syncer.Run(context.Background(), st, syncer.Options{AppURL: app.srv.URL})
			if !errors.Is(err, syncer.ErrPartial) {
				t.Fatalf("err = %v", err)
			}
			a := reportOf(t, rep, "a")
			if a.Status != syncer.TypeFailed || !strings.Contains(a.Error, tc.want) {
				t.Errorf("a: %+v", a)
			}
			if n := len(callsOf(app, "a")); n > 3 {
				t.Errorf("%d calls for a: it should stop at the first page that goes back", n)
			}
			for _, typ := range []string{"b", "c", "d"} {
				if tr := reportOf(t, rep, typ); tr.Status != syncer.TypeCompleted || tr.Created != 2 {
					t.Errorf("%s: %+v", typ, tr)
				}
			}
			before := len(callsOf(app, "a"))
			if _, err := syncer.Run(context.Background(), st, syncer.Options{AppURL: app.srv.URL}); !errors.Is(err, syncer.ErrPartial) {
				t.Fatal(err)
			}
			if p := cursorPage(callsOf(app, "a")[before]); p != 1 {
				t.Errorf("the next run asked a for page %d, want 1", p)
			}
		})
	}
}

// A schema the app refuses for one type (the request for all the selected
// types fails, and so does that type's own) fails that type alone.
func TestRefusedSchemaFailsTheTypeAlone(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		app := multiTypeApp(t, func(dataCall) (int, string, bool) { return 0, "", false })
		var mu sync.Mutex
		var asked [][]string
		app.set(func(a *fakeApp) {
			a.schemaFor = func(types []string) (int, string) {
				mu.Lock()
				asked = append(asked, types)
				mu.Unlock()
				for _, t := range types {
					if t == "c" {
						return 500, `{"message":"no table for c"}`
					}
				}
				return 200, typesSchema(types...)
			}
		})
		st := teststore.Open(t, dsn)
		rep, err := syncer.Run(context.Background(), st, syncer.Options{AppURL: app.srv.URL, Retry: fastRetry})
		if !errors.Is(err, syncer.ErrPartial) {
			t.Fatalf("err = %v", err)
		}
		if got := failedTypes(rep); !reflect.DeepEqual(got, []string{"c"}) || !strings.Contains(reportOf(t, rep, "c").Error, "no table for c") {
			t.Fatalf("failed %v: %+v", got, reportOf(t, rep, "c"))
		}
		for _, typ := range []string{"a", "b", "d"} {
			if got := names(t, rows(t, st, "fake/"+typ)); len(got) != 2 {
				t.Errorf("%s holds %v", typ, got)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		var singles []string
		for _, a := range asked {
			if len(a) == 1 {
				singles = append(singles, a[0])
			}
		}
		sort.Strings(singles)
		singles = compactStrings(singles)
		if !reflect.DeepEqual(singles, []string{"a", "b", "c", "d"}) {
			t.Errorf("types asked for alone: %v", singles)
		}
		if len(callsOf(app, "c")) != 0 {
			t.Errorf("data of c asked for without its schema")
		}
	})
}

func compactStrings(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || s[i-1] != x {
			out = append(out, x)
		}
	}
	return out
}

// A type that delivers items and stores none is a failure, not a success:
// and it removes nothing.
func TestTypeThatStoredNothingFails(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	noIDs := false
	app := multiTypeApp(t, func(c dataCall) (int, string, bool) {
		mu.Lock()
		defer mu.Unlock()
		if c.RequestedType == "a" && noIDs {
			return 200, `{"items":[{"name":"x"},{"name":"y"},{"id":{"n":1}}],"synchronizationType":"full"}`, true
		}
		return 0, "", false
	})
	st := openStore(t)
	ctx := context.Background()
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	noIDs = true
	mu.Unlock()
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL})
	if !errors.Is(err, syncer.ErrPartial) {
		t.Fatalf("err = %v", err)
	}
	a := reportOf(t, rep, "a")
	if a.Status != syncer.TypeFailed || !strings.Contains(a.Error, "delivered 3 items of type a and none could be stored") || a.Removed != 0 {
		t.Errorf("a: %+v", a)
	}
	if got := names(t, rows(t, st, "fake/a")); !reflect.DeepEqual(got, []string{"a1", "a2"}) {
		t.Errorf("a holds %v", got)
	}
}
