package githubapp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/github/githubapp"
	"github.com/appkitgo/appkit/examples/github/standin"
)

// replayAPI is the API base of the replay: any origin does, since the
// recording names the stand-in's origin (a random port) by a placeholder
// that the replay turns into this one.
const replayAPI = "http://api.github.test"

// Every type of an owner, synchronized from answers recorded from the
// stand-in (testdata/TestReplayedRecording.yaml), offline; a 502 on the way
// replays as it happened. Record again with
// go test ./examples/github/githubapp -run TestReplayedRecording -appkit.record.
func TestReplayedRecording(t *testing.T) {
	t.Parallel()
	data := standin.Generate(2, 5)
	opts := []appkittest.RecordOption{appkittest.RecordSecrets(standin.Token)}
	api := replayAPI
	if appkittest.Recording() {
		gh := standin.New(t, data, nil)
		gh.MaxPerPage = 2
		gh.Fail(standin.Fault{Path: "/repos/octo-org/repo-2/issues", Page: 2, Status: http.StatusBadGateway})
		api = gh.URL
		opts = append(opts, appkittest.RecordTransport(gh.Client().Transport))
	}
	app, err := githubapp.New(githubapp.Config{APIURL: api, HTTPClient: appkittest.Record(t, opts...)})
	if err != nil {
		t.Fatal(err)
	}
	c := appkittest.New(t, app)
	c.Account = map[string]any{"token": standin.Token}
	if r := c.Validate("token"); r.Status != 200 || !strings.Contains(string(r.Body), `"octocat"`) {
		t.Fatalf("validate = %d %s", r.Status, r.Body)
	}
	filter := map[string]any{"owner": "octo-org"}
	want := expect(data, "octo-org")
	wantRepos := map[string]bool{}
	for _, r := range want.repos {
		wantRepos[r.FullName()] = true
	}
	for _, tc := range []struct {
		typ  string
		want map[string]bool
	}{
		{"repository", wantRepos}, {"issue", want.issues}, {"pull_request", want.pulls},
		{"label", want.labels}, {"milestone", want.miles}, {"user", want.users},
	} {
		sameSet(t, tc.typ, ids(t, tc.typ, c.SyncAll(appkittest.Run{Type: tc.typ, Filter: filter})), tc.want)
	}
}
