package syncer

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// fuzzMapping is a type with a field of each family of kinds.
var fuzzMapping = &typeMap{AppType: "item", Store: "x/item", Fields: map[string]*fieldMap{
	"name":  {AppID: "name", Kind: kText},
	"size":  {AppID: "size", Kind: kInt},
	"tags":  {AppID: "tags", Kind: kList},
	"when":  {AppID: "when", Kind: kDateRange},
	"owner": {AppID: "owner", Kind: kRefOne, Target: "user", TargetField: "id"},
}}

// FuzzDecodePage checks the streaming decoder against the reference: the
// whole answer decoded by encoding/json, then its items collected. Both
// agree on every answer (a top-level null aside, which the reference reads
// as nothing and the stream refuses), and nothing panics.
func FuzzDecodePage(f *testing.F) {
	for _, s := range []string{
		`{"items":[{"id":"a","name":"A","size":3,"tags":["x"],"owner":"u1"}],"pagination":{"hasNext":true,"nextPageConfig":{"c":1}},"synchronizationType":"full"}`,
		`{"synchronizationType":"delta","items":[{"id":1,"__syncAction":"REMOVE"},{"id":1,"name":"back"},{"id":"b","size":"x"}]}`,
		`{"items":[{"id":"a"},{"id":"a","name":"twice"},5,null,{"name":"no id"},{"id":"r","__syncAction":"remove"},{"id":"r","__syncAction":"SET","when":{"start":"2024-01-01","end":"2024-01-02"}}]}`,
		`{"other":{"deep":[1,[2,{"x":null}]]},"items":null,"pagination":null}`,
		`{"items":[],"items":[{"id":"last"}],"pagination":{"hasNext":true},"pagination":{"nextPageConfig":"n"}}`,
		`{"items":[{"i\u0064":"esc","n\u0061me":"A\nB","size":"12","owner":["u"]},{"id":"a","id":"b","name":"caf\u00e9 \xff"}]}`,
		"{\"items\":[{\"id\":\"\xffx\",\"name\":\"\xc3\xa9t\xe9\",\"\xff\":1,\"skip\":{\"a\":[[{}]]}}]}",
		`{"items":["a",true,[1],{"id":2,"__syncAction":"remove","size":[]}],"ITEMS":[{"id":3,"tags":"x"}]}`,
		`{"items":{}}`, `[]`, `null`, `{"items":[{"id":"a"`, `{"items":[1,2,3]} trailing`, `{"items":[{"id":"a","size":1e400}]}`,
	} {
		f.Add([]byte(s))
	}
	cols := newColumns(fuzzMapping)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := pageDecoder{space: "x", tm: fuzzMapping, cols: cols, page: 7}.decode(bytes.NewReader(data))
		var ref struct {
			Items      []any `json:"items"`
			Pagination *struct {
				HasNext        bool            `json:"hasNext"`
				NextPageConfig json.RawMessage `json:"nextPageConfig"`
			} `json:"pagination"`
			SynchronizationType any `json:"synchronizationType"`
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if rerr := dec.Decode(&ref); rerr != nil {
			if err == nil {
				t.Fatalf("decoded an answer the reference refuses (%v): %q", rerr, data)
			}
			return
		}
		if err != nil {
			if bytes.HasPrefix(bytes.TrimSpace(data), []byte("null")) {
				return
			}
			t.Fatalf("refused an answer the reference reads: %v: %q", err, data)
		}
		mode := protocol.SyncFull
		if s, _ := ref.SynchronizationType.(string); strings.EqualFold(s, protocol.SyncDelta) {
			mode = protocol.SyncDelta
		}
		want := collectItems(cols, ref.Items, mode, 7)
		if ref.Pagination != nil {
			want.hasNext, want.next = ref.Pagination.HasNext, ref.Pagination.NextPageConfig
		}
		if !want.hasNext || !got.hasNext {
			want.next, got.next = nil, nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", data, got, want)
		}
	})
}
