package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

const limitsSchema = `{"command":"platform.schema/batch","args":{"commands":[
 {"command":"schema.type/create","args":{"platform/name":"M/T","platform/fields":[{"platform/name":"M/name","platform/type":"platform/text"}]}}]}}`

func createM(name string) string {
	return `{"command":"platform.entity/create","args":{"type":"M/T","entity":{"M/name":` + mustJSONString(name) + `}}}`
}

func mustJSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// repeat joins n copies of cmd with commas.
func repeat(cmd string, n int) string {
	if n == 0 {
		return ""
	}
	return strings.Repeat(cmd+",", n-1) + cmd
}

func batchOf(cmds ...string) string {
	return `{"command":"platform.command/batch","args":{"commands":[` + strings.Join(cmds, ",") + `]}}`
}

const emptyBatch = `{"command":"platform.command/batch","args":{"commands":[]}}`

// withLimits runs fn against every backend with limitsSchema written.
func withLimits(t *testing.T, fn func(t *testing.T, api *API)) {
	forEachStore(t, func(t *testing.T, api *API, _ *store.Store) {
		ok(t, api, limitsSchema)
		fn(t, api)
	})
}

// countM is the number of M/T entities.
func countM(t *testing.T, api *API) int {
	t.Helper()
	rows := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"M/T","q/select":["M/name"],"q/limit":"q/no-limit"}}}`)
	return len(rows.([]any))
}

// The command cap counts every command of a request at every depth, the
// batches included, at the cap and one past it; a request past the cap runs
// nothing.
func TestCommandCap(t *testing.T) {
	t.Parallel()
	withLimits(t, func(t *testing.T, api *API) {
		for _, c := range []struct {
			name  string
			cmds  string // the request's commands after one create
			total int    // commands counted, the create included
		}{
			{"top level at the cap", repeat(emptyBatch, MaxCommands-1), MaxCommands},
			{"top level past the cap", repeat(emptyBatch, MaxCommands), MaxCommands + 1},
			{"one batch at the cap", batchOf(repeat(emptyBatch, MaxCommands-2)), MaxCommands},
			{"one batch past the cap", batchOf(repeat(emptyBatch, MaxCommands-1)), MaxCommands + 1},
			{"nested batches past the total", batchOf(batchOf(repeat(emptyBatch, 5000)), batchOf(repeat(emptyBatch, 5000))), 1 + 1 + 2 + 10000},
			{"two batches past the total", batchOf(repeat(`{"command":"platform.schema/query"}`, 5000)) + "," + batchOf(repeat(`{"command":"platform.schema/query"}`, 5000)), 1 + 2 + 10000},
			{"schema commands past the total", batchOf(`{"command":"platform.schema/batch","args":{"commands":[` +
				repeat(`{"command":"schema.enum/create","args":{"platform/name":"M/e"}}`, MaxCommands-2) + `]}}`), MaxCommands + 1},
			{"deeper than the nesting limit counts once", batchOf(batchOf(batchOf(batchOf(batchOf(repeat(emptyBatch, MaxCommands)))))), 1 + 5},
		} {
			t.Run(c.name, func(t *testing.T) {
				before := countM(t, api)
				res, err := api.Execute(context.Background(), []byte("["+createM("x")+","+c.cmds+"]"))
				if c.total > MaxCommands {
					e, isErr := store.AsError(err)
					if !isErr || e.Name != NameTooLarge || e.Data["max"] != MaxCommands {
						t.Fatalf("%d commands: got %v, want %s", c.total, err, NameTooLarge)
					}
					if n := countM(t, api); n != before {
						t.Errorf("a refused request ran its first command (%d entities, had %d)", n, before)
					}
					return
				}
				if err != nil {
					t.Fatalf("%d commands: %v", c.total, err)
				}
				if !res[0].Success {
					t.Errorf("create failed: %v", res[0].Result)
				}
			})
		}
	})
}

// nest wraps cmd in depth command batches.
func nest(cmd string, depth int) string {
	for i := 0; i < depth; i++ {
		cmd = batchOf(cmd)
	}
	return cmd
}

// Command batches nest MaxBatchDepth deep and no deeper; a refused batch
// applies nothing.
func TestBatchNesting(t *testing.T) {
	t.Parallel()
	withLimits(t, func(t *testing.T, api *API) {
		for _, c := range []struct {
			depth int
			ok    bool
		}{{1, true}, {MaxBatchDepth, true}, {MaxBatchDepth + 1, false}, {MaxBatchDepth + 2, false}} {
			t.Run(fmt.Sprint(c.depth), func(t *testing.T) {
				before := countM(t, api)
				res := exec(t, api, "["+nest(batchOf(createM("a"), createM("b")), c.depth-1)+"]")
				if !c.ok {
					r := res[0]["result"].(map[string]any)
					if res[0]["success"] != false || r["name"] != NameInvalidArgs {
						t.Fatalf("%d deep: %v, want %s", c.depth, res[0], NameInvalidArgs)
					}
					if d := r["data"].(map[string]any); d["max-depth"] != float64(MaxBatchDepth) {
						t.Errorf("data = %v", d)
					}
					if n := countM(t, api); n != before {
						t.Errorf("a refused batch applied %d creates", n-before)
					}
					return
				}
				if res[0]["success"] != true {
					t.Fatalf("%d deep: %v", c.depth, res[0]["result"])
				}
				// The innermost batch's result, under depth-1 enclosing ones.
				v := res[0]["result"]
				for i := 1; i < c.depth; i++ {
					v = v.([]any)[0].(map[string]any)["result"]
				}
				if inner := v.([]any); len(inner) != 2 || inner[1].(map[string]any)["success"] != true {
					t.Errorf("innermost batch result: %v", v)
				}
				if n := countM(t, api); n != before+2 {
					t.Errorf("%d entities created, want 2", n-before)
				}
			})
		}
	})
}

// The answer's budget is its JSON size: a request fits at exactly its
// encoded size, and one byte less refuses the command that crosses it,
// whatever command that is (a write or a batch is rolled back).
func TestAnswerBudgetIsTheEncodedSize(t *testing.T) {
	t.Parallel()
	withLimits(t, func(t *testing.T, api *API) {
		ok(t, api, batchOf(createM("a"), createM("b\n\"quoted\" ünï \u2028")))
		id := ok(t, api, createM("c")).(map[string]any)["platform/id"].(string)
		q := `{"command":"platform.entity/query","args":{"query":{"q/from":"M/T","q/select":["M/name","platform/id","platform/modification-date"]}}}`
		update := `{"command":"platform.entity/update","args":{"type":"M/T","entity":{"platform/id":"` + id + `","M/name":"c2"}}}`
		prefix := []string{q, `{"command":"platform.schema/query"}`, `{"command":"no/such-command"}`, batchOf(q, batchOf(q), emptyBatch)}
		for _, c := range []struct{ name, last string }{
			{"query", q},
			{"schema query", `{"command":"platform.schema/query"}`},
			{"update", update},
			{"update in a batch", batchOf(q, update)},
			{"empty batch", emptyBatch},
		} {
			t.Run(c.name, func(t *testing.T) {
				body := "[" + strings.Join(append(prefix, c.last), ",") + "]"
				// The second run measures: the update changes what the
				// queries read the first time only.
				exec(t, api, body)
				res, err := api.Execute(context.Background(), []byte(body))
				if err != nil {
					t.Fatal(err)
				}
				enc, err := EncodeResults(res)
				if err != nil {
					t.Fatal(err)
				}
				b := newAnswer(len(enc))
				res, err = api.execute(context.Background(), []byte(body), b)
				if err != nil {
					t.Fatal(err)
				}
				if b.Spent() != len(enc) || b.Over() {
					t.Errorf("budget spent %d (over %v), the answer is %d bytes", b.Spent(), b.Over(), len(enc))
				}
				for i, r := range res {
					if eb, isErr := r.Result.(ErrorBody); isErr && eb.Name != NameUnknownCommand {
						t.Errorf("command %d at the bound: %v", i, eb)
					}
				}
				modified := lastModified(t, api)
				b = newAnswer(len(enc) - 1)
				res, err = api.execute(context.Background(), []byte(body), b)
				if err != nil {
					t.Fatal(err)
				}
				last := res[len(res)-1]
				if eb, isErr := last.Result.(ErrorBody); !isErr || eb.Name != NameTooLarge {
					t.Errorf("last command one byte past the bound: %v", last)
				}
				for i, r := range res[:len(res)-1] {
					if eb, isErr := r.Result.(ErrorBody); isErr && eb.Name != NameUnknownCommand {
						t.Errorf("command %d before the bound: %v", i, eb)
					}
				}
				if got := lastModified(t, api); got != modified {
					t.Errorf("the refused command was applied: %s, was %s", got, modified)
				}
			})
		}
	})
}

// lastModified is the latest modification date of the M/T entities.
func lastModified(t *testing.T, api *API) string {
	t.Helper()
	rows := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"M/T","q/select":["platform/modification-date"],"q/order-by":[[["platform/modification-date"],"q/desc"]],"q/limit":1}}}`)
	return mustJSON(t, rows)
}

// MaxAnswerBytes bounds what one request answers: 1 MiB values read again
// and again cross it; in a batch nothing is applied, at top level the
// crossing command and those after it fail and run nothing.
func TestAnswerBound(t *testing.T) {
	t.Parallel()
	withLimits(t, func(t *testing.T, api *API) {
		big := strings.Repeat("x", 1<<20)
		ok(t, api, createM(big))
		q := `{"command":"platform.entity/query","args":{"query":{"q/from":"M/T","q/select":["M/name"]}}}`
		n := MaxAnswerBytes/(1<<20) + 2

		res := exec(t, api, "["+batchOf(createM("in batch"), repeat(q, n))+"]")
		r := res[0]["result"].(map[string]any)
		if res[0]["success"] != false || r["name"] != NameTooLarge {
			t.Fatalf("batch: %v", r["name"])
		}
		if d := r["data"].(map[string]any); d["max-bytes"] != float64(MaxAnswerBytes) || d["index"] != float64(MaxAnswerBytes/(1<<20)) /* the create, then 32 queries */ {
			t.Errorf("batch error data = %v", d)
		}
		if got := countM(t, api); got != 1 {
			t.Errorf("the refused batch applied its create: %d entities", got)
		}

		raw, err := api.Execute(context.Background(), []byte("["+repeat(q, n)+","+createM("after")+"]"))
		if err != nil {
			t.Fatal(err)
		}
		crossed := -1
		for i, r := range raw {
			eb, failed := r.Result.(ErrorBody)
			switch {
			case !failed && crossed >= 0:
				t.Errorf("command %d ran after the answer crossed its bound", i)
			case failed && eb.Name != NameTooLarge:
				t.Errorf("command %d: %v", i, eb)
			case failed && crossed < 0:
				crossed = i
			}
		}
		// 32 results of a little more than 1 MiB each cross 32 MiB.
		if want := MaxAnswerBytes/(1<<20) - 1; crossed != want {
			t.Errorf("command %d crossed the bound, want %d", crossed, want)
		}
		if got := countM(t, api); got != 1 {
			t.Errorf("a command after the bound ran: %d entities", got)
		}
		enc, err := EncodeResults(raw)
		if err != nil {
			t.Fatal(err)
		}
		if len(enc) > MaxAnswerBytes {
			t.Errorf("answer of %d bytes, bound %d", len(enc), MaxAnswerBytes)
		}
	})
}

// A query whose result multiplies (a project's tasks, their project, its
// tasks, and so on) answers query.error/too-large through the API.
func TestQueryTooLarge(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		ok(t, api, fixtureSchema)
		var creates []string
		for i := 0; i < 18; i++ { // 18^4 alone is over 100,000
			creates = append(creates, fmt.Sprintf(`{"command":"platform.entity/create","args":{"type":"T/Task","entity":{"T/name":"t%d","T/project":{"platform/id":"99999999-0000-0000-0000-000000000001"}}}}`, i))
		}
		ok(t, api, batchOf(creates...))
		sel := `["T/name"]`
		for i := 0; i < 4; i++ {
			sel = `["T/name",{"T/tasks":{"q/select":["T/name",{"T/project":` + sel + `}],"q/limit":"q/no-limit"}}]`
		}
		name := fails(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"T/Project","q/select":`+sel+`}}}`)
		if name != query.NameTooLarge {
			t.Errorf("got %s, want %s", name, query.NameTooLarge)
		}
	})
}

// The body is split into commands as encoding/json would decode it into an
// array, reading no further than MaxCommands + 1 elements.
func TestSplitCommands(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`[]`, ` [ ] `, "[{}]\n", `[1,"x",{"a":[1,{}]},null]`, `null`, `{}`, `"x"`, ``, `[`, `[1,]`, `[1 2]`, `[,1]`,
		`[1]]`, `[1] [2]`, `[1]x`, `[{"a":}]`, `[1,` + strings.Repeat(" ", 10) + `2]`,
	} {
		var want []json.RawMessage
		wantErr := json.Unmarshal([]byte(body), &want) != nil || want == nil
		got, err := splitCommands([]byte(body))
		if (err != nil) != wantErr {
			t.Errorf("%q: error %v, want error %v", body, err, wantErr)
			continue
		}
		if err != nil {
			if e, _ := store.AsError(err); e == nil || e.Name != NameMalformed {
				t.Errorf("%q: %v, want %s", body, err, NameMalformed)
			}
			continue
		}
		if len(got) != len(want) {
			t.Errorf("%q: %d elements, want %d", body, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(bytes.TrimSpace(got[i]), bytes.TrimSpace(want[i])) {
				t.Errorf("%q: element %d = %s, want %s", body, i, got[i], want[i])
			}
		}
	}
	for _, n := range []int{MaxCommands, MaxCommands + 1, 3 * MaxCommands} {
		body := "[" + repeat("1", n) + "]"
		got, err := splitCommands([]byte(body))
		if n <= MaxCommands && (err != nil || len(got) != n) {
			t.Errorf("%d elements: %d, %v", n, len(got), err)
		}
		if e, _ := store.AsError(err); n > MaxCommands && (e == nil || e.Name != NameTooLarge) {
			t.Errorf("%d elements: %v, want %s", n, err, NameTooLarge)
		}
	}
}
