package graphql

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestLimits(t *testing.T) {
	t.Parallel()
	svc := trackerService(t, Config{MaxDepth: 4, MaxComplexity: 10, MaxQueryBytes: 500, MaxTokens: 100})
	st := svc.cfg.Store
	deep := `{ findTasks { project { tasks { project { tasks { name } } } } } }`
	wide := `{ findTasks { ` + strings.Repeat("name ", 11) + `} }`
	cases := []struct{ name, query, want string }{
		{"depth at the bound", `{ findTasks(name: {is: "Fix bug"}) { project { tasks(orderBy: {name: ASC}) { name } } } }`, `{"data":{"findTasks":[{"project":{"tasks":[{"name":"Fix bug"},{"name":"Write docs"}]}}]}}`},
		{"fields at the bound", `{ findTasks(name: {is: "idle"}) { ` + strings.Repeat("name ", 9) + `} }`, `{"data":{"findTasks":[{"name":"idle"}]}}`},
		{"depth", deep, `{"errors":[{"message":"the query nests deeper than 4 levels","extensions":{"code":"QUERY_TOO_DEEP"}}]}`},
		{"depth one past the bound", `{ findTasks { project { tasks { project { name } } } } }`, `{"errors":[{"message":"the query nests deeper than 4 levels","extensions":{"code":"QUERY_TOO_DEEP"}}]}`},
		{"fields", wide, `{"errors":[{"message":"the query selects more than 10 fields (fragments counted at each use)","extensions":{"code":"QUERY_TOO_COMPLEX"}}]}`},
		{"fragments count at each use", `{ a: findTasks { ...F } b: findTasks { ...F } c: findTasks { ...F } } fragment F on Task { name points id }`,
			`{"errors":[{"message":"the query selects more than 10 fields (fragments counted at each use)","extensions":{"code":"QUERY_TOO_COMPLEX"}}]}`},
		{"length", `{ findTasks { name } }` + strings.Repeat(" ", 500), `{"errors":[{"message":"the query is longer than 500 bytes","extensions":{"code":"QUERY_TOO_LARGE"}}]}`},
		{"tokens", `{ findTasks(points: {in: [` + strings.Repeat(`1 `, 120) + `]}) { name } }`, `{"errors":[{"message":"exceeded token limit of 100","extensions":{"code":"GRAPHQL_PARSE_FAILED"}}]}`},
		{"empty", ``, `{"errors":[{"message":"the request has no query","extensions":{"code":"GRAPHQL_PARSE_FAILED"}}]}`},
		{"subscriptions", `subscription { x }`, `{"errors":[{"message":"Schema does not support operation type \"subscription\"","locations":[{"line":1,"column":1}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}`},
	}
	for _, c := range cases {
		if got := run(t, svc, "tracker", c.query, nil); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	// Filters nest SQL sub-queries: their depth is bounded.
	nested := `{name: {is: "x"}}`
	for i := 0; i < 8; i++ {
		nested = `{project: {tasks: {contains: [` + nested + `]}}}`
	}
	got := run(t, mustNew(t, Config{Store: st}), "tracker", `{ findTasks(labels: {contains: [{name: {is: "a"}}]}, project: `+nested[len(`{project: `):len(nested)-1]+`) { name } }`, nil)
	if !strings.Contains(got, "argument project nests deeper than 24 levels") {
		t.Errorf("nested filters: %s", got)
	}
	// A condition reaches at most query.MaxPathFields fields through
	// relations: project.tasks three times and name are 7.
	ok := `{name: {is: "Write docs"}}`
	for i := 0; i < 3; i++ {
		ok = `{project: {tasks: {contains: [` + ok + `]}}}`
	}
	got = run(t, mustNew(t, Config{Store: st}), "tracker", `{ findTasks(project: `+ok[len(`{project: `):len(ok)-1]+`) { name } }`, nil)
	if got != `{"data":{"findTasks":[{"name":"Write docs"},{"name":"Fix bug"}]}}` {
		t.Errorf("nested filters within the bound: %s", got)
	}
	far := `{project: {tasks: {contains: [` + ok + `]}}}`
	got = run(t, mustNew(t, Config{Store: st}), "tracker", `{ findTasks(project: `+far[len(`{project: `):len(far)-1]+`) { name } }`, nil)
	if !strings.Contains(got, `"message":"a filter reaches 9 fields deep through relations; at most 8"`) || !strings.Contains(got, `"data":{"findTasks":null}`) {
		t.Errorf("nested filters past the bound: %s", got)
	}
	// A request past its deadline is stopped with a timeout error, per field.
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	resp, err := svc.Execute(ctx, "tracker", viewer, &Request{Query: `{ findTasks { name } }`})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := resp.MarshalJSON()
	if !strings.Contains(string(b), `"code":"TIMEOUT"`) || !strings.Contains(string(b), `"path":["findTasks"]`) {
		t.Errorf("deadline: %s", b)
	}
	// Too many entities for one mutation group.
	if got := run(t, mustNew(t, Config{Store: st}), "tracker", `mutation { tasks(limit: 100001) { countOfEntities } }`, nil); !strings.Contains(got, "limit must be at most 100000") {
		t.Errorf("mutation limit: %s", got)
	}
}
