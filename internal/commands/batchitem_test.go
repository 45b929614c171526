package commands

import (
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

// A batch's commands, of either kind, are read alike: an element that is
// no object, or no command, is refused naming its index.
func TestBatchCommandErrors(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, _ *store.Store) {
		for _, batch := range []string{CmdCommandBatch, CmdSchemaBatch} {
			for _, tc := range []struct {
				name, bad, wantName, wantMsg string
				wantIndex                    any
			}{
				{"not an object", `42`, NameInvalidArgs, "command 0 is not an object", nil},
				{"no command", `{"args":{}}`, NameMalformed, "command 0: a command must have", 0.0},
			} {
				t.Run(batch+"/"+tc.name, func(t *testing.T) {
					res := exec(t, api, `[{"command":"`+batch+`","args":{"commands":[`+tc.bad+`]}}]`)
					e, _ := res[0]["result"].(map[string]any)
					if res[0]["success"] != false || e["name"] != tc.wantName {
						t.Fatalf("result = %v", res[0])
					}
					if msg, _ := e["message"].(string); !strings.Contains(msg, tc.wantMsg) {
						t.Errorf("message %q, want %q in it", msg, tc.wantMsg)
					}
					if data, _ := e["data"].(map[string]any); data["index"] != tc.wantIndex {
						t.Errorf("data %v, want index %v", data, tc.wantIndex)
					}
				})
			}
		}
	})
}
