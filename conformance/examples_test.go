package conformance_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/examples/actions/notify"
	"github.com/appkitgo/appkit/examples/github/githubapp"
	"github.com/appkitgo/appkit/examples/github/standin"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
	"github.com/appkitgo/appkit/examples/supportdesk/fakedesk"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

// quiet drops the example apps' request logs.
var quiet = zerolog.Nop()

// The suite passes against every example app, served in process (with a
// stand-in of its upstream where it has one), without a warning.
func TestExamples(t *testing.T) {
	t.Parallel()
	for _, ex := range []struct {
		name    string
		app     func(t *testing.T) (*appkit.App, error)
		account map[string]any
		filter  map[string]any
	}{
		{"tracker", func(*testing.T) (*appkit.App, error) { return tracker.New(tracker.Config{Logger: &quiet}), nil },
			map[string]any{"token": tracker.DemoToken}, nil},
		{"supportdesk", func(t *testing.T) (*appkit.App, error) {
			upstream := httptest.NewServer(fakedesk.New(120, nil)) // the help desk's API
			t.Cleanup(upstream.Close)
			return desk.New(desk.Config{URL: upstream.URL + "/api", Logger: &quiet}), nil
		}, map[string]any{"token": fakedesk.Token}, nil},
		{"notify", func(*testing.T) (*appkit.App, error) { return notify.New(notify.Config{Logger: &quiet}), nil },
			map[string]any{"token": notify.DefaultToken}, nil},
		{"github", func(t *testing.T) (*appkit.App, error) {
			gh := standin.New(t, standin.Generate(2, 5), nil) // GitHub's REST API
			return githubapp.New(githubapp.Config{APIURL: gh.URL, Logger: &quiet})
		}, map[string]any{"token": standin.Token}, map[string]any{"owner": "octo-org"}},
	} {
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel()
			app, err := ex.app(t)
			if err != nil {
				t.Fatal(err)
			}
			var h http.Handler
			if h, err = app.Handler(); err != nil {
				t.Fatal(err)
			}
			rep := conformance.Test(t, conformance.Config{Handler: h, Account: ex.account, Filter: ex.filter})
			if rep.Warnings > 0 {
				t.Errorf("warnings: %v", rep.FailedIDs())
			}
		})
	}
}
