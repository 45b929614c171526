package graphql

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

// FuzzExecute runs arbitrary query text (and variables) against a space:
// whatever it is, the answer is a valid GraphQL response (errors and/or
// data, never a panic), and an internal error never reaches the client.
func FuzzExecute(f *testing.F) {
	seeds := []string{
		`{ findTasks { name } }`,
		`{ findTasks(name: {contains: "x"}, project: {name: {is: "Alpha"}}, labels: {contains: [{name: {is: "red"}}]}, orderBy: [{points: DESC}], limit: 2, offset: 1) { id name notes { md html text jsonString } status { name } project { name tasks(limit: 1) { name } } comments { md } } }`,
		`query Q($n: String, $o: [TaskOrderBy!]) { a: findTasks(name: {in: [$n]}, orderBy: $o) { ...F @skip(if: false) } } fragment F on Task { name }`,
		`{ __schema { types { name fields { name type { name ofType { name } } } } } }`,
		`{ __type(name: "Task") { name } me { email } __typename }`,
		`mutation { labels { create(name: "n") { message entities { id type } } countOfEntities listEntities { name } } }`,
		`mutation { tasks(limit: 1) { addComment(value: "{{name}} {{project.name}} {{me.email}}") { message } appendContentToNotes(value: "x") { message } } }`,
		`{ findTasks(dueDate: {greater: "not a date"}, estimate: {in: [1, 2.5]}, id: {is: "x"}) { name } }`,
		`{ findTasks { project { tasks { project { tasks { name } } } } } }`,
		`{`, `}`, `{ findTasks(limit: -1) { name } }`, `query { ...F } fragment F on Query { ...F }`,
	}
	for _, s := range seeds {
		f.Add(s, `{"n": "Fix bug", "o": {"points": "ASC"}}`)
	}
	st, err := store.Open(context.Background(), "sqlite::memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	trackerSchema(f, st)
	trackerData(f, st)
	internal := ""
	svc := New(Config{Store: st, OnError: func(ctx context.Context, err error) { internal = err.Error() }})
	f.Fuzz(func(t *testing.T, q, vars string) {
		var v map[string]any
		if json.Unmarshal([]byte(vars), &v) != nil {
			v = nil
		}
		internal = ""
		resp, err := svc.Execute(context.Background(), "tracker", viewer, &Request{Query: q, Variables: v})
		if err != nil {
			t.Fatalf("execute: %v", err)
		}
		if internal != "" {
			t.Fatalf("internal error for %q: %s", q, internal)
		}
		b, err := resp.MarshalJSON()
		if err != nil || !json.Valid(b) {
			t.Fatalf("invalid answer for %q: %s (%v)", q, b, err)
		}
		if !resp.HasData && len(resp.Errors) == 0 {
			t.Fatalf("neither data nor errors for %q", q)
		}
		for _, e := range resp.Errors {
			if e.Message == "" || strings.Contains(e.Message, "panic") {
				t.Fatalf("bad error for %q: %+v", q, e)
			}
		}
	})
}
