package console_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

type slowItem struct {
	ID    string `appkit:"id"`
	Title string `appkit:"name"`
}

type slowCursor struct {
	Page int `json:"page"`
}

// While a run is in progress the sync page polls its runs fragment, which
// shows the engine's progress per type; when the run ends it shows the
// counts and stops polling.
func TestLiveProgress(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	release := make(chan struct{})
	reached := make(chan struct{}, 1)
	nop := zerolog.Nop()
	app := &appkit.App{ID: "slow", Name: "Slow", Version: "1.0.0", Description: "pages on demand", Logger: &nop,
		Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "things", Name: "Things", Data: appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, c *slowCursor) (*appkit.Page[slowItem, slowCursor], error) {
			if c == nil {
				items := make([]slowItem, 5)
				for i := range items {
					items[i] = slowItem{ID: fmt.Sprint(i), Title: fmt.Sprint("thing ", i)}
				}
				return &appkit.Page[slowItem, slowCursor]{Items: items, Next: &slowCursor{Page: 2}}, nil
			}
			select {
			case reached <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &appkit.Page[slowItem, slowCursor]{Items: []slowItem{{ID: "last", Title: "last"}}}, nil
		})}}},
	}
	appURL := testapp.Serve(t, app)
	sy := e.newSync(appURL, map[string]any{})
	select {
	case <-reached:
	case <-time.After(time.Minute): // a bound for a loaded machine
		t.Fatal("the run did not ask for the second page")
	}
	b := e.browser()
	b.signIn()
	live := b.get("/syncs/" + sy.ID + "/runs")
	if !strings.Contains(live.body, `hx-trigger="every 1s"`) || !strings.Contains(live.body, `data-live="true"`) ||
		!strings.Contains(live.body, `<span class="type">things</span>: <span class="items">5</span> items in 1 pages so far`) {
		t.Fatalf("the live fragment:\n%s", live.body)
	}
	close(release)
	e.waitRun(sy.ID)
	done := b.get("/syncs/" + sy.ID + "/runs")
	if strings.Contains(done.body, "hx-trigger") || !strings.Contains(done.body, `<span class="created">6</span>`) || strings.Contains(done.body, "so far") {
		t.Errorf("the ended run's fragment:\n%s", done.body)
	}
}

// A sync whose first run is due but not taken by a scheduler yet polls:
// the page shows the run once it starts, without a reload.
func TestDueSyncPolls(t *testing.T) {
	e := newEnvScheduled(t, "sqlite::memory:", false)
	sy := e.newSync(trackerURL(t, 5), map[string]any{"token": tracker.DemoToken})
	b := e.browser()
	b.signIn()
	r := b.get("/syncs/" + sy.ID)
	if !strings.Contains(r.body, `hx-trigger="every 1s"`) || !strings.Contains(r.body, "The first run is due") {
		t.Errorf("a due sync's page does not poll:\n%s", r.body)
	}
}
