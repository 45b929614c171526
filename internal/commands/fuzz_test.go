package commands

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// FuzzDecodeQuery feeds arbitrary query and params JSON through decoding,
// compilation and execution on the fixture: bad queries are *store.Error
// values (never panics, never SQL errors), and the SQL text never carries a
// user string (names are generated identifiers, values are bound).
func FuzzDecodeQuery(f *testing.F) {
	seeds := [][2]string{
		{`{"q/from":"T/Task","q/select":["T/name"]}`, `{}`},
		{`{"q/from":"T/Task","q/select":["T/name",{"T/project":["T/name"]}],"q/where":["=",["T/project","T/name"],"$n"]}`, `{"$n":"Apollo"}`},
		{`{"q/from":"T/Task","q/select":[{"T/tags":{"q/select":["T/name"],"q/limit":"q/no-limit"}}],"q/order-by":[[["T/points"],"q/desc"]],"q/limit":2,"q/offset":1}`, `{}`},
		{`{"q/from":"T/Project","q/select":[{"n":["q/sum",["T/tasks","T/estimate"]]}]}`, `{}`},
		{`{"q/from":"T/Task","q/select":["T/name"],"q/where":["q/or",["q/in",["T/points"],"$p"],["q/contains",["T/name"],"$s"]]}`, `{"$p":[1,2],"$s":"a'); DROP TABLE t_1; --"}`},
		{`{"q/from":"T/Task","q/select":["T/name"],"q/where":[">",["q/start",["T/period"]],"$d"]}`, `{"$d":"2024-01-01"}`},
		{`{"q/from":"T/Task\"; DROP TABLE x; --","q/select":["T/name"]}`, `{}`},
		{`{"q/from":"T/Task","q/select":["T/name"],"q/where":["=",["T/tags","T/tasks","T/project","T/name"],"$n"]}`, `{"$n":"x"}`},
		{`{"q/from":"T/Task","q/select":["T/name"],"q/where":["=",["T/estimate"],"$e"]}`, `{"$e":"1.5"}`},
		{`{"q/from":"T/Project","q/select":[{"T/tasks":{"q/select":["T/name",{"T/project":[{"T/tasks":{"q/select":["T/tags"]}}]}],"q/where":["!=",["T/name"],"$n"]}}],"q/offset":1}`, `{"$n":"x"}`},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	st := teststore.Open(f, "sqlite::memory:")
	api := New(st)
	res, err := api.Execute(context.Background(), []byte("["+fixtureSchema+"]"))
	if err != nil || !res[0].Success {
		f.Fatalf("fixture: %v %v", err, res)
	}
	cat, err := st.Catalog(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, qs, ps string) {
		var qv, pv any
		if decodeJSON([]byte(qs), &qv) != nil || decodeJSON([]byte(ps), &pv) != nil {
			return
		}
		q, err := decodeQuery(qv)
		if err != nil {
			mustBeStoreError(t, err)
			return
		}
		params, err := decodeParams(pv)
		if err != nil {
			mustBeStoreError(t, err)
			return
		}
		plan, err := query.Compile(cat, st.Dialect(), q, params)
		if err != nil {
			mustBeStoreError(t, err)
			return
		}
		if strings.ContainsAny(plan.SQL+plan.CountSQL, "/;\"") {
			t.Fatalf("SQL carries a user string: %s\n%s", plan.SQL, plan.CountSQL)
		}
		rows, err := plan.Run(context.Background(), st.DB())
		if err != nil {
			t.Fatalf("compiled query failed: %v\nSQL: %s\nquery: %s params: %s", err, plan.SQL, qs, ps)
		}
		if _, err := json.Marshal(rows); err != nil {
			t.Fatalf("result not encodable: %v", err)
		}
	})
}

func mustBeStoreError(t *testing.T, err error) {
	t.Helper()
	e, ok := store.AsError(err)
	if !ok || e.Name == store.NameInternal || e.Name == "" {
		t.Fatalf("want a named error, got %v", err)
	}
}

// FuzzExecute runs arbitrary request bodies (reads and writes) against the
// fixture: no panic (the recovery would show as platform.error/internal), no
// internal error, and every answer encodes as JSON.
func FuzzExecute(f *testing.F) {
	for _, s := range []string{
		`[{"command":"platform.entity/create","args":{"type":"T/Task","entity":{"T/name":"x","T/points":1}}}]`,
		`[{"command":"platform.entity/update","args":{"type":"T/Task","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-000000000001","T/estimate":"2.5"}}}]`,
		`[{"command":"platform.command/batch","args":{"commands":[{"command":"platform.entity/delete","args":{"type":"T/Tag","entity":{"platform/id":"77777777-0000-0000-0000-000000000001"}}}]}}]`,
		`[{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.field/create","args":{"platform/holder-type":"T/Tag","platform/name":"T/n2","platform/type":"platform/int"}}]}}]`,
		`[{"command":"platform.entity/add-collection-items","args":{"type":"T/Task","field":"T/tags","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-000000000003"},"items":[{"platform/id":"77777777-0000-0000-0000-000000000002"}]}}]`,
		`[{"command":"platform.schema/query"}]`,
	} {
		f.Add(s)
	}
	st := teststore.Open(f, "sqlite::memory:")
	api := New(st)
	if res, err := api.Execute(context.Background(), []byte("["+fixtureSchema+"]")); err != nil || !res[0].Success {
		f.Fatalf("fixture: %v %v", err, res)
	}
	f.Fuzz(func(t *testing.T, body string) {
		res, err := api.Execute(context.Background(), []byte(body))
		if err != nil {
			mustBeStoreError(t, err)
			return
		}
		for _, r := range res {
			if eb, ok := r.Result.(ErrorBody); ok && eb.Name == store.NameInternal {
				t.Fatalf("internal error for %s", body)
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("not encodable: %v", err)
		}
	})
}
