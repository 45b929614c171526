package graphql

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
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
	st := teststore.Open(f, "sqlite::memory:")
	trackerSchema(f, st)
	trackerData(f, st)
	internal := ""
	svc := mustNew(f, Config{Store: st, OnError: func(ctx context.Context, err error) { internal = err.Error() }})
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

// FuzzSchemaNames gives types and fields arbitrary names and labels: the
// space's schema always loads, and its names are valid GraphQL names.
func FuzzSchemaNames(f *testing.F) {
	for _, s := range [][3]string{{"Tasks", "Due date", "Срок"}, {"Query", "limit", "__typename"}, {"String", "id", "orderBy"}, {"2", "", "!!!"}, {"Task", "TaskFilter", "Task Filter"}, {"中文", "日本語", "\x00\n\""}} {
		f.Add(s[0], s[1], s[2])
	}
	st := teststore.Open(f, "sqlite::memory:")
	n := 0
	f.Fuzz(func(t *testing.T, typeLabel, field1, field2 string) {
		n++
		names := []string{fmt.Sprintf("fz/t%da", n), fmt.Sprintf("fz/t%db", n)}
		err := st.WriteSchema(context.Background(), func(tx *store.Tx) error {
			for i, name := range names {
				if err := tx.CreateType(store.TypeSpec{Name: name, Meta: map[string]any{"ui/label": typeLabel}, Fields: []store.FieldSpec{
					{Name: name + "." + "x/a", Type: store.TText, Meta: map[string]any{"ui/label": field1}},
					{Name: name + "." + "x/b", Type: store.TInt, Meta: map[string]any{"ui/label": field2}},
					{Name: name + "." + "x/c", Type: store.TText, Meta: map[string]any{"ui/label": field1}},
				}}); err != nil {
					return err
				}
				if i == 1 {
					rel := uuid.NewString()
					if err := tx.CreateField(store.FieldSpec{Holder: names[1], Name: names[1] + ".x/ref", Type: names[0], Meta: map[string]any{"ui/label": field2, "platform/relation": rel}}); err != nil {
						return err
					}
					if err := tx.CreateField(store.FieldSpec{Holder: names[0], Name: names[0] + ".x/refs", Type: names[1], Meta: map[string]any{"ui/label": typeLabel, "platform/relation": rel, "platform/collection?": true}}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		defer st.WriteSchema(context.Background(), func(tx *store.Tx) error {
			for _, name := range names {
				if err := tx.DeleteType(name, true, true); err != nil {
					return err
				}
			}
			return nil
		})
		cat, err := st.Catalog(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sch, ok, err := buildSchema(cat, "fz")
		if err != nil || !ok {
			t.Fatalf("schema for %q %q %q: %v", typeLabel, field1, field2, err)
		}
		for _, o := range sch.dbs {
			for _, name := range append([]string{o.name, o.plural}, fieldNames(o)...) {
				if !validName(name) {
					t.Fatalf("invalid name %q", name)
				}
			}
		}
	})
}

func fieldNames(o *object) []string {
	var out []string
	for _, f := range o.fields {
		out = append(out, f.name)
	}
	return out
}

func validName(s string) bool {
	if s == "" || strings.HasPrefix(s, "__") {
		return false
	}
	for i, c := range s {
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}
