package commands

import (
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

func TestSmoke(t *testing.T) {
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		ok(t, api, `{"command":"platform.schema/batch","args":{"commands":[
 {"command":"schema.type/create","args":{"platform/name":"T/Task","platform/meta":{"platform/domain?":true},"platform/fields":[
   {"platform/name":"T/name","platform/type":"platform/text","platform/meta":{"ui/title?":true}},
   {"platform/name":"T/points","platform/type":"platform/int"}]}}]}}`)
		r := ok(t, api, `{"command":"platform.entity/create","args":{"type":"T/Task","entity":{"T/name":"a","T/points":3}}}`)
		t.Logf("%s", mustJSON(t, r))
		q := ok(t, api, `{"command":"platform.entity/query","args":{"query":{"q/from":"T/Task","q/select":["T/name","T/points","platform/public-id","platform/creation-date"],"q/where":[">",["T/points"],"$p"]},"params":{"$p":1}}}`)
		t.Logf("%s", mustJSON(t, q))
	})
}
