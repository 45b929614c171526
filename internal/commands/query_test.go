package commands

import (
	"fmt"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

// The fixture: projects, tasks and tags with every primitive shape.
const fixtureSchema = `{"command":"platform.command/batch","args":{"commands":[
 {"command":"platform.schema/batch","args":{"commands":[
  {"command":"schema.type/create","args":{"platform/name":"T/Project","platform/meta":{"platform/domain?":true},"platform/fields":[
   {"platform/name":"T/name","platform/type":"platform/text","platform/meta":{"ui/title?":true}},
   {"platform/name":"T/budget","platform/type":"platform/decimal"}]}},
  {"command":"schema.type/create","args":{"platform/name":"T/Tag","platform/meta":{"platform/domain?":true},"platform/fields":[
   {"platform/name":"T/name","platform/type":"platform/text"}]}},
  {"command":"schema.type/create","args":{"platform/name":"T/Task","platform/meta":{"platform/domain?":true},"platform/fields":[
   {"platform/name":"T/name","platform/type":"platform/text"},
   {"platform/name":"T/points","platform/type":"platform/int"},
   {"platform/name":"T/estimate","platform/type":"platform/decimal"},
   {"platform/name":"T/done","platform/type":"platform/bool"},
   {"platform/name":"T/due","platform/type":"platform/date"},
   {"platform/name":"T/at","platform/type":"platform/date-time"},
   {"platform/name":"T/period","platform/type":"platform/date-range"},
   {"platform/name":"T/slot","platform/type":"platform/date-time-range"},
   {"platform/name":"T/ref","platform/type":"platform/uuid"},
   {"platform/name":"T/data","platform/type":"platform/json-value"},
   {"platform/name":"T/email","platform/type":"platform/email"},
   {"platform/name":"T/emoji","platform/type":"platform/emoji"},
   {"platform/name":"T/rank","platform/type":"platform/rank"}]}},
  {"command":"schema.field/create","args":{"platform/holder-type":"T/Task","platform/name":"T/project","platform/type":"T/Project","platform/meta":{"platform/relation":"11111111-1111-1111-1111-111111111111"}}},
  {"command":"schema.field/create","args":{"platform/holder-type":"T/Project","platform/name":"T/tasks","platform/type":"T/Task","platform/meta":{"platform/collection?":true,"platform/relation":"11111111-1111-1111-1111-111111111111"}}},
  {"command":"schema.field/create","args":{"platform/holder-type":"T/Task","platform/name":"T/tags","platform/type":"T/Tag","platform/meta":{"platform/collection?":true,"platform/relation":"22222222-2222-2222-2222-222222222222"}}},
  {"command":"schema.field/create","args":{"platform/holder-type":"T/Tag","platform/name":"T/tasks","platform/type":"T/Task","platform/meta":{"platform/collection?":true,"platform/relation":"22222222-2222-2222-2222-222222222222"}}},
  {"command":"schema.enum/create","args":{"platform/name":"T/state_T/Task"}},
  {"command":"schema.field/create","args":{"platform/holder-type":"T/Task","platform/name":"T/state","platform/type":"T/state_T/Task"}}]}},
 {"command":"platform.entity/create","args":{"type":"T/state_T/Task","entity":{"platform/id":"eeeeeeee-0000-0000-0000-000000000001","enum/name":"Open","platform/rank":0}}},
 {"command":"platform.entity/create","args":{"type":"T/state_T/Task","entity":{"platform/id":"eeeeeeee-0000-0000-0000-000000000002","enum/name":"Closed","platform/rank":1}}},
 {"command":"platform.entity/create","args":{"type":"T/Project","entity":{"platform/id":"99999999-0000-0000-0000-000000000001","T/name":"Apollo","T/budget":"100.5"}}},
 {"command":"platform.entity/create","args":{"type":"T/Project","entity":{"platform/id":"99999999-0000-0000-0000-000000000002","T/name":"Zeus","T/budget":"20"}}},
 {"command":"platform.entity/create","args":{"type":"T/Tag","entity":{"platform/id":"77777777-0000-0000-0000-000000000001","T/name":"red"}}},
 {"command":"platform.entity/create","args":{"type":"T/Tag","entity":{"platform/id":"77777777-0000-0000-0000-000000000002","T/name":"blue"}}},
 {"command":"platform.entity/create","args":{"type":"T/Task","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-000000000001","T/name":"alpha",
   "T/points":5,"T/estimate":"1.50","T/done":true,"T/due":"2024-03-01","T/at":"2024-03-01T10:00:00Z",
   "T/period":{"start":"2024-03-01","end":"2024-03-10"},"T/slot":{"start":"2024-03-01T09:00:00.000Z","end":"2024-03-01T17:30:00.250Z"},
   "T/ref":"0a3ae1c0-97fa-11e9-81b9-4363f716f666","T/data":{"k":[1,"two",{"three":true}]},"T/email":"a@x.io","T/emoji":"🍎","T/rank":10,
   "T/project":{"platform/id":"99999999-0000-0000-0000-000000000001"},"T/state":{"platform/id":"eeeeeeee-0000-0000-0000-000000000001"}}}},
 {"command":"platform.entity/create","args":{"type":"T/Task","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-000000000002","T/name":"beta",
   "T/points":3,"T/estimate":"10.25","T/done":false,"T/due":"2024-01-15",
   "T/project":{"platform/id":"99999999-0000-0000-0000-000000000001"},"T/state":{"platform/id":"eeeeeeee-0000-0000-0000-000000000002"}}}},
 {"command":"platform.entity/create","args":{"type":"T/Task","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-000000000003","T/name":"Gamma",
   "T/estimate":"2","T/done":false,
   "T/project":{"platform/id":"99999999-0000-0000-0000-000000000002"},"T/state":{"platform/id":"eeeeeeee-0000-0000-0000-000000000001"}}}},
 {"command":"platform.entity/create","args":{"type":"T/Task","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-000000000004","T/name":"delta",
   "T/points":8,"T/done":true,"T/due":"2024-02-20"}}},
 {"command":"platform.entity/create","args":{"type":"T/Task","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-000000000005","T/name":"epsilon",
   "T/points":3,"T/estimate":"-1","T/due":"2024-03-01",
   "T/project":{"platform/id":"99999999-0000-0000-0000-000000000002"},"T/state":{"platform/id":"eeeeeeee-0000-0000-0000-000000000002"}}}},
 {"command":"platform.entity/add-collection-items","args":{"type":"T/Task","field":"T/tags","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-000000000001"},
   "items":[{"platform/id":"77777777-0000-0000-0000-000000000001"},{"platform/id":"77777777-0000-0000-0000-000000000002"}]}},
 {"command":"platform.entity/add-collection-items","args":{"type":"T/Task","field":"T/tags","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-000000000002"},
   "items":[{"platform/id":"77777777-0000-0000-0000-000000000001"}]}},
 {"command":"platform.entity/add-collection-items","args":{"type":"T/Tag","field":"T/tasks","entity":{"platform/id":"77777777-0000-0000-0000-000000000002"},
   "items":[{"platform/id":"aaaaaaaa-0000-0000-0000-000000000004"}]}}
]}}`

func loadFixture(t *testing.T, api *API) {
	t.Helper()
	ok(t, api, fixtureSchema)
}

// names runs a T/Task query selecting T/name and returns the names, comma-joined.
func names(t *testing.T, api *API, where, order, extra, params string) (string, map[string]any) {
	t.Helper()
	q := `{"q/from":"T/Task","q/select":["T/name"]`
	if where != "" {
		q += `,"q/where":` + where
	}
	if order != "" {
		q += `,"q/order-by":` + order
	}
	q += extra + `}`
	if params == "" {
		params = "{}"
	}
	res := exec(t, api, `[{"command":"platform.entity/query","args":{"query":`+q+`,"params":`+params+`}}]`)
	if res[0]["success"] != true {
		return "", res[0]["result"].(map[string]any)
	}
	var out []string
	for _, r := range res[0]["result"].([]any) {
		out = append(out, fmt.Sprint(r.(map[string]any)["T/name"]))
	}
	return strings.Join(out, ","), nil
}

func TestQueryTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, where, order, extra, params string
		want                              string // names in order, or "!<error name>"
	}{
		{"all, default order", "", "", "", "", "alpha,beta,Gamma,delta,epsilon"},
		{"= int", `["=",["T/points"],"$p"]`, "", "", `{"$p":3}`, "beta,epsilon"},
		{"!= int matches empty", `["!=",["T/points"],"$p"]`, "", "", `{"$p":3}`, "alpha,Gamma,delta"},
		{"< int", `["<",["T/points"],"$p"]`, "", "", `{"$p":5}`, "beta,epsilon"},
		{"<= int", `["<=",["T/points"],"$p"]`, "", "", `{"$p":5}`, "alpha,beta,epsilon"},
		{"> int", `[">",["T/points"],"$p"]`, "", "", `{"$p":5}`, "delta"},
		{">= int", `[">=",["T/points"],"$p"]`, "", "", `{"$p":5}`, "alpha,delta"},
		{"= null", `["=",["T/points"],"$p"]`, "", "", `{"$p":null}`, "Gamma"},
		{"!= null", `["!=",["T/due"],"$p"]`, "", "", `{"$p":null}`, "alpha,beta,delta,epsilon"},
		{"> decimal is numeric", `[">",["T/estimate"],"$p"]`, "", "", `{"$p":"2"}`, "beta"},
		{">= decimal", `[">=",["T/estimate"],"$p"]`, "", "", `{"$p":"2.0"}`, "beta,Gamma"},
		{"= decimal ignores trailing zeros", `["=",["T/estimate"],"$p"]`, "", "", `{"$p":"1.5"}`, "alpha"},
		{"< negative decimal", `["<",["T/estimate"],"$p"]`, "", "", `{"$p":"0"}`, "epsilon"},
		{"contains is case-insensitive", `["q/contains",["T/name"],"$s"]`, "", "", `{"$s":"AMM"}`, "Gamma"},
		{"contains has no wildcards", `["q/contains",["T/name"],"$s"]`, "", "", `{"$s":"%"}`, ""},
		{"not-contains", `["q/not-contains",["T/name"],"$s"]`, "", "", `{"$s":"a"}`, "epsilon"},
		{"not-contains matches empty", `["q/not-contains",["T/email"],"$s"]`, "", "", `{"$s":"@x"}`, "beta,Gamma,delta,epsilon"},
		{"in", `["q/in",["T/points"],"$p"]`, "", "", `{"$p":[3,8]}`, "beta,delta,epsilon"},
		{"in empty", `["q/in",["T/points"],"$p"]`, "", "", `{"$p":[]}`, ""},
		{"in with null", `["q/in",["T/points"],"$p"]`, "", "", `{"$p":[8,null]}`, "Gamma,delta"},
		{"not-in matches empty", `["q/not-in",["T/points"],"$p"]`, "", "", `{"$p":[3,8]}`, "alpha,Gamma"},
		{"not-in empty", `["q/not-in",["T/points"],"$p"]`, "", "", `{"$p":[]}`, "alpha,beta,Gamma,delta,epsilon"},
		{"= bool", `["=",["T/done"],"$d?"]`, "", "", `{"$d?":true}`, "alpha,delta"},
		{"< date", `["<",["T/due"],"$d"]`, "", "", `{"$d":"2024-03-01"}`, "beta,delta"},
		{">= date-time any offset", `[">=",["T/at"],"$d"]`, "", "", `{"$d":"2024-03-01T11:00:00+01:00"}`, "alpha"},
		{"> date-time", `[">",["T/at"],"$d"]`, "", "", `{"$d":"2024-03-01T10:00:00.000Z"}`, ""},
		{"q/start of a range", `[">",["q/start",["T/period"]],"$d"]`, "", "", `{"$d":"2024-02-01"}`, "alpha"},
		{"q/end of a date-time range", `["=",["q/end",["T/slot"]],"$d"]`, "", "", `{"$d":"2024-03-01T17:30:00.250Z"}`, "alpha"},
		{"whole range =", `["=",["T/period"],"$r"]`, "", "", `{"$r":{"start":"2024-03-01","end":"2024-03-10"}}`, "alpha"},
		{"= uuid", `["=",["T/ref"],"$u"]`, "", "", `{"$u":"0A3AE1C0-97FA-11E9-81B9-4363F716F666"}`, "alpha"},
		{"= emoji", `["=",["T/emoji"],"$e"]`, "", "", `{"$e":"🍎"}`, "alpha"},
		{"to-one path", `["=",["T/project","T/name"],"$n"]`, "", "", `{"$n":"Apollo"}`, "alpha,beta"},
		{"to-one path decimal", `[">",["T/project","T/budget"],"$b"]`, "", "", `{"$b":"99"}`, "alpha,beta"},
		{"entity field by id object", `["=",["T/project"],"$p"]`, "", "", `{"$p":{"platform/id":"99999999-0000-0000-0000-000000000002"}}`, "Gamma,epsilon"},
		{"entity field by id string", `["=",["T/project","platform/id"],"$p"]`, "", "", `{"$p":"99999999-0000-0000-0000-000000000002"}`, "Gamma,epsilon"},
		{"empty entity field", `["=",["T/project"],"$p"]`, "", "", `{"$p":null}`, "delta"},
		{"single-select name", `["q/in",["T/state","enum/name"],"$s"]`, "", "", `{"$s":["Closed"]}`, "beta,epsilon"},
		{"single-select != matches empty", `["!=",["T/state","enum/name"],"$s"]`, "", "", `{"$s":"Closed"}`, "alpha,Gamma,delta"},
		{"collection: some item", `["=",["T/tags","T/name"],"$t"]`, "", "", `{"$t":"red"}`, "alpha,beta"},
		{"collection: no item", `["!=",["T/tags","T/name"],"$t"]`, "", "", `{"$t":"red"}`, "Gamma,delta,epsilon"},
		{"collection by id", `["q/in",["T/tags"],"$t"]`, "", "", `{"$t":["77777777-0000-0000-0000-000000000002"]}`, "alpha,delta"},
		{"and/or nesting", `["q/or",["q/and",["=",["T/done"],"$d"],[">",["T/points"],"$p"]],["=",["T/name"],"$n"]]`, "", "", `{"$d":true,"$p":5,"$n":"beta"}`, "beta,delta"},
		{"and", `["q/and",["=",["T/points"],"$p"],["<",["T/due"],"$d"]]`, "", "", `{"$p":3,"$d":"2024-02-01"}`, "beta"},
		{"order int asc, empty first", "", `[[["T/points"],"q/asc"]]`, "", "", "Gamma,beta,epsilon,alpha,delta"},
		{"order int desc, empty last", "", `[[["T/points"],"q/desc"]]`, "", "", "delta,alpha,beta,epsilon,Gamma"},
		{"order decimal numeric", "", `[[["T/estimate"],"q/asc"]]`, "", "", "delta,epsilon,alpha,Gamma,beta"},
		{"order text bytewise", "", `[[["T/name"],"q/asc"]]`, "", "", "Gamma,alpha,beta,delta,epsilon"},
		{"order across relation, two keys", "", `[[["T/project","T/name"],"q/asc"],[["T/name"],"q/desc"]]`, "", "", "delta,beta,alpha,epsilon,Gamma"},
		{"order by single-select rank", "", `[[["T/state","platform/rank"],"q/desc"],[["platform/id"],"q/desc"]]`, "", "", "epsilon,beta,Gamma,alpha,delta"},
		{"order by id desc", "", `[[["platform/id"],"q/desc"]]`, "", "", "epsilon,delta,Gamma,beta,alpha"},
		{"order by range start", "", `[[["q/start",["T/period"]],"q/desc"]]`, "", "", "alpha,beta,Gamma,delta,epsilon"},
		{"order object form", "", `{"T/points":"q/desc"}`, "", "", "delta,alpha,beta,epsilon,Gamma"},
		{"order object form, two keys", "", `{"T/points":"q/desc","T/name":"q/asc"}`, "", "", "!" + store.NameQueryInvalid},
		{"order path as a string", "", `[["T/points","q/desc"]]`, "", "", "delta,alpha,beta,epsilon,Gamma"},
		{"limit", "", "", `,"q/limit":2`, "", "alpha,beta"},
		{"limit offset", "", "", `,"q/limit":2,"q/offset":2`, "", "Gamma,delta"},
		{"offset past the end", "", "", `,"q/limit":2,"q/offset":10`, "", ""},
		{"no-limit offset", "", "", `,"q/limit":"q/no-limit","q/offset":4`, "", "epsilon"},
		{"limit zero", "", "", `,"q/limit":0`, "", ""},
		{"paging by id", `[">",["platform/id"],"$last"]`, `[[["platform/id"],"q/asc"]]`, `,"q/limit":2`, `{"$last":"aaaaaaaa-0000-0000-0000-000000000002"}`, "Gamma,delta"},
		{"filter on public id", `["=",["platform/public-id"],"$p"]`, "", "", `{"$p":"2"}`, "beta"},
		{"filter on creation date", `["<",["platform/creation-date"],"$d"]`, "", "", `{"$d":"2100-01-01T00:00:00.000Z"}`, "alpha,beta,Gamma,delta,epsilon"},
		// Errors.
		{"unknown param", `["=",["T/points"],"$nope"]`, "", "", `{"$p":1}`, "!" + store.NameUnknownParam},
		{"param names keep their ?", `["=",["T/done"],"$d?"]`, "", "", `{"$d":true}`, "!" + store.NameUnknownParam},
		{"bad int param", `["=",["T/points"],"$p"]`, "", "", `{"$p":"three"}`, "!" + store.NameInvalidParam},
		{"bad decimal param", `["=",["T/estimate"],"$p"]`, "", "", `{"$p":"1; DROP TABLE x"}`, "!" + store.NameInvalidParam},
		{"bad date param", `["=",["T/due"],"$p"]`, "", "", `{"$p":"2024-02-30"}`, "!" + store.NameInvalidParam},
		{"in needs an array", `["q/in",["T/points"],"$p"]`, "", "", `{"$p":3}`, "!" + store.NameInvalidParam},
		{"< null", `["<",["T/points"],"$p"]`, "", "", `{"$p":null}`, "!" + store.NameInvalidParam},
		{"unknown field", `["=",["T/nope"],"$p"]`, "", "", `{"$p":1}`, "!" + store.NameFieldNotFound},
		{"unknown field across relation", `["=",["T/project","T/nope"],"$p"]`, "", "", `{"$p":1}`, "!" + store.NameFieldNotFound},
		{"primitive followed by a name", `["=",["T/name","T/x"],"$p"]`, "", "", `{"$p":1}`, "!" + store.NameQueryInvalid},
		{"literal instead of param", `["=",["T/points"],3]`, "", "", "", "!" + store.NameQueryInvalid},
		{"unknown operator", `["~",["T/points"],"$p"]`, "", "", `{"$p":1}`, "!" + store.NameQueryInvalid},
		{"contains on int", `["q/contains",["T/points"],"$p"]`, "", "", `{"$p":"1"}`, "!" + store.NameQueryInvalid},
		{"q/start on a non-range", `["=",["q/start",["T/due"]],"$p"]`, "", "", `{"$p":"2024-01-01"}`, "!" + store.NameQueryInvalid},
		{"bad direction", "", `[[["T/name"],"up"]]`, "", "", "!" + store.NameQueryInvalid},
		{"order by collection", "", `[[["T/tags"],"q/asc"]]`, "", "", "!" + store.NameQueryInvalid},
		{"negative limit", "", "", `,"q/limit":-1`, "", "!" + store.NameQueryInvalid},
		{"unknown query key", "", "", `,"q/group":1`, "", "!" + store.NameQueryInvalid},
	}
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		loadFixture(t, api)
		for _, c := range cases {
			got, errBody := names(t, api, c.where, c.order, c.extra, c.params)
			if strings.HasPrefix(c.want, "!") {
				if errBody == nil || errBody["name"] != c.want[1:] {
					t.Errorf("%s: got %q / %v, want error %s", c.name, got, errBody, c.want[1:])
				}
				continue
			}
			if errBody != nil {
				t.Errorf("%s: error %v", c.name, errBody)
				continue
			}
			if got != c.want {
				t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
			}
		}
	})
}

// Every select form and every value shape, checked against full JSON.
func TestQuerySelectForms(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		loadFixture(t, api)
		r := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"T/Task",
			"q/select":["T/name","T/points","T/estimate","T/done","T/due","T/at","T/period","T/slot","T/ref","T/data","T/email","T/emoji","T/rank",
			"platform/public-id","T/project","T/state",
			{"T/project":["T/name","T/budget"]},{"T/state":["enum/name"]},
			{"T/tags":{"q/select":["T/name",{"T/tasks":{"q/select":["T/name","T/done"],"q/limit":"q/no-limit"}}],"q/limit":"q/no-limit"}},
			{"tags":["q/count",["T/tags","platform/id"]]}],
			"q/where":["q/in",["T/name"],"$n"],"q/limit":2},"params":{"$n":["alpha","Gamma"]}}}`)
		want := `[{"T/at":"2024-03-01T10:00:00.000Z","T/data":{"k":[1,"two",{"three":true}]},"T/done":true,"T/due":"2024-03-01","T/email":"a@x.io","T/emoji":"🍎","T/estimate":"1.50",` +
			`"T/name":"alpha","T/period":{"end":"2024-03-10","start":"2024-03-01"},"T/points":5,"T/project":{"T/budget":"100.5","T/name":"Apollo"},"T/rank":10,"T/ref":"0a3ae1c0-97fa-11e9-81b9-4363f716f666",` +
			`"T/slot":{"end":"2024-03-01T17:30:00.250Z","start":"2024-03-01T09:00:00.000Z"},"T/state":{"enum/name":"Open"},` +
			`"T/tags":[{"T/name":"red","T/tasks":[{"T/done":true,"T/name":"alpha"},{"T/done":false,"T/name":"beta"}]},{"T/name":"blue","T/tasks":[{"T/done":true,"T/name":"alpha"},{"T/done":true,"T/name":"delta"}]}],` +
			`"platform/public-id":"1","tags":2},` +
			`{"T/at":null,"T/data":null,"T/done":false,"T/due":null,"T/email":null,"T/emoji":null,"T/estimate":"2","T/name":"Gamma","T/period":null,"T/points":null,` +
			`"T/project":{"T/budget":"20","T/name":"Zeus"},"T/rank":null,"T/ref":null,"T/slot":null,"T/state":{"enum/name":"Open"},"T/tags":[],"platform/public-id":"3","tags":0}]`
		if got := mustJSON(t, r); got != want {
			t.Errorf("select forms:\n got %s\nwant %s", got, want)
		}
		// A plain entity field name gives {platform/id}; a plain collection name gives its ids.
		r = ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"T/Task","q/select":["T/project","T/state","T/tags"],"q/limit":1}}}`)
		want = `[{"T/project":{"platform/id":"99999999-0000-0000-0000-000000000001"},"T/state":{"platform/id":"eeeeeeee-0000-0000-0000-000000000001"},` +
			`"T/tags":[{"platform/id":"77777777-0000-0000-0000-000000000001"},{"platform/id":"77777777-0000-0000-0000-000000000002"}]}]`
		if got := mustJSON(t, r); got != want {
			t.Errorf("plain relation names:\n got %s\nwant %s", got, want)
		}
		// The five aggregates, and a filtered, ordered collection sub-query.
		r = ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"T/Project","q/select":["T/name",
			{"n":["q/count",["T/tasks","platform/id"]]},{"sum":["q/sum",["T/tasks","T/points"]]},{"avg":["q/avg",["T/tasks","T/points"]]},
			{"first":["q/min",["T/tasks","T/due"]]},{"top":["q/max",["T/tasks","T/estimate"]]},{"est":["q/sum",["T/tasks","T/estimate"]]},
			{"last":["q/max",["T/tasks","T/at"]]},
			{"T/tasks":{"q/select":["T/name"],"q/where":[">=",["T/points"],"$p"],"q/order-by":[[["T/name"],"q/desc"]],"q/limit":"q/no-limit"}}]},"params":{"$p":3}}}`)
		want = `[{"T/name":"Apollo","T/tasks":[{"T/name":"beta"},{"T/name":"alpha"}],"avg":4,"est":"11.75","first":"2024-01-15","last":"2024-03-01T10:00:00.000Z","n":2,"sum":8,"top":"10.25"},` +
			`{"T/name":"Zeus","T/tasks":[{"T/name":"epsilon"}],"avg":3,"est":"1","first":"2024-03-01","last":null,"n":2,"sum":3,"top":"2"}]`
		if got := mustJSON(t, r); got != want {
			t.Errorf("aggregates:\n got %s\nwant %s", got, want)
		}
		// Collections and aggregates inside a to-one sub-select, at the top and inside a collection.
		r = ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"T/Task","q/select":["T/name",
			{"T/project":["T/name",{"T/tasks":{"q/select":["T/name"],"q/limit":"q/no-limit"}},{"n":["q/count",["T/tasks","platform/id"]]}]}],
			"q/where":["=",["T/name"],"$n"]},"params":{"$n":"beta"}}}`)
		want = `[{"T/name":"beta","T/project":{"T/name":"Apollo","T/tasks":[{"T/name":"alpha"},{"T/name":"beta"}],"n":2}}]`
		if got := mustJSON(t, r); got != want {
			t.Errorf("nested in object:\n got %s\nwant %s", got, want)
		}
		r = ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"T/Tag","q/select":["T/name",
			{"T/tasks":{"q/select":["T/name",{"T/project":["T/name",{"n":["q/count",["T/tasks","platform/id"]]}]},"T/period","T/data","T/done","T/estimate","T/at"],"q/limit":"q/no-limit"}}],
			"q/where":["=",["T/name"],"$n"]},"params":{"$n":"red"}}}`)
		want = `[{"T/name":"red","T/tasks":[{"T/at":"2024-03-01T10:00:00.000Z","T/data":{"k":[1,"two",{"three":true}]},"T/done":true,"T/estimate":"1.50","T/name":"alpha","T/period":{"end":"2024-03-10","start":"2024-03-01"},"T/project":{"T/name":"Apollo","n":2}},` +
			`{"T/at":null,"T/data":null,"T/done":false,"T/estimate":"10.25","T/name":"beta","T/period":null,"T/project":{"T/name":"Apollo","n":2}}]}]`
		if got := mustJSON(t, r); got != want {
			t.Errorf("nested in collection:\n got %s\nwant %s", got, want)
		}
		for _, bad := range []string{
			`{"q/from":"T/Task","q/select":[{"T/tags":["T/name"]}]}`,
			`{"q/from":"T/Task","q/select":[{"T/tags":{"q/select":["T/name"],"q/limit":5}}]}`,
			`{"q/from":"T/Task","q/select":[{"n":["q/median",["T/tags","platform/id"]]}]}`,
			`{"q/from":"T/Task","q/select":[{"n":["q/sum",["T/tags","T/name"]]}]}`,
			`{"q/from":"T/Task","q/select":[{"T/project":{"q/select":["T/name"]}}]}`,
			`{"q/from":"T/Task","q/select":[]}`,
			`{"q/from":"T/Task","q/select":[42]}`,
		} {
			res := exec(t, api, `[{"command":"platform.entity/query","args":{"query":`+bad+`}}]`)
			if res[0]["success"] != false || res[0]["result"].(map[string]any)["name"] != store.NameQueryInvalid {
				t.Errorf("%s: %v, want %s", bad, res[0], store.NameQueryInvalid)
			}
		}
		if name := fails(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"T/Nope","q/select":["x"]}}}`); name != store.NameTypeNotFound {
			t.Errorf("unknown type: %s", name)
		}
	})
}

// Values of the wrong shape are refused with entity.error/invalid-value.
func TestEntityValueErrors(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		loadFixture(t, api)
		cases := []struct{ entity, want string }{
			{`{"T/points":"5"}`, store.NameInvalidValue},
			{`{"T/points":1.5}`, store.NameInvalidValue},
			{`{"T/estimate":"1e5"}`, store.NameInvalidValue},
			{`{"T/done":"yes"}`, store.NameInvalidValue},
			{`{"T/due":"2024-13-01"}`, store.NameInvalidValue},
			{`{"T/at":"yesterday"}`, store.NameInvalidValue},
			{`{"T/period":{"start":"2024-01-01","end":"x"}}`, store.NameInvalidValue},
			{`{"T/period":"2024-01-01"}`, store.NameInvalidValue},
			{`{"T/ref":"abc"}`, store.NameInvalidValue},
			{`{"T/email":"no-at-sign"}`, store.NameInvalidValue},
			{`{"T/project":"99999999-0000-0000-0000-00000000000f"}`, store.NameEntityNotFound},
			{`{"T/project":{"id":"x"}}`, store.NameInvalidValue},
			{`{"T/tags":[]}`, store.NameInvalidValue},
			{`{"T/nope":1}`, store.NameFieldNotFound},
			{`{"platform/public-id":"9"}`, store.NameReadonlyField},
			{`{"platform/id":"aaaaaaaa-0000-0000-0000-000000000001"}`, store.NameEntityExists},
			{`{"platform/id":"x"}`, store.NameInvalidValue},
		}
		for _, c := range cases {
			got := fails(t, api, `{"command":"platform.entity/create","args":{"type":"T/Task","entity":`+c.entity+`}}`)
			if got != c.want {
				t.Errorf("create %s: %s, want %s", c.entity, got, c.want)
			}
		}
		if got := fails(t, api, `{"command":"platform.entity/update","args":{"type":"T/Task","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-0000000000ff","T/points":1}}}`); got != store.NameEntityNotFound {
			t.Errorf("update missing: %s", got)
		}
		if got := fails(t, api, `{"command":"platform.entity/delete","args":{"type":"T/Task","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-0000000000ff"}}}`); got != store.NameEntityNotFound {
			t.Errorf("delete missing: %s", got)
		}
		if got := fails(t, api, `{"command":"platform.entity/add-collection-items","args":{"type":"T/Task","field":"T/project","entity":{"platform/id":"aaaaaaaa-0000-0000-0000-000000000001"},"items":[]}}`); got != store.NameInvalidValue {
			t.Errorf("add items to a to-one: %s", got)
		}
		// Nothing above changed the data.
		got, _ := names(t, api, "", "", "", "")
		if got != "alpha,beta,Gamma,delta,epsilon" {
			t.Errorf("after failures: %s", got)
		}
	})
}
