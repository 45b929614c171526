package graphql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/commands"
	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// trackerService is a service on a fresh in-memory SQLite store holding the
// tracker space and its data.
func trackerService(t *testing.T, cfg Config) *Service {
	t.Helper()
	st := teststore.Open(t, "sqlite::memory:")
	trackerSchema(t, st)
	trackerData(t, st)
	cfg.Store = st
	return mustNew(t, cfg)
}

// answer is an answer decoded for assertions.
type answer struct {
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
	Data json.RawMessage `json:"data"`
}

func decodeAnswer(t *testing.T, got string) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal([]byte(got), &a); err != nil {
		t.Fatalf("answer %.200s: %v", got, err)
	}
	return a
}

// alternating is n fields of one response key on two different fields:
// every pair of them conflicts.
func alternating(n int) string {
	var b strings.Builder
	for i := range n {
		if i%2 == 0 {
			b.WriteString("a: id ")
		} else {
			b.WriteString("a: name ")
		}
	}
	return b.String()
}

// Conflicting fields are answered with bounded errors whatever the query's
// size: GraphQL's validation compares fields in pairs, so it never sees more
// than MaxSameKey fields of one key in one selection set, and it lists at
// most MaxValidationErrors errors.
func TestValidationIsBounded(t *testing.T) {
	t.Parallel()
	svc := trackerService(t, Config{})
	var frags strings.Builder
	var spreads strings.Builder
	for i := range 60 {
		field := "id"
		if i%2 == 1 {
			field = "name"
		}
		fmt.Fprintf(&frags, " fragment F%d on Task { a: %s }", i, field)
		fmt.Fprintf(&spreads, " ...F%d", i)
	}
	var manySets strings.Builder
	for i := range 40 {
		fmt.Fprintf(&manySets, "x%d: findTasks { %s} ", i, alternating(MaxSameKey))
	}
	cases := []struct {
		name, query string
		// refused: the document's bounds refuse it before validation.
		refused bool
	}{
		{"one key alternating in one set", `{ findTasks { ` + alternating(400) + `} }`, true},
		{"through fragments", `{ findTasks {` + spreads.String() + ` } }` + frags.String(), true},
		{"in an unused fragment", `{ findTasks { id } } fragment U on Task { ` + alternating(400) + `}`, true},
		{"merged through a repeated parent", `{ findTasks { ` + strings.Repeat(`project { `+alternating(2)+`} `, 20) + `} }`, true},
		{"many sets within the bound", `{ ` + manySets.String() + `}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := decodeAnswer(t, run(t, svc, "tracker", c.query, nil))
			if a.Data != nil {
				t.Fatalf("answered data: %.200s", a.Data)
			}
			if len(a.Errors) == 0 || len(a.Errors) > MaxValidationErrors+1 {
				t.Fatalf("%d errors, want 1 to %d", len(a.Errors), MaxValidationErrors+1)
			}
			first := a.Errors[0].Extensions["code"]
			if c.refused {
				if len(a.Errors) != 1 || first != "QUERY_TOO_COMPLEX" {
					t.Fatalf("errors %+v, want one QUERY_TOO_COMPLEX", a.Errors)
				}
				return
			}
			last := a.Errors[len(a.Errors)-1]
			if first != "GRAPHQL_VALIDATION_FAILED" || len(a.Errors) != MaxValidationErrors+1 || !strings.Contains(last.Message, "the others are not listed") {
				t.Fatalf("%d errors, last %+v: want %d conflicts and a note", len(a.Errors), last, MaxValidationErrors)
			}
		})
	}
}

// Fragments are bounded in number, and fragment spreads count towards the
// fields of a query at each use (a chain of fragments each spreading the next
// twice would otherwise expand exponentially).
func TestFragmentBounds(t *testing.T) {
	t.Parallel()
	svc := trackerService(t, Config{})
	var many strings.Builder
	many.WriteString(`{ findTasks { ...F0 } }`)
	for i := range MaxFragments + 1 {
		fmt.Fprintf(&many, " fragment F%d on Task { id }", i)
	}
	chain := `{ findTasks { ...C0 } }`
	for i := range 30 {
		chain += fmt.Sprintf(" fragment C%d on Task { ...C%d ...C%d }", i, i+1, i+1)
	}
	chain += " fragment C30 on Task { ...C0 }"
	var atBound strings.Builder
	atBound.WriteString(`{ findTasks(name: {is: "idle"}) {`)
	for i := range MaxFragments {
		fmt.Fprintf(&atBound, " ...F%d", i)
	}
	atBound.WriteString(" } }")
	for i := range MaxFragments {
		fmt.Fprintf(&atBound, " fragment F%d on Task { a%d: name }", i, i)
	}
	if a := decodeAnswer(t, run(t, svc, "tracker", atBound.String(), nil)); len(a.Errors) != 0 || !strings.Contains(string(a.Data), `"a99":"idle"`) {
		t.Errorf("%d fragments: %+v %.200s", MaxFragments, a.Errors, a.Data)
	}
	for _, c := range []struct{ name, query, want string }{
		{"fragments", many.String(), fmt.Sprintf("the document defines more than %d fragments", MaxFragments)},
		{"doubling chain", chain, fmt.Sprintf("the query selects more than %d fields (fragments counted at each use)", DefaultMaxComplexity)},
	} {
		a := decodeAnswer(t, run(t, svc, "tracker", c.query, nil))
		if len(a.Errors) != 1 || a.Errors[0].Message != c.want {
			t.Errorf("%s: %+v, want %q", c.name, a.Errors, c.want)
		}
	}
}

// The data of one answer is bounded (Config.MaxAnswerBytes, by default the
// command API's bound): fields past it are null with ANSWER_TOO_LARGE, and
// nothing after the first crossing runs.
func TestAnswerIsBounded(t *testing.T) {
	t.Parallel()
	if got := (Config{}).WithDefaults().MaxAnswerBytes; got != commands.MaxAnswerBytes {
		t.Errorf("default answer bound %d, want the command API's %d", got, commands.MaxAnswerBytes)
	}
	const bound = 400
	svc := trackerService(t, Config{MaxAnswerBytes: bound})
	var q strings.Builder
	q.WriteString("{")
	for i := range 200 {
		fmt.Fprintf(&q, " a%d: findTasks { name points }", i)
	}
	q.WriteString(" }")
	a := decodeAnswer(t, run(t, svc, "tracker", q.String(), nil))
	if len(a.Data) > bound+200*len(`"a199":null,`) {
		t.Errorf("data of %d bytes", len(a.Data))
	}
	var data map[string]any
	if err := json.Unmarshal(a.Data, &data); err != nil {
		t.Fatal(err)
	}
	answered, null := 0, 0
	for _, v := range data {
		if v == nil {
			null++
		} else {
			answered++
		}
	}
	if answered == 0 || answered*100 > bound || null != 200-answered || len(a.Errors) != null {
		t.Fatalf("%d answered, %d null, %d errors", answered, null, len(a.Errors))
	}
	for _, e := range a.Errors {
		if e.Extensions["code"] != "ANSWER_TOO_LARGE" {
			t.Fatalf("error %+v", e)
		}
	}
	// A mutation group whose answer crosses the bound is rolled back.
	got := run(t, svc, "tracker", `mutation { tasks { update(done: true) { message } a: listEntities { name points } b: listEntities { name points } c: listEntities { name points } d: listEntities { name points } e: listEntities { name points } } }`, nil)
	if !strings.Contains(got, `"code":"ANSWER_TOO_LARGE"`) || !strings.Contains(got, `"data":{"tasks":null}`) {
		t.Fatalf("mutation over the bound: %s", got)
	}
	if got := run(t, svc, "tracker", `{ findTasks(done: {is: true}) { name } }`, nil); got != `{"data":{"findTasks":[{"name":"Fix bug"}]}}` {
		t.Errorf("after the refused mutation: %s", got)
	}
}

// answerSize measures what appendJSON writes.
func TestAnswerSize(t *testing.T) {
	t.Parallel()
	m := newOmap(3)
	m.set("a\"b", []any{int64(-3), 1.5, rawNumber("10.50"), json.Number("7"), nil, true, "x\u2028<y>\x01é"})
	m.set("c", map[string]any{"k": json.RawMessage(`{"z":1}`), "l": []any{}})
	m.set("d", (*omap)(nil))
	for _, v := range []any{m, []any{m, m}, "", int64(0), 1e21, []any(nil)} {
		if got, want := answerSize(v), len(appendJSON(nil, v)); got != want {
			t.Errorf("answerSize(%s) = %d, want %d", appendJSON(nil, v), got, want)
		}
	}
}

// A find stops reading rows as soon as they would not fit in what is left of
// the answer: the rows are never all held.
func TestAnswerRowsStopEarly(t *testing.T) {
	t.Parallel()
	svc := trackerService(t, Config{})
	ctx := context.Background()
	cat, err := svc.cfg.Store.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	q := &query.Query{From: "tracker/task", Select: []query.Select{{Kind: query.SelectField, Key: "n", Field: "tracker.task/name"}}}
	for _, c := range []struct {
		left int
		ok   bool
	}{{1000, true}, {40, false}, {0, false}} {
		e := &executor{svc: svc, ctx: ctx, st: svc.cfg.Store, cat: cat, answer: query.NewBudget(c.left, 0)}
		rows, err := e.answerRows(svc.cfg.Store.DB(), q)
		if c.ok != (err == nil) || (!c.ok && (!errors.Is(err, query.ErrAnswerTooLarge) || rows != nil)) {
			t.Errorf("left %d: %d rows, %v", c.left, len(rows), err)
		}
	}
}

// Selections nest at most as deep in the query model as the command API's
// select lists (query.MaxSelectDepth): the 150-byte selection that ran SQL
// for the whole timeout is refused before it runs.
func TestSelectionNestingIsBounded(t *testing.T) {
	t.Parallel()
	svc := trackerService(t, Config{})
	nest := func(levels int) string {
		sel := "name"
		for range levels {
			sel = "project { tasks { " + sel + " } }"
		}
		return `{ findTasks(name: {is: "Fix bug"}) { ` + sel + ` } }`
	}
	// Four project-tasks pairs are 8 levels below the find's own list.
	if got := run(t, svc, "tracker", nest(query.MaxSelectDepth/2), nil); strings.Contains(got, "errors") || strings.Count(got, `"name":`) != 1<<(query.MaxSelectDepth/2) {
		t.Errorf("at the bound: %.300s", got)
	}
	for _, levels := range []int{query.MaxSelectDepth/2 + 1, 6} {
		got := run(t, svc, "tracker", nest(levels), nil)
		if want := fmt.Sprintf(`{"errors":[{"message":"select nested deeper than %d","locations":[{"line":1,"column":3}],"path":["findTasks"],"extensions":{"code":"query.error/invalid"}}],"data":{"findTasks":null}}`, query.MaxSelectDepth); got != want {
			t.Errorf("%d levels:\n got %s\nwant %s", levels, got, want)
		}
	}
}

// One viewer's queries take at most its slots of the gate: a viewer
// holding them all waits for one, and another viewer's query runs
// meanwhile.
func TestViewerQueriesAreGated(t *testing.T) {
	t.Parallel()
	gate := query.NewGate(2)
	waits := make(chan string, 4)
	gate.OnWait = func(client string) { waits <- client }
	svc := trackerService(t, Config{Gate: gate})
	ctx := context.Background()
	for range gate.PerClient() {
		release, err := gate.Enter(ctx, "user:"+viewer.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
	}
	held := make(chan string, 1)
	go func() {
		resp, err := svc.Execute(ctx, "tracker", viewer, &Request{Query: `{ findTasks(name: {is: "idle"}) { name } }`})
		if err != nil {
			held <- err.Error()
			return
		}
		b, _ := resp.MarshalJSON()
		held <- string(b)
	}()
	select {
	case c := <-waits:
		if c != "user:"+viewer.ID {
			t.Fatalf("%s waits", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the viewer's query did not wait for a slot")
	}
	other := Viewer{ID: "u2", Email: "bob@example.com"}
	resp, err := svc.Execute(ctx, "tracker", other, &Request{Query: `{ findTasks(name: {is: "idle"}) { name } }`})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := resp.MarshalJSON(); string(b) != `{"data":{"findTasks":[{"name":"idle"}]}}` {
		t.Fatalf("the other viewer: %s", b)
	}
	select {
	case got := <-held:
		t.Fatalf("answered while its slots were held: %s", got)
	default:
	}
	// A request the host admitted through its own gate (shared with the
	// command API) keeps that admission.
	hostGate := query.NewGate(1)
	resp, err = svc.Execute(hostGate.Admit(ctx, "user:"+viewer.ID), "tracker", viewer, &Request{Query: `{ findTasks(name: {is: "idle"}) { name } }`})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := resp.MarshalJSON(); string(b) != `{"data":{"findTasks":[{"name":"idle"}]}}` {
		t.Fatalf("admitted by the host: %s", b)
	}
}

// A mutation group without limit acts on at most Config.MaxSelected
// entities: at the bound it acts on all of them, past it on none (the
// whole group is refused, nothing changed), and a limit pages through more.
func TestMutationGroupSelectionIsBounded(t *testing.T) {
	t.Parallel()
	if got := (Config{}).WithDefaults().MaxSelected; got != MaxSelected {
		t.Errorf("default bound %d, want MaxSelected %d", got, MaxSelected)
	}
	svc := trackerService(t, Config{MaxSelected: 3})
	steps := []struct{ name, query, want string }{
		{"past the bound", `mutation { tasks { update(points: 1) { message } } }`,
			`{"errors":[{"message":"the filter selects more than 3 entities: act on them in pages with limit, offset and orderBy","locations":[{"line":1,"column":20}],"path":["tasks","update"],"extensions":{"code":"BAD_USER_INPUT"}}],"data":{"tasks":null}}`},
		{"nothing changed", `{ findTasks(points: {is: 1}) { name } }`, `{"data":{"findTasks":[]}}`},
		{"at the bound", `mutation { tasks(name: {isNot: "idle"}) { update(points: 1) { message } } }`, `{"data":{"tasks":{"update":{"message":"updated 3 Tasks"}}}}`},
		{"a limit pages past it", `mutation { tasks(limit: 4) { countOfEntities } }`, `{"data":{"tasks":{"countOfEntities":4}}}`},
	}
	for _, s := range steps {
		if got := run(t, svc, "tracker", s.query, nil); got != s.want {
			t.Errorf("%s:\n got %s\nwant %s", s.name, got, s.want)
		}
	}
}
