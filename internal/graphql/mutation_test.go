package graphql

import (
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

func TestMutations(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		svc := newTracker(t, st)
		runSteps(t, svc, []step{
			{"create with relations given as selectors, then act on the created entity",
				`mutation { tasks { create(name: "New", points: 2, estimate: 0.25, done: false, dueDate: "2024-05-01T00:00:00Z", period: {start: "2024-05-01"}, extra: "[1]", notes: "*hi*", status: {name: {is: "Done"}}, project: {name: {is: "Beta"}}, labels: {name: {in: ["red", "blue"]}}) { message entities { type } } addComment(value: "made by {{me.email}} in {{project.name}}") { message } } }`, nil,
				`{"data":{"tasks":{"create":{"message":"created 1 Tasks","entities":[{"type":"Tasks"}]},"addComment":{"message":"commented on 1 Tasks"}}}}`},
			{"read back", `{ findTasks(name: {is: "New"}) { name points estimate done dueDate period { start end } extra notes { md } status { name } project { name } labels(orderBy: {name: ASC}) { name } comments { md author } } }`, nil,
				`{"data":{"findTasks":[{"name":"New","points":2,"estimate":0.25,"done":false,"dueDate":"2024-05-01T00:00:00.000Z","period":{"start":"2024-05-01","end":null},"extra":"[1]","notes":{"md":"*hi*"},"status":{"name":"Done"},"project":{"name":"Beta"},"labels":[{"name":"blue"},{"name":"red"}],"comments":[{"md":"made by ann@example.com in Beta","author":"ann@example.com"}]}]}}`},
			{"createBatch", `mutation { labels { createBatch(data: [{name: "green"}, {name: "grey"}]) { message } countOfEntities } }`, nil,
				`{"data":{"labels":{"createBatch":{"message":"created 2 Labels"},"countOfEntities":2}}}`},
			{"a repeated action points to the batch form", `mutation { labels { create(name: "a") { message } create(name: "b") { message } } }`, nil,
				`{"errors":[{"message":"action create is repeated in labels: use createBatch(data: [...]) with one item per set of arguments, or give each occurrence an alias","locations":[{"line":1,"column":51}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}`},
			{"aliases allow an action twice", `mutation { labels { a: create(name: "a1") { message } b: create(name: "b1") { message } } }`, nil,
				`{"data":{"labels":{"a":{"message":"created 1 Labels"},"b":{"message":"created 1 Labels"}}}}`},
			{"update selected entities, count and list them", `mutation { tasks(project: {name: {is: "Alpha"}}, orderBy: {name: ASC}) { countOfEntities update(done: true, status: {name: {is: "Done"}}) { message } listEntities { name done status { name } } } }`, nil,
				`{"data":{"tasks":{"countOfEntities":2,"update":{"message":"updated 2 Tasks"},"listEntities":[{"name":"Fix bug","done":true,"status":{"name":"Done"}},{"name":"Write docs","done":true,"status":{"name":"Done"}}]}}}`},
			{"limit and offset page the selection", `mutation { tasks(orderBy: {name: ASC}, limit: 2, offset: 1) { listEntities { name } } }`, nil,
				`{"data":{"tasks":{"listEntities":[{"name":"New"},{"name":"Plan release"}]}}}`},
			{"rich text with templates", `mutation { tasks(name: {is: "Write docs"}) { appendContentToNotes(value: "Status: {{status.name}}, {{points}} points") { message } prependContentToNotes(value: "For {{me.email}}") { message } } }`, nil,
				`{"data":{"tasks":{"appendContentToNotes":{"message":"changed notes of 1 Tasks"},"prependContentToNotes":{"message":"changed notes of 1 Tasks"}}}}`},
			{"read the rich text", `{ findTasks(name: {is: "Write docs"}) { notes { md } } }`, nil,
				`{"data":{"findTasks":[{"notes":{"md":"For ann@example.com\n\n# Notes\n\nSome **bold** text.\n\nStatus: Done, 3 points"}}]}}`},
			{"overwrite", `mutation { tasks(name: {is: "Write docs"}) { overwriteContentOfNotes(value: "only {{name}}") { message } listEntities { notes { text } } } }`, nil,
				`{"data":{"tasks":{"overwriteContentOfNotes":{"message":"changed notes of 1 Tasks"},"listEntities":[{"notes":{"text":"only Write docs"}}]}}}`},
			{"an unknown template reference", `mutation { tasks { addComment(value: "{{nope}}") { message } } }`, nil,
				`{"errors":[{"message":"template reference {{nope}}: Task has no field nope","locations":[{"line":1,"column":20}],"path":["tasks","addComment"],"extensions":{"code":"BAD_USER_INPUT"}}],"data":{"tasks":null}}`},
			{"add related items", `mutation { projects(name: {is: "Beta"}) { addTasksItem(name: "Child", points: 1) { message entities { type } } addTasksItemBatch(data: [{name: "C2"}, {name: "C3"}]) { message } } }`, nil,
				`{"data":{"projects":{"addTasksItem":{"message":"created 1 Tasks linked through tasks","entities":[{"type":"Tasks"}]},"addTasksItemBatch":{"message":"created 2 Tasks linked through tasks"}}}}`},
			{"the project's tasks", `{ findProjects(name: {is: "Beta"}) { tasks(orderBy: {name: ASC}) { name } } }`, nil,
				`{"data":{"findProjects":[{"tasks":[{"name":"C2"},{"name":"C3"},{"name":"Child"},{"name":"New"},{"name":"Plan release"}]}]}}`},
			{"link, unlink", `mutation { tasks(name: {is: "idle"}) { linkLabels(name: {in: ["green", "grey"]}) { message } linkProject(name: {is: "Alpha"}) { message } unlinkLabels(name: {is: "grey"}) { message } listEntities { project { name } labels { name } } } }`, nil,
				`{"data":{"tasks":{"linkLabels":{"message":"linked 2 Labels to 1 Tasks through labels"},"linkProject":{"message":"linked 1 Projects to 1 Tasks through project"},"unlinkLabels":{"message":"unlinked 1 Labels through labels"},"listEntities":[{"project":{"name":"Alpha"},"labels":[{"name":"green"}]}]}}}`},
			{"unlink without arguments unlinks all", `mutation { tasks(name: {is: "idle"}) { unlinkProject { message } listEntities { project { name } } } }`, nil,
				`{"data":{"tasks":{"unlinkProject":{"message":"unlinked 1 Projects through project"},"listEntities":[{"project":null}]}}}`},
			{"delete related", `mutation { projects(name: {is: "Beta"}) { deleteTasks(name: {in: ["C2", "C3"]}) { message } } }`, nil,
				`{"data":{"projects":{"deleteTasks":{"message":"deleted 2 Tasks linked through tasks"}}}}`},
			{"delete", `mutation { tasks(name: {in: ["Child", "New"]}) { delete { message } countOfEntities } }`, nil,
				`{"data":{"tasks":{"delete":{"message":"deleted 2 Tasks"},"countOfEntities":0}}}`},
			{"what is left", `{ findTasks(orderBy: {name: ASC}) { name } }`, nil,
				`{"data":{"findTasks":[{"name":"Fix bug"},{"name":"Plan release"},{"name":"Write docs"},{"name":"idle"}]}}`},
			{"a failing action rolls its group back", `mutation { tasks { create(name: "rolled back") { message } update(status: {name: {is: "Nope"}}) { message } } }`, nil,
				`{"errors":[{"message":"no Option matches the selector of status","locations":[{"line":1,"column":60}],"path":["tasks","update"],"extensions":{"code":"BAD_USER_INPUT"}}],"data":{"tasks":null}}`},
			{"nothing of it was kept", `{ findTasks(name: {is: "rolled back"}) { name } }`, nil, `{"data":{"findTasks":[]}}`},
			{"a validation error", `mutation { labels { update(name: "x", nope: 1) { message } } }`, nil,
				`{"errors":[{"message":"Unknown argument \"nope\" on field \"LabelActions.update\". Did you mean \"name\"?","locations":[{"line":1,"column":21}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}`},
			{"a relation selector matching nothing", `mutation { labels { create(name: "kept?") { message } } tasks { create(name: "x", project: {name: {is: "Gamma"}}) { message } } }`, nil,
				`{"errors":[{"message":"no Project matches the selector of project","locations":[{"line":1,"column":65}],"path":["tasks","create"],"extensions":{"code":"BAD_USER_INPUT"}}],"data":{"labels":{"create":{"message":"created 1 Labels"}},"tasks":null}}`},
			{"the other group stayed", `{ findLabels(name: {in: ["kept?", "x"]}) { name } }`, nil,
				`{"data":{"findLabels":[{"name":"kept?"}]}}`},
			{"variables in mutations", `mutation M($d: [LabelInput!]!) { labels { createBatch(data: $d) { entities { type } } } }`, map[string]any{"d": []any{map[string]any{"name": "v1"}}},
				`{"data":{"labels":{"createBatch":{"entities":[{"type":"Labels"}]}}}}`},
		})
		// Ids in results are the entities'.
		got := run(t, svc, "tracker", `mutation { labels { create(id: "e0000000-0000-0000-0000-000000000001", name: "with id") { entities { id } } } }`, nil)
		if !strings.Contains(got, `"id":"e0000000-0000-0000-0000-000000000001"`) {
			t.Errorf("create with id: %s", got)
		}
	})
}
