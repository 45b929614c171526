package githubapp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/github/githubapp"
	"github.com/appkitgo/appkit/examples/github/standin"
)

// replayAPI is the API base of the recorded test: one origin in both
// modes, so the recorded Link headers stay on it when replayed.
const replayAPI = "http://api.github.test"

// toStandIn sends the requests for replayAPI to the stand-in, keeping the
// Host header (the stand-in writes its Link headers with it).
type toStandIn struct {
	addr string
	rt   http.RoundTripper
}

func (s toStandIn) RoundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.URL.Host, out.Host = s.addr, r.URL.Host
	return s.rt.RoundTrip(out)
}

// Every type of an owner, synchronized from answers recorded from the
// stand-in (testdata/TestReplayedRecording.yaml), offline; a 502 on the way
// replays as it happened. Record again with
// go test ./examples/github/githubapp -run TestReplayedRecording -appkit.record.
func TestReplayedRecording(t *testing.T) {
	t.Parallel()
	data := standin.Generate(2, 5)
	opts := []appkittest.RecordOption{appkittest.RecordSecrets(standin.Token)}
	if appkittest.Recording() {
		gh := standin.New(t, data, nil)
		gh.MaxPerPage = 2
		gh.Fail(standin.Fault{Path: "/repos/octo-org/repo-2/issues", Page: 2, Status: http.StatusBadGateway})
		opts = append(opts, appkittest.RecordTransport(toStandIn{addr: strings.TrimPrefix(gh.URL, "http://"), rt: gh.Client().Transport}))
	}
	app, err := githubapp.New(githubapp.Config{APIURL: replayAPI, HTTPClient: appkittest.Record(t, opts...)})
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
