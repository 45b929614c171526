package appkittest_test

import (
	"net/http/httptest"
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/appkit/upstream"
)

// A test whose upstream calls replay testdata/TestTickets.yaml, offline;
// `go test -run TestTickets -appkit.record` records it again from a
// stand-in the test serves. The token never reaches the file.
func ExampleRecord() {
	const token = "test-token-1234"
	testTickets := func(t *testing.T, standIn func() *httptest.Server) {
		base := "https://desk.example/api" // any origin: replays match path, query and body, and answer this origin where the upstream named its own
		opts := []appkittest.RecordOption{appkittest.RecordSecrets(token)}
		if appkittest.Recording() {
			srv := standIn()
			defer srv.Close()
			base = srv.URL + "/api"
			opts = append(opts, appkittest.RecordTransport(srv.Client().Transport))
		}
		api := &upstream.Client{BaseURL: base, Auth: upstream.Bearer("token"), HTTPClient: appkittest.Record(t, opts...)}
		_ = api // give it to the app under test, then drive the app with appkittest.New
	}
	_ = testTickets
}
