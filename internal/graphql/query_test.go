package graphql

import (
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

// names lists the task names of an answer of findTasks { name }.
func TestFindFilters(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		svc := newTracker(t, st)
		cases := []struct {
			args string
			want string // task names in order
		}{
			{``, "Write docs,Fix bug,Plan release,idle"},
			// String
			{`name: {is: "Fix bug"}`, "Fix bug"},
			{`name: {isNot: "Fix bug"}`, "Write docs,Plan release,idle"},
			{`name: {contains: "DOC"}`, "Write docs"},
			{`name: {notContains: "e"}`, "Fix bug"},
			{`name: {greater: "Plan release"}`, "Write docs,idle"},
			{`name: {greaterOrEquals: "Plan release"}`, "Write docs,Plan release,idle"},
			{`name: {less: "Plan"}`, "Fix bug"},
			{`name: {lessOrEquals: "Fix bug"}`, "Fix bug"},
			{`name: {in: ["idle", "Fix bug", "none"]}`, "Fix bug,idle"},
			{`name: {notIn: ["idle", "Fix bug"]}`, "Write docs,Plan release"},
			{`srokSdachi: {isNull: false}`, "Write docs"},
			{`srokSdachi: {isNull: true}`, "Fix bug,Plan release,idle"},
			// Int
			{`points: {is: 5}`, "Fix bug"},
			{`points: {isNot: 5}`, "Write docs,Plan release,idle"},
			{`points: {greater: 3}`, "Fix bug,Plan release"},
			{`points: {greaterOrEquals: 3}`, "Write docs,Fix bug,Plan release"},
			{`points: {less: 5}`, "Write docs"},
			{`points: {lessOrEquals: 5}`, "Write docs,Fix bug"},
			{`points: {in: [3, 8]}`, "Write docs,Plan release"},
			{`points: {notIn: [3, 8]}`, "Fix bug,idle"},
			{`points: {isNull: true}`, "idle"},
			// Float
			{`estimate: {is: 1.5}`, "Write docs"},
			{`estimate: {isNot: 2}`, "Write docs,Plan release,idle"},
			{`estimate: {greater: 1.5}`, "Fix bug"},
			{`estimate: {greaterOrEquals: 1.5}`, "Write docs,Fix bug"},
			{`estimate: {less: 2}`, "Write docs"},
			{`estimate: {lessOrEquals: 2.0}`, "Write docs,Fix bug"},
			{`estimate: {in: [2, 7.5]}`, "Fix bug"},
			{`estimate: {notIn: [2]}`, "Write docs,Plan release,idle"},
			{`estimate: {isNull: true}`, "Plan release,idle"},
			// Boolean
			{`done: {is: true}`, "Fix bug"},
			{`done: {is: false}`, "Write docs,Plan release"},
			{`done: {isNull: true}`, "idle"},
			// ID
			{`id: {is: "` + idT2 + `"}`, "Fix bug"},
			{`id: {isNot: "` + idT2 + `"}`, "Write docs,Plan release,idle"},
			{`id: {in: ["` + idT2 + `", "` + idT3 + `"]}`, "Fix bug,Plan release"},
			{`id: {notIn: ["` + idT2 + `", "` + idT3 + `"]}`, "Write docs,idle"},
			{`id: {isNull: false}`, "Write docs,Fix bug,Plan release,idle"},
			// date-time as String, ranges by their ends
			{`dueDate: {greater: "2024-02-15T00:00:00Z"}`, "Write docs"},
			{`period: {start: {is: "2024-03-01"}}`, "Write docs"},
			{`period: {isNull: true}`, "Fix bug,Plan release,idle"},
			// Several fields: AND.
			{`done: {is: false}, points: {greater: 3}`, "Plan release"},
			// Through one-to-one fields (an entity, a single select).
			{`project: {name: {is: "Alpha"}}`, "Write docs,Fix bug"},
			{`project: {budget: {greater: 10}}`, "Write docs,Fix bug"},
			{`project: {id: {is: "` + idBeta + `"}}`, "Plan release"},
			{`project: {id: {isNull: true}}`, "idle"},
			{`status: {name: {is: "Open"}}`, "Write docs,Plan release"},
			{`status: {name: {in: ["Done"]}}, project: {name: {is: "Alpha"}}`, "Fix bug"},
			// Inner lists.
			{`labels: {isEmpty: true}`, "Plan release,idle"},
			{`labels: {isEmpty: false}`, "Write docs,Fix bug"},
			{`labels: {contains: [{name: {is: "red"}}, {name: {is: "blue"}}]}`, "Write docs"},
			{`labels: {containsAny: [{name: {is: "red"}}, {name: {is: "blue"}}]}`, "Write docs,Fix bug"},
			{`labels: {notContains: [{name: {is: "red"}}, {name: {is: "blue"}}]}`, "Fix bug,Plan release,idle"},
			{`labels: {notContainsAny: [{name: {is: "red"}}, {name: {is: "blue"}}]}`, "Plan release,idle"},
			{`labels: {contains: [{}]}`, "Write docs,Fix bug"},
			// Order, limit, offset.
			{`orderBy: {points: DESC}`, "Plan release,Fix bug,Write docs,idle"},
			{`orderBy: {points: ASC}`, "idle,Write docs,Fix bug,Plan release"},
			{`orderBy: {project: {name: DESC}}`, "Plan release,Write docs,Fix bug,idle"},
			{`orderBy: [{status: {name: ASC}}, {name: DESC}]`, "idle,Fix bug,Write docs,Plan release"},
			{`orderBy: {dueDate: ASC}, limit: 2`, "Plan release,idle"},
			{`orderBy: {name: ASC}, limit: 2, offset: 1`, "Plan release,Write docs"},
			{`limit: 0`, ""},
		}
		for _, c := range cases {
			q := `{ findTasks` + map[bool]string{true: "(" + c.args + ")", false: ""}[c.args != ""] + ` { name } }`
			got := run(t, svc, "tracker", q, nil)
			var names []string
			for _, part := range strings.Split(got, `"name":"`)[1:] {
				names = append(names, part[:strings.IndexByte(part, '"')])
			}
			if strings.Join(names, ",") != c.want || strings.Contains(got, "errors") {
				t.Errorf("%s:\n got %s\nwant %s", c.args, got, c.want)
			}
		}
	})
}

func TestFindShapes(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		svc := newTracker(t, st)
		runSteps(t, svc, []step{
			{"every kind of field", `{ findTasks(limit: 1) { __typename id name points estimate done dueDate srokSdachi period { start end } extra status { id name } project { name budget } } }`, nil,
				`{"data":{"findTasks":[{"__typename":"Task","id":"` + idT1 + `","name":"Write docs","points":3,"estimate":1.5,"done":false,"dueDate":"2024-03-01T10:00:00.000Z","srokSdachi":"soon","period":{"start":"2024-03-01","end":"2024-03-05"},"extra":"{\"k\":[1,2]}","status":{"id":"` + idOpen + `","name":"Open"},"project":{"name":"Alpha","budget":10.50}}]}}`},
			{"rich text in every form", `{ findTasks(limit: 1) { notes { md html text jsonString } } }`, nil,
				`{"data":{"findTasks":[{"notes":{"md":"# Notes\n\nSome **bold** text.","html":"<h1>Notes</h1>\n<p>Some <strong>bold</strong> text.</p>\n","text":"Notes\nSome bold text.","jsonString":"{\"type\":\"doc\",\"children\":[{\"type\":\"heading\",\"level\":1,\"children\":[{\"type\":\"text\",\"text\":\"Notes\"}]},{\"type\":\"paragraph\",\"children\":[{\"type\":\"text\",\"text\":\"Some \"},{\"type\":\"strong\",\"children\":[{\"type\":\"text\",\"text\":\"bold\"}]},{\"type\":\"text\",\"text\":\" text.\"}]}]}"}}]}}`},
			{"aliases, inner lists with their own arguments", `{ a: findProjects(orderBy: {name: ASC}) { name open: tasks(status: {name: {is: "Open"}}) { name } top: tasks(orderBy: {points: DESC}, limit: 1) { name points } all: tasks { name } } b: findLabels(name: {is: "red"}) { name } }`, nil,
				`{"data":{"a":[{"name":"Alpha","open":[{"name":"Write docs"}],"top":[{"name":"Fix bug","points":5}],"all":[{"name":"Write docs"},{"name":"Fix bug"}]},{"name":"Beta","open":[{"name":"Plan release"}],"top":[{"name":"Plan release","points":8}],"all":[{"name":"Plan release"}]}],"b":[{"name":"red"}]}}`},
			{"fragments, inline fragments, merged selections", `query { findTasks(name: {is: "Write docs"}) { ...T ... on Task { labels(orderBy: {name: ASC}) { name } } project { name } project { budget } } } fragment T on Task { name points }`, nil,
				`{"data":{"findTasks":[{"name":"Write docs","points":3,"labels":[{"name":"blue"},{"name":"red"}],"project":{"name":"Alpha","budget":10.50}}]}}`},
			{"variables and defaults", `query Q($n: String!, $min: Int = 4, $o: [TaskOrderBy!]) { findTasks(name: {notIn: [$n]}, points: {greaterOrEquals: $min}, orderBy: $o) { name } }`,
				map[string]any{"n": "Fix bug", "o": map[string]any{"points": "DESC"}},
				`{"data":{"findTasks":[{"name":"Plan release"}]}}`},
			{"an unset variable sets no condition", `query Q($n: String) { findTasks(name: {is: $n}, limit: 1) { name } }`, nil,
				`{"data":{"findTasks":[{"name":"Write docs"}]}}`},
			{"skip and include", `query Q($yes: Boolean!) { findTasks(limit: 1) { name @skip(if: $yes) points @include(if: $yes) done @include(if: false) } }`, map[string]any{"yes": true},
				`{"data":{"findTasks":[{"points":3}]}}`},
			{"an inner list's limit 0", `{ findProjects(limit: 1) { tasks(limit: 0) { name } } }`, nil,
				`{"data":{"findProjects":[{"tasks":[]}]}}`},
			{"only __typename, at every level", `{ findTasks(limit: 1) { __typename project { __typename } labels { __typename } status { __typename } } }`, nil,
				`{"data":{"findTasks":[{"__typename":"Task","project":{"__typename":"Project"},"labels":[{"__typename":"Label"},{"__typename":"Label"}],"status":{"__typename":"Option"}}]}}`},
			{"me and __typename", `{ __typename me { __typename email } }`, nil,
				`{"data":{"__typename":"Query","me":{"__typename":"Me","email":"ann@example.com"}}}`},
			{"comments are empty at first", `{ findTasks(limit: 1) { comments { md author } } }`, nil,
				`{"data":{"findTasks":[{"comments":[]}]}}`},
			{"an operation chosen by name", `query A { me { email } } query B { findLabels(limit: 1) { name } }`, nil,
				`{"errors":[{"message":"the document has several operations: choose one with operationName","extensions":{"code":"BAD_USER_INPUT"}}]}`},
			{"validation errors have locations", `{ findTasks { nope } }`, nil,
				`{"errors":[{"message":"Cannot query field \"nope\" on type \"Task\". Did you mean \"name\", \"done\", or \"notes\"?","locations":[{"line":1,"column":15}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}`},
			{"an execution error has the field's path and leaves the other fields", `{ ok: findLabels(limit: 1) { name } bad: findTasks(id: {is: "not-a-uuid"}) { name } }`, nil,
				`{"errors":[{"message":"value: field platform/id: not a uuid: \"not-a-uuid\"","locations":[{"line":1,"column":37}],"path":["bad"],"extensions":{"code":"query.error/invalid-param"}}],"data":{"ok":[{"name":"red"}],"bad":null}}`},
			{"a bad variable", `query Q($n: Int!) { findTasks(points: {is: $n}) { name } }`, map[string]any{"n": "three"},
				`{"errors":[{"message":"cannot use string as Int","path":["variable","n"],"extensions":{"code":"BAD_USER_INPUT"}}]}`},
			{"a negative limit", `{ findTasks(limit: -1) { name } }`, nil,
				`{"errors":[{"message":"limit must not be negative","locations":[{"line":1,"column":3}],"path":["findTasks"],"extensions":{"code":"BAD_USER_INPUT"}}],"data":{"findTasks":null}}`},
		})
	})
}
