package commands

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// Concurrent writers and readers: every create succeeds once, public ids are
// unique and gapless, reads never fail.
func TestConcurrentCommands(t *testing.T) {
	t.Parallel()
	dsns := testkit.StoreDSNs(t)
	dsns["sqlite-file"] = "sqlite:" + filepath.Join(t.TempDir(), "c.db")
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := teststore.Open(t, dsn)
			api := New(st)
			ok(t, api, `{"command":"platform.schema/batch","args":{"commands":[{"command":"schema.type/create","args":{"platform/name":"C/Item","platform/fields":[{"platform/name":"C/n","platform/type":"platform/int"}]}}]}}`)
			const workers, each = 6, 15
			var wg sync.WaitGroup
			errs := make(chan string, workers*each*2)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := 0; i < each; i++ {
						res, err := api.Execute(context.Background(), []byte(fmt.Sprintf(
							`[{"command":"platform.entity/create","args":{"type":"C/Item","entity":{"C/n":%d}}},
							  {"command":"platform.entity/query","args":{"query":{"q/from":"C/Item","q/select":["C/n"],"q/limit":5}}}]`, w*100+i)))
						if err != nil {
							errs <- err.Error()
							continue
						}
						for _, r := range res {
							if !r.Success {
								errs <- fmt.Sprint(r.Result)
							}
						}
					}
				}(w)
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			rows := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"C/Item","q/select":["platform/public-id"],"q/limit":"q/no-limit"}}}`).([]any)
			var ids []int
			for _, r := range rows {
				n, _ := strconv.Atoi(r.(map[string]any)["platform/public-id"].(string))
				ids = append(ids, n)
			}
			sort.Ints(ids)
			if len(ids) != workers*each {
				t.Fatalf("%d entities, want %d", len(ids), workers*each)
			}
			for i, n := range ids {
				if n != i+1 {
					t.Fatalf("public ids not unique and gapless: %v", ids)
				}
			}
		})
	}
}

// Reads inside a platform.command/batch see the batch's own writes.
func TestBatchReadsItsWrites(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		res := ok(t, api, `{"command":"platform.command/batch","args":{"commands":[
		 {"command":"platform.schema/batch","args":{"commands":[{"command":"schema.type/create","args":{"platform/name":"C/Item","platform/fields":[{"platform/name":"C/n","platform/type":"platform/int"}]}}]}},
		 {"command":"platform.entity/create","args":{"type":"C/Item","entity":{"C/n":7}}},
		 {"command":"platform.entity/query","args":{"query":{"q/from":"C/Item","q/select":["C/n"]}}},
		 {"command":"platform.schema/query"}]}}`).([]any)
		if got := mustJSON(t, res[2]); got != `{"result":[{"C/n":7}],"success":true}` {
			t.Errorf("query in batch: %s", got)
		}
		if !strings.Contains(mustJSON(t, res[3]), `"C/Item"`) {
			t.Errorf("schema in batch lacks the new type")
		}
	})
}
