package conformance_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/appkitgo/appkit/conformance"
)

// FuzzAnswers serves arbitrary bodies as an app's answers: whatever an app
// answers, a run completes without panicking and its counts add up.
func FuzzAnswers(f *testing.F) {
	f.Add([]byte(`{"name":"a","website":"w","version":"1","description":"d","authentication":[{"id":"none","name":"None"}],"sources":[],"responsibleFor":{"dataSynchronization":true}}`),
		[]byte(`{"types":[{"id":"t","name":"T"}],"filters":[{"id":"f","title":"F","type":"list","datalist":true,"datalist_requires":["f"]}],"webhooks":{"enabled":true}}`),
		[]byte(`{"t":{"id":{"name":"ID","type":"id"},"name":{"name":"N","type":"text"},"r":{"name":"R","type":"text","relation":{"cardinality":"many-to-one","name":"R","targetType":"t","targetName":"R"}}}}`),
		[]byte(`{"items":[{"id":"1","name":"x","r":"1","__syncAction":"SET"}],"pagination":{"hasNext":true,"nextPageConfig":{"p":1}},"synchronizationType":"delta"}`))
	f.Add([]byte(`{"authentication":[{"id":"oauth2","fields":[{"type":"highlightText"}]},{"id":"oauth2"}],"actions":[{"action":"a","args":[{"id":"x"}]}],"responsibleFor":{"automations":true,"dataSynchronization":true}}`),
		[]byte(`{"types":"x","filters":[null,1,{"type":"date"}]}`), []byte(`[]`), []byte(`{"items":[1,null,{"id":2}],"pagination":{"hasNext":"yes"}}`))
	f.Add([]byte(`null`), []byte(`{}`), []byte(`{"t":null}`), []byte(`{"items":null}`))
	f.Fuzz(func(t *testing.T, descriptor, config, schema, data []byte) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch r.URL.Path {
			case "/":
				_, _ = w.Write(descriptor)
			case "/api/v1/synchronizer/config":
				_, _ = w.Write(config)
			case "/api/v1/synchronizer/schema", "/api/v1/synchronizer/datalist", "/api/v1/synchronizer/webhooks":
				_, _ = w.Write(schema)
			case "/api/v1/synchronizer/data", "/api/v1/synchronizer/webhooks/transform", "/validate":
				_, _ = w.Write(data)
			default:
				w.WriteHeader(http.StatusTeapot)
				_, _ = w.Write(config)
			}
		})
		// The run is bounded by its own limits (pages, per-request and
		// per-run time), never by the test's clock.
		rep, err := conformance.Run(context.Background(), conformance.Config{
			Handler: h, Account: map[string]any{"token": "x"}, MaxPages: 5, Timeout: 5 * time.Second, RunTimeout: 10 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := rep.Passed + rep.Failed + rep.Warnings + rep.Skipped; n != len(rep.Results) || n == 0 {
			t.Fatalf("counts %d+%d+%d+%d for %d results", rep.Passed, rep.Failed, rep.Warnings, rep.Skipped, len(rep.Results))
		}
	})
}
