package commands

import (
	"context"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

const createPlayer = `{"command":"platform.schema/batch","args":{"commands":[
 {"command":"schema.type/create","args":{
  "platform/name":"Cricket/Player",
  "platform/id":"d9e9ec34-9685-11e9-8550-526af7764f64",
  "platform/meta":{"platform/domain?":true,"platform/secured?":true,"ui/color":"#F7D130"},
  "platform/fields":[
   {"platform/name":"platform/id","platform/type":"platform/uuid","platform/meta":{"platform/secured?":false,"platform/id?":true,"platform/readonly?":true}},
   {"platform/name":"platform/public-id","platform/type":"platform/text","platform/meta":{"platform/secured?":false,"platform/readonly?":true,"platform/public-id?":true}},
   {"platform/name":"platform/creation-date","platform/type":"platform/date-time","platform/meta":{"platform/secured?":false,"platform/readonly?":true,"platform/default-value":"$now","platform/creation-date?":true}},
   {"platform/name":"platform/modification-date","platform/type":"platform/date-time","platform/meta":{"platform/modification-date?":true,"platform/required?":true,"platform/readonly?":true,"platform/default-value":"$now","platform/secured?":false}},
   {"platform/name":"Cricket/name","platform/type":"platform/text","platform/meta":{"platform/secured?":false,"ui/title?":true}},
   {"platform/name":"Cricket/Salary","platform/type":"platform/decimal","platform/meta":{"ui/number-unit":"USD"}},
   {"platform/name":"Cricket/Born","platform/type":"platform/date"}
  ]}}]}}`

func schemaType(t *testing.T, api *API, name string) map[string]any {
	t.Helper()
	s := ok(t, api, `{"command":"platform.schema/query"}`).(map[string]any)
	for _, ty := range s["platform/types"].([]any) {
		m := ty.(map[string]any)
		if m["platform/name"] == name {
			return m
		}
	}
	return nil
}

func fieldNames(ty map[string]any) []string {
	var out []string
	for _, f := range ty["platform/fields"].([]any) {
		out = append(out, f.(map[string]any)["platform/name"].(string))
	}
	return out
}

// The spec: a type with the five primitive fields, plus the rank mixin.
func TestSpecTypeCreate(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		if got := ok(t, api, createPlayer); got != "ok" {
			t.Fatalf("schema batch result = %v, want ok", got)
		}
		if got := ok(t, api, `{"command":"platform.app/install-mixins","args":{"types":{"Cricket/Player":["platform/rank-mixin"]}}}`); got != "ok" {
			t.Fatalf("install-mixins = %v", got)
		}
		ty := schemaType(t, api, "Cricket/Player")
		if ty == nil {
			t.Fatal("Cricket/Player not in schema")
		}
		if ty["platform/id"] != "d9e9ec34-9685-11e9-8550-526af7764f64" {
			t.Errorf("type id = %v", ty["platform/id"])
		}
		got := strings.Join(fieldNames(ty), ",")
		want := "platform/id,platform/public-id,platform/creation-date,platform/modification-date,Cricket/name,Cricket/Salary,Cricket/Born,platform/rank"
		if got != want {
			t.Errorf("fields = %s\nwant %s", got, want)
		}
		meta := ty["platform/meta"].(map[string]any)
		if meta["platform/domain?"] != true || meta["ui/color"] != "#F7D130" || meta["platform/primitive?"] != false {
			t.Errorf("meta = %v", meta)
		}
		if mx := meta["app/mixins"].(map[string]any); mx["platform/rank-mixin"] != true {
			t.Errorf("mixins = %v", mx)
		}
		s := ok(t, api, `{"command":"platform.schema/query"}`).(map[string]any)
		sm := s["platform/meta"].(map[string]any)
		if _, isStr := sm["platform/version"].(string); !isStr {
			t.Errorf("platform/version = %#v, want a string", sm["platform/version"])
		}
		e := ok(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Player","entity":{"Cricket/name":"Curtly Ambrose","Cricket/Salary":"1000.50","Cricket/Born":"1963-09-21"}}}`).(map[string]any)
		for _, k := range []string{"platform/id", "platform/public-id", "platform/creation-date", "platform/modification-date"} {
			if _, ok := e[k].(string); !ok {
				t.Errorf("created entity lacks %s: %v", k, e)
			}
		}
		if e["platform/public-id"] != "1" || e["Cricket/Salary"] != "1000.50" || e["Cricket/Born"] != "1963-09-21" || e["platform/rank"] != nil {
			t.Errorf("created entity = %v", e)
		}
		if !strings.HasSuffix(e["platform/creation-date"].(string), ".000Z") {
			t.Errorf("creation date %v lacks milliseconds and Z", e["platform/creation-date"])
		}
		// Renames keep data.
		ok(t, api, `{"command":"platform.schema/batch","args":{"commands":[
		 {"command":"schema.type/rename","args":{"from-name":"Cricket/Player","to-name":"Cricket/Cricketer"}},
		 {"command":"schema.field/rename","args":{"holder-type":"Cricket/Cricketer","from-name":"Cricket/Salary","to-name":"Cricket/Pay"}}]}}`)
		r := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Cricketer","q/select":["Cricket/Pay"]}}}`)
		if mustJSON(t, r) != `[{"Cricket/Pay":"1000.50"}]` {
			t.Errorf("after rename: %s", mustJSON(t, r))
		}
	})
}

const createTeam = `{"command":"platform.schema/batch","args":{"commands":[
 {"command":"schema.type/create","args":{"platform/name":"Cricket/Team","platform/meta":{"platform/domain?":true},
  "platform/fields":[{"platform/name":"Cricket/name","platform/type":"platform/text","platform/meta":{"ui/title?":true}}]}},
 {"command":"schema.field/create","args":{"platform/holder-type":"Cricket/Player","platform/name":"Cricket/Current Team","platform/type":"Cricket/Team",
  "platform/meta":{"platform/relation":"d9e9ec35-9685-11e9-8550-526af7764f64"}}},
 {"command":"schema.field/create","args":{"platform/holder-type":"Cricket/Team","platform/name":"Cricket/Current Roster","platform/type":"Cricket/Player",
  "platform/meta":{"platform/collection?":true,"platform/relation":"d9e9ec35-9685-11e9-8550-526af7764f64"}}},
 {"command":"schema.field/create","args":{"platform/holder-type":"Cricket/Player","platform/name":"Cricket/Former Teams","platform/type":"Cricket/Team",
  "platform/meta":{"platform/collection?":true,"platform/relation":"1a3ae1c0-97fa-11e9-81b9-4363f716f666"}}},
 {"command":"schema.field/create","args":{"platform/holder-type":"Cricket/Team","platform/name":"Cricket/Former Players","platform/type":"Cricket/Player",
  "platform/meta":{"platform/collection?":true,"platform/relation":"1a3ae1c0-97fa-11e9-81b9-4363f716f666"}}}
]}}`

// The spec: relations (to-one/to-many pair, many-to-many pair), entity fields
// set by {platform/id}, collections edited by add/remove-collection-items.
func TestSpecRelations(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		ok(t, api, createPlayer)
		ok(t, api, createTeam)
		team := ok(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Team","entity":{"platform/id":"0a3ae1c0-97fa-11e9-81b9-4363f716f666","Cricket/name":"West Indies"}}}`).(map[string]any)
		if team["platform/id"] != "0a3ae1c0-97fa-11e9-81b9-4363f716f666" {
			t.Fatalf("team = %v", team)
		}
		ok(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Team","entity":{"platform/id":"17af8db0-97fa-11e9-81b9-4363f716f666","Cricket/name":"Antigua"}}}`)
		p := ok(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Player","entity":{"platform/id":"216c2a00-9752-11e9-81b9-4363f716f666","Cricket/name":"Curtly","Cricket/Current Team":{"platform/id":"0a3ae1c0-97fa-11e9-81b9-4363f716f666"}}}}`).(map[string]any)
		if mustJSON(t, p["Cricket/Current Team"]) != `{"platform/id":"0a3ae1c0-97fa-11e9-81b9-4363f716f666"}` {
			t.Errorf("current team = %v", p["Cricket/Current Team"])
		}
		p2 := ok(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Player","entity":{"Cricket/name":"Brian"}}}`).(map[string]any)
		if p2["Cricket/Current Team"] != nil {
			t.Errorf("empty entity field = %v, want null", p2["Cricket/Current Team"])
		}
		if got := ok(t, api, `{"command":"platform.entity/add-collection-items","args":{"type":"Cricket/Player","field":"Cricket/Former Teams",
			"entity":{"platform/id":"216c2a00-9752-11e9-81b9-4363f716f666"},
			"items":[{"platform/id":"0a3ae1c0-97fa-11e9-81b9-4363f716f666"},{"platform/id":"17af8db0-97fa-11e9-81b9-4363f716f666"}]}}`); got != "ok" {
			t.Errorf("add-collection-items = %v", got)
		}
		r := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Team",
			"q/select":["Cricket/name",{"Cricket/Current Roster":{"q/select":["Cricket/name"],"q/limit":"q/no-limit"}},
			{"Cricket/Former Players":{"q/select":["Cricket/name",{"Cricket/Current Team":["Cricket/name"]}],"q/limit":"q/no-limit"}},
			{"roster":["q/count",["Cricket/Current Roster","platform/id"]]}],
			"q/order-by":[[["Cricket/name"],"q/asc"]]}}}`)
		want := `[{"Cricket/Current Roster":[],"Cricket/Former Players":[{"Cricket/Current Team":{"Cricket/name":"West Indies"},"Cricket/name":"Curtly"}],"Cricket/name":"Antigua","roster":0},` +
			`{"Cricket/Current Roster":[{"Cricket/name":"Curtly"}],"Cricket/Former Players":[{"Cricket/Current Team":{"Cricket/name":"West Indies"},"Cricket/name":"Curtly"}],"Cricket/name":"West Indies","roster":1}]`
		if got := mustJSON(t, r); got != want {
			t.Errorf("teams:\n got %s\nwant %s", got, want)
		}
		// The to-many side edits the to-one column.
		ok(t, api, `{"command":"platform.entity/add-collection-items","args":{"type":"Cricket/Team","field":"Cricket/Current Roster",
			"entity":{"platform/id":"17af8db0-97fa-11e9-81b9-4363f716f666"},"items":[{"platform/id":"`+p2["platform/id"].(string)+`"}]}}`)
		ok(t, api, `{"command":"platform.entity/remove-collection-items","args":{"type":"Cricket/Player","field":"Cricket/Former Teams",
			"entity":{"platform/id":"216c2a00-9752-11e9-81b9-4363f716f666"},"items":[{"platform/id":"0a3ae1c0-97fa-11e9-81b9-4363f716f666"}]}}`)
		r = ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Player",
			"q/select":["Cricket/name",{"Cricket/Current Team":["Cricket/name"]},{"Cricket/Former Teams":{"q/select":["Cricket/name"],"q/limit":"q/no-limit"}}]}}}`)
		want = `[{"Cricket/Current Team":{"Cricket/name":"West Indies"},"Cricket/Former Teams":[{"Cricket/name":"Antigua"}],"Cricket/name":"Curtly"},` +
			`{"Cricket/Current Team":{"Cricket/name":"Antigua"},"Cricket/Former Teams":[],"Cricket/name":"Brian"}]`
		if got := mustJSON(t, r); got != want {
			t.Errorf("players:\n got %s\nwant %s", got, want)
		}
		// Update changes an entity field and returns the entity.
		u := ok(t, api, `{"command":"platform.entity/update","args":{"type":"Cricket/Player","entity":{"platform/id":"216c2a00-9752-11e9-81b9-4363f716f666","Cricket/Current Team":null,"Cricket/Salary":"12.5"}}}`).(map[string]any)
		if u["Cricket/Current Team"] != nil || u["Cricket/Salary"] != "12.5" || u["Cricket/name"] != "Curtly" || u["platform/public-id"] != "1" {
			t.Errorf("update result = %v", u)
		}
		if u["platform/modification-date"] == u["platform/creation-date"] {
			t.Errorf("modification date not moved: %v", u)
		}
		// Delete clears references and links.
		if got := ok(t, api, `{"command":"platform.entity/delete","args":{"type":"Cricket/Team","entity":{"platform/id":"17af8db0-97fa-11e9-81b9-4363f716f666"}}}`); got != "ok" {
			t.Errorf("delete = %v", got)
		}
		r = ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Player",
			"q/select":["Cricket/name","Cricket/Current Team",{"Cricket/Former Teams":{"q/select":["Cricket/name"],"q/limit":"q/no-limit"}}]}}}`)
		want = `[{"Cricket/Current Team":null,"Cricket/Former Teams":[],"Cricket/name":"Curtly"},{"Cricket/Current Team":null,"Cricket/Former Teams":[],"Cricket/name":"Brian"}]`
		if got := mustJSON(t, r); got != want {
			t.Errorf("after delete:\n got %s\nwant %s", got, want)
		}
	})
}

// The spec's single-select walkthrough, in one platform.command/batch.
func TestSpecSingleSelect(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		ok(t, api, createPlayer)
		res := ok(t, api, `{"command":"platform.command/batch","args":{"commands":[
		 {"command":"platform.schema/batch","args":{"commands":[
		  {"command":"schema.enum/create","args":{"platform/name":"Cricket/Position_Cricket/Player"}},
		  {"command":"schema.field/create","args":{"platform/name":"Cricket/Position","platform/type":"Cricket/Position_Cricket/Player","platform/holder-type":"Cricket/Player"}}]}},
		 {"command":"platform.entity/create","args":{"type":"Cricket/Position_Cricket/Player","entity":{"enum/name":"Batter","platform/id":"4a3ffb10-9747-11e9-9def-016e5ea5e162","platform/rank":0}}},
		 {"command":"platform.entity/create","args":{"type":"Cricket/Position_Cricket/Player","entity":{"enum/name":"Bowler","platform/id":"4a402220-9747-11e9-9def-016e5ea5e162","platform/rank":1000000}}},
		 {"command":"platform.entity/create","args":{"type":"Cricket/Position_Cricket/Player","entity":{"enum/name":"All-rounder","platform/id":"4a402221-9747-11e9-9def-016e5ea5e162","platform/rank":2000000}}},
		 {"command":"platform.schema/batch","args":{"commands":[
		  {"command":"schema.field/set-meta","args":{"name":"Cricket/Position","holder-type":"Cricket/Player","key":"platform/default-value","value":{"platform/id":"4a3ffb10-9747-11e9-9def-016e5ea5e162"}}},
		  {"command":"schema.field/set-meta","args":{"name":"Cricket/Position","holder-type":"Cricket/Player","key":"platform/required?","value":true}}]}}
		]}}`).([]any)
		if len(res) != 5 {
			t.Fatalf("batch result has %d elements, want 5: %v", len(res), res)
		}
		if r := res[0].(map[string]any); r["success"] != true || r["result"] != "ok" {
			t.Errorf("first = %v", r)
		}
		if r := res[4].(map[string]any); r["success"] != true || r["result"] != "ok" {
			t.Errorf("last = %v", r)
		}
		for i, want := range []string{"1", "2", "3"} {
			opt := res[i+1].(map[string]any)["result"].(map[string]any)
			if opt["platform/public-id"] != want {
				t.Errorf("option %d public id = %v, want %s (%v)", i, opt["platform/public-id"], want, opt)
			}
		}
		opt := res[2].(map[string]any)["result"].(map[string]any)
		if opt["enum/name"] != "Bowler" || opt["platform/rank"] != 1e6 || opt["platform/id"] != "4a402220-9747-11e9-9def-016e5ea5e162" {
			t.Errorf("option = %v", opt)
		}
		// The default option is set on creation; the field is required.
		p := ok(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Player","entity":{"Cricket/name":"Viv"}}}`).(map[string]any)
		if mustJSON(t, p["Cricket/Position"]) != `{"platform/id":"4a3ffb10-9747-11e9-9def-016e5ea5e162"}` {
			t.Errorf("default position = %v", p["Cricket/Position"])
		}
		if name := fails(t, api, `{"command":"platform.entity/update","args":{"type":"Cricket/Player","entity":{"platform/id":"`+p["platform/id"].(string)+`","Cricket/Position":null}}}`); name != store.NameRequiredMissing {
			t.Errorf("clearing a required field: %s", name)
		}
		ok(t, api, `{"command":"platform.entity/update","args":{"type":"Cricket/Player","entity":{"platform/id":"`+p["platform/id"].(string)+`","Cricket/Position":{"platform/id":"4a402221-9747-11e9-9def-016e5ea5e162"}}}}`)
		r := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Player","q/select":["Cricket/name",{"Cricket/Position":["enum/name","platform/rank"]}],
			"q/where":["=",["Cricket/Position","enum/name"],"$pos"]},"params":{"$pos":"All-rounder"}}}`)
		if got := mustJSON(t, r); got != `[{"Cricket/Position":{"enum/name":"All-rounder","platform/rank":2000000},"Cricket/name":"Viv"}]` {
			t.Errorf("query by option: %s", got)
		}
		// A failing batch applies nothing.
		res2 := exec(t, api, `[{"command":"platform.command/batch","args":{"commands":[
		 {"command":"platform.entity/create","args":{"type":"Cricket/Player","entity":{"Cricket/name":"Ghost"}}},
		 {"command":"platform.entity/create","args":{"type":"Cricket/Nope","entity":{}}}]}}]`)
		e := res2[0]["result"].(map[string]any)
		if res2[0]["success"] != false || e["name"] != store.NameTypeNotFound || e["data"].(map[string]any)["index"] != 1.0 {
			t.Errorf("failing batch = %v", res2[0])
		}
		r = ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Player","q/select":["Cricket/name"]}}}`)
		if got := mustJSON(t, r); got != `[{"Cricket/name":"Viv"}]` {
			t.Errorf("after failed batch: %s", got)
		}
		// Deleting the holder type takes its single-select's enum type along.
		ok(t, api, `{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.type/delete","args":{"name":"Cricket/Player","delete-entities?":true}}]}}`)
		if schemaType(t, api, "Cricket/Position_Cricket/Player") != nil || schemaType(t, api, "Cricket/Player") != nil {
			t.Error("the enum type outlived its field")
		}
	})
}

// The spec: a rich-text field's document secret is read through a query.
func TestSpecRichTextSecret(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		ok(t, api, createPlayer)
		ok(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Player","entity":{"Cricket/name":"Early"}}}`)
		ok(t, api, `{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.field/create","args":{"platform/holder-type":"Cricket/Player","platform/name":"Cricket/Bio","platform/type":"Collaboration~Documents/Document"}}]}}`)
		ok(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Player","entity":{"Cricket/name":"Late"}}}`)
		if name := fails(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Player","entity":{"Cricket/name":"X","Cricket/Bio":"text"}}}`); name != store.NameInvalidValue {
			t.Errorf("setting rich text at creation: %s", name)
		}
		r := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Player","q/select":["Cricket/name",{"Cricket/Bio":["Collaboration~Documents/secret"]}]}}}`).([]any)
		if len(r) != 2 {
			t.Fatalf("rows = %v", r)
		}
		seen := map[string]bool{}
		for _, row := range r {
			bio, _ := row.(map[string]any)["Cricket/Bio"].(map[string]any)
			secret, _ := bio["Collaboration~Documents/secret"].(string)
			if len(secret) != 36 || seen[secret] {
				t.Fatalf("secret %q (row %v)", secret, row)
			}
			seen[secret] = true
			exists, err := st.DocumentSecretExists(context.Background(), secret)
			if err != nil || !exists {
				t.Errorf("DocumentSecretExists(%s) = %v, %v", secret, exists, err)
			}
		}
		for _, s := range []string{"00000000-0000-0000-0000-000000000000", "not-a-uuid", "' OR 1=1 --"} {
			if exists, err := st.DocumentSecretExists(context.Background(), s); err != nil || exists {
				t.Errorf("DocumentSecretExists(%q) = %v, %v", s, exists, err)
			}
		}
		// Deleting the entity deletes its document.
		var first string
		for s := range seen {
			first = s
		}
		rows := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Player","q/select":["platform/id"],
			"q/where":["=",["Cricket/Bio","Collaboration~Documents/secret"],"$s"]},"params":{"$s":"`+first+`"}}}`).([]any)
		id := rows[0].(map[string]any)["platform/id"].(string)
		ok(t, api, `{"command":"platform.entity/delete","args":{"type":"Cricket/Player","entity":{"platform/id":"`+id+`"}}}`)
		if exists, _ := st.DocumentSecretExists(context.Background(), first); exists {
			t.Errorf("document of a deleted entity still exists")
		}
	})
}

// The spec's delete-flag tables for types and fields.
func TestSpecDeleteFlags(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		ok(t, api, createPlayer)
		ok(t, api, createTeam)
		// Empty primitive field: deleted without the flag.
		ok(t, api, `{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.field/delete","args":{"holder-type":"Cricket/Player","name":"Cricket/Born"}}]}}`)
		ok(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Player","entity":{"platform/id":"216c2a00-9752-11e9-81b9-4363f716f666","Cricket/name":"A","Cricket/Salary":"5"}}}`)
		ok(t, api, `{"command":"platform.entity/create","args":{"type":"Cricket/Team","entity":{"platform/id":"0a3ae1c0-97fa-11e9-81b9-4363f716f666","Cricket/name":"T"}}}`)
		ok(t, api, `{"command":"platform.entity/update","args":{"type":"Cricket/Player","entity":{"platform/id":"216c2a00-9752-11e9-81b9-4363f716f666","Cricket/Current Team":{"platform/id":"0a3ae1c0-97fa-11e9-81b9-4363f716f666"}}}}`)
		cases := []struct {
			cmd, want string
		}{
			{`{"command":"schema.field/delete","args":{"holder-type":"Cricket/Player","name":"Cricket/Salary"}}`, store.NameFieldHasValues},
			{`{"command":"schema.field/delete","args":{"holder-type":"Cricket/Player","name":"Cricket/Current Team"}}`, store.NameFieldHasValues},
			{`{"command":"schema.field/delete","args":{"holder-type":"Cricket/Player","name":"platform/id","delete-values?":true}}`, store.NameBuiltinProtected},
			{`{"command":"schema.type/delete","args":{"name":"Cricket/Team"}}`, store.NameTypeHasEntities},
			{`{"command":"schema.type/delete","args":{"name":"Cricket/Team","delete-entities?":true}}`, store.NameTypeHasRelated},
			{`{"command":"schema.type/delete","args":{"name":"Cricket/Nope"}}`, store.NameTypeNotFound},
			{`{"command":"schema.field/delete","args":{"holder-type":"Cricket/Player","name":"Cricket/Nope"}}`, store.NameFieldNotFound},
		}
		for _, c := range cases {
			if got := fails(t, api, `{"command":"platform.schema/batch","args":{"commands":[`+c.cmd+`]}}`); got != c.want {
				t.Errorf("%s: %s, want %s", c.cmd, got, c.want)
			}
		}
		// With the flags.
		ok(t, api, `{"command":"platform.schema/batch","args":{"commands":[
		 {"command":"schema.field/delete","args":{"holder-type":"Cricket/Player","name":"Cricket/Salary","delete-values?":true}},
		 {"command":"schema.field/delete","args":{"holder-type":"Cricket/Player","name":"Cricket/Current Team","delete-values?":true}}]}}`)
		ty := schemaType(t, api, "Cricket/Team")
		if got := strings.Join(fieldNames(ty), ","); strings.Contains(got, "Current Roster") {
			t.Errorf("partner of a deleted relation field survives: %s", got)
		}
		ok(t, api, `{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.type/delete","args":{"name":"Cricket/Team","delete-entities?":true,"delete-related-fields?":true}}]}}`)
		if schemaType(t, api, "Cricket/Team") != nil {
			t.Error("Cricket/Team survived")
		}
		got := strings.Join(fieldNames(schemaType(t, api, "Cricket/Player")), ",")
		if got != "platform/id,platform/public-id,platform/creation-date,platform/modification-date,Cricket/name" {
			t.Errorf("player fields = %s", got)
		}
		r := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"Cricket/Player","q/select":["Cricket/name"]}}}`)
		if mustJSON(t, r) != `[{"Cricket/name":"A"}]` {
			t.Errorf("related entities must be kept: %s", mustJSON(t, r))
		}
		// An empty type is deleted without flags; a failed schema batch changes nothing.
		res := exec(t, api, `[{"command":"platform.schema/batch","args":{"commands":[
		 {"command":"schema.type/create","args":{"platform/name":"X/Y","platform/fields":[]}},
		 {"command":"schema.type/delete","args":{"name":"Cricket/Player"}}]}}]`)
		if res[0]["success"] != false || schemaType(t, api, "X/Y") != nil {
			t.Errorf("failed schema batch left X/Y: %v", res[0])
		}
		ok(t, api, `{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.type/create","args":{"platform/name":"X/Y"}},{"command":"schema.type/delete","args":{"name":"X/Y"}}]}}`)
	})
}
