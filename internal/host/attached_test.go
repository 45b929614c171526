package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
)

// The tables of the data attached to entities (the store's, attached.go).
var attachedTables = []string{"entity_comments", "entity_files", "entity_assignees", "entity_creators", "entity_notifications"}

// Data attached to an entity through GraphQL (comments, a file, assignees,
// the creator, a notification) goes with the entity whichever path deletes
// it: GraphQL's delete, the command API's platform.entity/delete and
// schema.type/delete with the type's entities, and a full sync that no
// longer delivers the item. What is attached to other entities stays.
func TestEveryDeleteRemovesAttachedData(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		e := newGQLEnv(t, dsn, host.Config{})
		if err := e.st.WriteSchema(ctx, func(tx *store.Tx) error {
			return tx.CreateType(store.TypeSpec{Name: "shop/box", Meta: map[string]any{"ui/label": "Boxes"}, Fields: []store.FieldSpec{
				{Name: "shop.box/name", Type: store.TText, Meta: map[string]any{"ui/label": "Name"}},
			}})
		}); err != nil {
			t.Fatal(err)
		}
		// attached counts the rows attached to the entities.
		attached := func(ids ...string) int {
			t.Helper()
			n := 0
			for _, table := range attachedTables {
				for _, id := range ids {
					var c int
					if err := e.st.DB().QueryRow(e.st.Dialect().Rebind("SELECT COUNT(*) FROM "+table+" WHERE entity_id = ?"), id).Scan(&c); err != nil {
						t.Fatal(err)
					}
					n += c
				}
			}
			return n
		}
		// gql runs a mutation on space and returns the ids its group
		// lists (listEntities, or the entities create made).
		gql := func(space, q string) []string {
			t.Helper()
			status, body, _ := e.post(t, "/api/graphql/space/"+space, gqlBody(q), true)
			if status != 200 || strings.Contains(body, `"errors"`) {
				t.Fatalf("%s: %d %s", q, status, body)
			}
			var out struct {
				Data map[string]map[string]json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal([]byte(body), &out); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, group := range out.Data {
				for _, action := range []string{"listEntities", "create"} {
					var list []struct {
						ID string `json:"id"`
					}
					var made struct {
						Entities []struct {
							ID string `json:"id"`
						} `json:"entities"`
					}
					if json.Unmarshal(group[action], &list) == nil {
						for _, x := range list {
							ids = append(ids, x.ID)
						}
					} else if json.Unmarshal(group[action], &made) == nil {
						for _, x := range made.Entities {
							ids = append(ids, x.ID)
						}
					}
				}
			}
			return ids
		}
		const attach = `addComment(value: "about {{name}}") { message } assignToMe { message }
			attachPdfUsingTemplate(value: "{{name}}", name: "file") { message } notifyAssignees(subject: "s", message: "m") { message }`
		// create makes an entity of group in space with everything attached.
		create := func(space, group, name string) string {
			t.Helper()
			ids := gql(space, `mutation { `+group+` { create(name: "`+name+`") { entities { id } } `+attach+` } }`)
			if len(ids) != 1 {
				t.Fatalf("created %v", ids)
			}
			if n := attached(ids[0]); n != 5 { // a comment, a file, an assignee, the creator, a notification
				t.Fatalf("%d rows attached to %s, want 5", n, name)
			}
			return ids[0]
		}
		commands := func(body string) {
			t.Helper()
			status, answer, _ := e.post(t, "/api/commands", body, true)
			if status != 200 || !strings.Contains(answer, `"success":true`) || strings.Contains(answer, `"success":false`) {
				t.Fatalf("%s: %d %s", body, status, answer)
			}
		}
		kept := create("shop", "products", "kept")

		byGraphQL := create("shop", "products", "g1")
		gql("shop", `mutation { products(name: {is: "g1"}) { delete { message } } }`)
		if n := attached(byGraphQL); n != 0 {
			t.Errorf("GraphQL's delete left %d rows", n)
		}

		byCommand := create("shop", "products", "c1")
		commands(`[{"command":"platform.entity/delete","args":{"type":"shop/product","entity":{"platform/id":"` + byCommand + `"}}}]`)
		if n := attached(byCommand); n != 0 {
			t.Errorf("platform.entity/delete left %d rows", n)
		}

		box := create("shop", "boxes", "b1")
		commands(`[{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.type/delete","args":{"name":"shop/box","delete-entities?":true}}]}}]`)
		if n := attached(box); n != 0 {
			t.Errorf("schema.type/delete left %d rows", n)
		}

		// A sync of every project, then of the first only: the tasks of
		// the others are removed.
		cfg := tracker.Config{Projects: 3, Tasks: 12}
		url := trackerURL(t, cfg.Tasks)
		ds := tracker.DatasetOf(cfg)
		first := ds.Project(1).Name
		opts := syncer.Options{AppURL: url, Account: map[string]string{"token": tracker.DemoToken}, Types: []string{"project", "task"}}
		if _, err := syncer.Run(ctx, e.st, opts); err != nil {
			t.Fatal(err)
		}
		removed := gql("tracker", `mutation { tasks(project: {name: {isNot: "`+first+`"}}) { listEntities { id } `+attach+` } }`)
		stays := gql("tracker", `mutation { tasks(project: {name: {is: "`+first+`"}}, limit: 1) { listEntities { id } `+attach+` } }`)
		if len(removed) == 0 || len(stays) != 1 || attached(removed...) == 0 {
			t.Fatalf("tasks of other projects %v, of the first %v", removed, stays)
		}
		opts.Filter = map[string][]string{tracker.FilterProjects: {first}}
		rep, err := syncer.Run(ctx, e.st, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range rep.Types {
			if tr.Type == "task" && tr.Removed != len(removed) {
				t.Fatalf("the sync removed %d tasks, want %d", tr.Removed, len(removed))
			}
		}
		if n := attached(removed...); n != 0 {
			t.Errorf("the sync's removal left %d rows", n)
		}
		if n := attached(append(stays, kept)...); n != 4+5 { // the task has no creator
			t.Errorf("%d rows attached to the entities kept, want 9", n)
		}
	})
}
