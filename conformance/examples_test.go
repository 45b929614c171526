package conformance_test

import (
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/examples/actions/notify"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
	"github.com/appkitgo/appkit/examples/supportdesk/fakedesk"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

// quiet drops the example apps' request logs.
var quiet = zerolog.Nop()

// The suite passes against every example app, served in process.
func TestExamples(t *testing.T) {
	t.Run("tracker", func(t *testing.T) {
		h, err := tracker.New(tracker.Config{Logger: &quiet}).Handler()
		if err != nil {
			t.Fatal(err)
		}
		rep := conformance.Test(t, conformance.Config{Handler: h, Account: map[string]any{"token": tracker.DemoToken}})
		if rep.Warnings > 0 {
			t.Errorf("warnings: %v", rep.FailedIDs())
		}
	})
	t.Run("supportdesk", func(t *testing.T) {
		upstream := httptest.NewServer(fakedesk.New(120, nil)) // the help desk's API
		t.Cleanup(upstream.Close)
		h, err := desk.New(desk.Config{URL: upstream.URL + "/api", Logger: &quiet}).Handler()
		if err != nil {
			t.Fatal(err)
		}
		rep := conformance.Test(t, conformance.Config{Handler: h, Account: map[string]any{"token": fakedesk.Token}})
		if rep.Warnings > 0 {
			t.Errorf("warnings: %v", rep.FailedIDs())
		}
	})
	t.Run("notify", func(t *testing.T) {
		h, err := notify.New(notify.Config{Logger: &quiet}).Handler()
		if err != nil {
			t.Fatal(err)
		}
		rep := conformance.Test(t, conformance.Config{Handler: h, Account: map[string]any{"token": notify.DefaultToken}})
		if rep.Warnings > 0 {
			t.Errorf("warnings: %v", rep.FailedIDs())
		}
	})
}
