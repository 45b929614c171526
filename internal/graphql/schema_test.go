package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/golden"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Transliteration and the sanitiser: valid, stable, ASCII names.
func TestNamesGolden(t *testing.T) {
	t.Parallel()
	inputs := []string{
		"Tasks", "task", "Due date", "due_date", "dueDate", "HTTPServer", "URL", "2nd place", "Ошибки", "Дата сдачи",
		"Größe", "Émile Zola", "中文 名字", "日本語", "Ελληνικά", "ŁÓDŹ", "naïve café", "!!!", "", "__typename",
		"id", "a-b-c", "x.y/z", "Статус задачи", "Company", "Status", "Box", "Batch", "Key",
	}
	var b strings.Builder
	for _, in := range inputs {
		fmt.Fprintf(&b, "%q\tpascal=%s\tcamel=%s\tplural=%s\n", in, pascalName(in), camelName(in), plural(pascalName(in)))
	}
	golden.Check(t, "names.golden", []byte(b.String()), *update)
	for _, in := range inputs {
		for _, n := range []string{pascalName(in), camelName(in)} {
			for i, c := range n {
				ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
				if !ok {
					t.Errorf("%q → %q: not a GraphQL name", in, n)
				}
			}
		}
	}
	n := newNamer("id")
	got := []string{n.claim("id", "f", ""), n.claim("name", "f", ""), n.claim("name", "f", ""), n.claim("", "field", ""), n.claim("__x", "field", ""), n.claim("name2", "f", "")}
	if strings.Join(got, ",") != "id2,name,name2,field,fieldx,name22" {
		t.Errorf("namer: %v", got)
	}
}

// The generated schema of the tracker space, in the schema language.
func TestSchemaGolden(t *testing.T) {
	t.Parallel()
	st := teststore.Open(t, "sqlite::memory:")
	trackerSchema(t, st)
	svc := mustNew(t, Config{Store: st})
	sdl, err := svc.SDL(context.Background(), "tracker")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "tracker.graphql", []byte(sdl), *update)
	if _, err := svc.SDL(context.Background(), "nowhere"); err != ErrNoSpace {
		t.Errorf("unknown space: %v", err)
	}
	spaces, _ := svc.Spaces(context.Background())
	if strings.Join(spaces, ",") != "other,tracker" {
		t.Errorf("spaces: %v", spaces)
	}
}

// The schema follows the catalog: types and fields created, renamed and
// deleted show up at the next request.
func TestSchemaRebuild(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		svc := newTracker(t, st)
		ctx := context.Background()
		schema := func(fn func(tx *store.Tx) error) {
			t.Helper()
			if err := st.WriteSchema(ctx, fn); err != nil {
				t.Fatal(err)
			}
		}
		q := `{ findLabels(orderBy: {name: ASC}, limit: 1) { name color } }`
		if got := run(t, svc, "tracker", q, nil); !strings.Contains(got, `Cannot query field \"color\"`) {
			t.Errorf("before: %s", got)
		}
		schema(func(tx *store.Tx) error {
			return tx.CreateField(store.FieldSpec{Holder: "tracker/label", Name: "tracker.label/color", Type: store.TText, Meta: map[string]any{"ui/label": "Color"}})
		})
		if got := run(t, svc, "tracker", q, nil); got != `{"data":{"findLabels":[{"name":"blue","color":null}]}}` {
			t.Errorf("field created: %s", got)
		}
		schema(func(tx *store.Tx) error {
			return tx.SetFieldMeta("tracker/label", "tracker.label/color", "ui/label", "Colour")
		})
		if got := run(t, svc, "tracker", `{ findLabels(limit: 1) { colour } }`, nil); got != `{"data":{"findLabels":[{"colour":null}]}}` {
			t.Errorf("field relabelled: %s", got)
		}
		schema(func(tx *store.Tx) error { return tx.RenameType("tracker/label", "tracker/tag") })
		if got := run(t, svc, "tracker", `{ findLabels(limit: 1) { __typename } }`, nil); got != `{"data":{"findLabels":[{"__typename":"Tag"}]}}` {
			t.Errorf("type renamed: %s", got)
		}
		schema(func(tx *store.Tx) error { return tx.DeleteField("tracker/tag", "tracker.label/color", true) })
		if got := run(t, svc, "tracker", `{ findLabels(limit: 1) { colour } }`, nil); !strings.Contains(got, "Cannot query field") {
			t.Errorf("field deleted: %s", got)
		}
		schema(func(tx *store.Tx) error {
			return tx.CreateType(store.TypeSpec{Name: "tracker/milestone", Meta: map[string]any{"ui/label": "Вехи"}, Fields: []store.FieldSpec{{Name: "tracker.milestone/name", Type: store.TText}}})
		})
		if got := run(t, svc, "tracker", `{ findVekhi { name } }`, nil); got != `{"data":{"findVekhi":[]}}` {
			t.Errorf("type created: %s", got)
		}
		// A database with no field of its own.
		schema(func(tx *store.Tx) error { return tx.CreateType(store.TypeSpec{Name: "tracker/empty"}) })
		if got := run(t, svc, "tracker", `mutation { empties { create { entities { type } } update { message } } }`, nil); got != `{"data":{"empties":{"create":{"entities":[{"type":"Empty"}]},"update":{"message":"updated 1 Empty"}}}}` {
			t.Errorf("empty type: %s", got)
		}
		schema(func(tx *store.Tx) error { return tx.DeleteType("tracker/milestone", true, true) })
		if got := run(t, svc, "tracker", `{ findVekhi { name } }`, nil); !strings.Contains(got, "Cannot query field") {
			t.Errorf("type deleted: %s", got)
		}
	})
}

// The introspection query GraphiQL sends answers, and describes the schema.
func TestIntrospection(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		svc := newTracker(t, st)
		got := run(t, svc, "tracker", introspectionQuery, nil)
		var resp struct {
			Errors []any `json:"errors"`
			Data   struct {
				Schema struct {
					QueryType struct{ Name string } `json:"queryType"`
					Types     []struct {
						Kind   string `json:"kind"`
						Name   string `json:"name"`
						Fields []struct {
							Name string `json:"name"`
							Args []struct {
								Name         string  `json:"name"`
								DefaultValue *string `json:"defaultValue"`
							} `json:"args"`
						} `json:"fields"`
					} `json:"types"`
					Directives []struct{ Name string } `json:"directives"`
				} `json:"__schema"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(got), &resp); err != nil {
			t.Fatal(err)
		}
		if len(resp.Errors) > 0 || resp.Data.Schema.QueryType.Name != "Query" {
			t.Fatalf("introspection: %.500s", got)
		}
		found := map[string]bool{}
		for _, ty := range resp.Data.Schema.Types {
			found[ty.Kind+" "+ty.Name] = true
			if ty.Name == "Query" {
				for _, f := range ty.Fields {
					if f.Name == "findTasks" {
						for _, a := range f.Args {
							if a.Name == "limit" && (a.DefaultValue == nil || *a.DefaultValue != "100") {
								t.Errorf("limit default: %v", a.DefaultValue)
							}
						}
					}
				}
			}
		}
		for _, want := range []string{"OBJECT Task", "OBJECT Project", "OBJECT Option", "INPUT_OBJECT TaskFilter", "INPUT_OBJECT TaskListFilter", "ENUM SortDirection", "OBJECT __Schema", "SCALAR String", "OBJECT TaskActions"} {
			if !found[want] {
				t.Errorf("no %s in the introspection", want)
			}
		}
		if len(resp.Data.Schema.Directives) < 3 {
			t.Errorf("directives: %v", resp.Data.Schema.Directives)
		}
		got = run(t, svc, "tracker", `{ __type(name: "TaskOrderBy") { kind name inputFields { name type { kind name ofType { name } } } } t: __type(name: "Nope") { name } }`, nil)
		if !strings.HasPrefix(got, `{"data":{"__type":{"kind":"INPUT_OBJECT","name":"TaskOrderBy","inputFields":[{"name":"id","type":{"kind":"ENUM","name":"SortDirection","ofType":null}}`) || !strings.HasSuffix(got, `,"t":null}}`) {
			t.Errorf("__type: %s", got)
		}
	})
}

// The whole answer to GraphiQL's introspection query on the tracker's space
// is the golden file's, field for field (types, fields, arguments and their
// defaults, enum values, directives with isRepeatable and locations,
// deprecations), on both engines: a change to what introspection answers
// shows in the diff to review (go test ./internal/graphql -update).
func TestIntrospectionGolden(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		got := run(t, newTracker(t, st), "tracker", introspectionQuery, nil)
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, []byte(got), "", "  "); err != nil {
			t.Fatalf("%v: %.300s", err, got)
		}
		pretty.WriteByte('\n')
		golden.Check(t, "introspection.golden.json", pretty.Bytes(), *update)
	})
}

// introspectionQuery is the query GraphiQL 3 sends.
const introspectionQuery = `
query IntrospectionQuery {
  __schema {
    description
    queryType { name }
    mutationType { name }
    subscriptionType { name }
    types { ...FullType }
    directives { name description isRepeatable locations args(includeDeprecated: true) { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description specifiedByURL
  fields(includeDeprecated: true) { name description args(includeDeprecated: true) { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields(includeDeprecated: true) { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue isDeprecated deprecationReason }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } }
}
`
