package host_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	gosync "sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

// gatedApp is a webhook app whose verify waits at a barrier: each call
// says it arrived (arrived) and waits until the test opens the round's
// gate. An event with X-Key: good verifies; any other is refused.
type gatedApp struct {
	arrived chan struct{}
	calls   atomic.Int32
	mu      gosync.Mutex
	gate    chan struct{}
	url     string
}

// round opens a new, closed gate and returns the function that opens it.
func (a *gatedApp) round() (open func()) {
	g := make(chan struct{})
	a.mu.Lock()
	a.gate = g
	a.mu.Unlock()
	var once gosync.Once
	return func() { once.Do(func() { close(g) }) }
}

func newGatedApp(t *testing.T) *gatedApp {
	t.Helper()
	a := &gatedApp{arrived: make(chan struct{}, 1000)}
	open := a.round()
	open() // the first run needs no verify; calls before a round pass
	nop := zerolog.Nop()
	app := &appkit.App{ID: "gated", Name: "Gated", Version: "1.0.0", Description: "webhook events at a barrier", Logger: &nop,
		Auth: []appkit.Auth{appkit.TokenAuth("Token", "the token", func(ctx context.Context, token string) (string, error) {
			return "Gated account", nil
		})},
		Sync: &appkit.Sync{
			Types: []appkit.Type{{ID: "note", Name: "Notes", Delta: true, Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]hookNote, error) {
				return []hookNote{{ID: "n1", Name: "one", Size: 1}}, nil
			})}},
			Webhooks: &appkit.Webhooks{
				Install: func(ctx context.Context, req *appkit.WebhookRequest) (*appkit.Webhook, error) {
					return &appkit.Webhook{ID: "wh-1", Events: []string{"note.changed"}}, nil
				},
				Delete: func(ctx context.Context, req *appkit.WebhookRequest) error { return nil },
				Verify: func(ctx context.Context, ev *appkit.WebhookEvent) (string, error) {
					a.calls.Add(1)
					a.arrived <- struct{}{}
					a.mu.Lock()
					g := a.gate
					a.mu.Unlock()
					select {
					case <-g:
					case <-ctx.Done():
						return "", ctx.Err()
					}
					if key, _ := ev.Params["x-key"].(string); key != "good" {
						return "", errors.New("bad signature")
					}
					return "wh-1", nil
				},
				Transform: func(ctx context.Context, ev *appkit.WebhookEvent) (appkit.Changes, error) {
					return appkit.Changes{}, nil
				},
			},
		},
	}
	a.url = serveApp(t, testapp.Handler(t, app))
	return a
}

// burst sends n events at once (each with a body of its own) and holds
// the app's verify until every event has either reached it or been
// answered without it; then it opens the gate and returns how many
// reached the app and the statuses of all. A test that waits longer than
// a minute for that fails, saying what it saw.
func burst(t *testing.T, app *gatedApp, url, key string, n int) (reached int, codes map[int]int) {
	t.Helper()
	open := app.round()
	defer open()
	results := make(chan int, n)
	for i := range n {
		go func() {
			req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(fmt.Sprintf(`{"set":[{"id":"b%d-%d"}]}`, time.Now().UnixNano(), i))))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Key", key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				results <- -1
				return
			}
			resp.Body.Close()
			results <- resp.StatusCode
		}()
	}
	codes = map[int]int{}
	answered := 0
	deadline := time.NewTimer(time.Minute) // a bound for a loaded machine, not a wait
	defer deadline.Stop()
	for reached+answered < n {
		select {
		case <-app.arrived:
			reached++
		case code := <-results:
			codes[code]++
			answered++
			if code != http.StatusTooManyRequests {
				t.Fatalf("an event was answered %d while the app's verify was held (it answers only once released)", code)
			}
		case <-deadline.C:
			t.Fatalf("after a minute %d of %d events reached the app and %d were answered", reached, n, answered)
		}
	}
	open()
	for answered < n {
		select {
		case code := <-results:
			codes[code]++
			answered++
		case <-deadline.C:
			t.Fatalf("after a minute %d of %d events were answered", answered, n)
		}
	}
	select {
	case <-app.arrived:
		t.Fatal("an event reached the app after the round")
	default:
	}
	return reached, codes
}

// Events sent at once cannot outrun the anonymous event throttle: at most
// 4 of one address reach the app's verify at once (the rest 429 without
// it), accepted events give their room back, and refused ones are
// counted before the app is called, so that over rounds of forged events
// sent at once the app verifies exactly the burst of 10, never more.
func TestEventsSentAtOnce(t *testing.T) {
	t.Parallel()
	e := newAppsEnv(t, "sqlite::memory:", func(c *apps.Config) { c.RequestTimeout = 2 * time.Minute })
	app := newGatedApp(t)
	_, _, sy := e.newSync(app.url, map[string]any{"token": "gated-token-1"}, nil)
	if run := e.waitRuns(sy.ID, apps.TriggerSchedule, 1)[0]; run.Status != apps.StatusSucceeded || run.Report.Webhook != "installed" {
		t.Fatalf("first run: %+v", run)
	}
	url := e.srv.URL + "/api/apps/events/" + sy.ID

	// 30 good events at once: 4 reach the app, 26 are told to wait.
	reached, codes := burst(t, app, url, "good", 30)
	if reached != 4 || codes[http.StatusAccepted] != 4 || codes[http.StatusTooManyRequests] != 26 {
		t.Fatalf("30 good events at once: %d reached the app, answers %v", reached, codes)
	}
	// Accepted events gave their room back: rounds of 4 forged events at
	// once reach the app until 10 are counted, then no more.
	app.calls.Store(0)
	total := 0
	for _, want := range []int{4, 4, 2, 0} {
		reached, codes := burst(t, app, url, "forged", 4)
		total += reached
		if reached != want || codes[http.StatusUnauthorized] != want || codes[http.StatusTooManyRequests] != 4-want {
			t.Errorf("a round of 4 forged events: %d reached the app (want %d), answers %v", reached, want, codes)
		}
	}
	if n := int(app.calls.Load()); n != 10 || total != 10 {
		t.Errorf("the app verified %d forged events (the burst is 10)", n)
	}
}

// Events the app refuses (401) count against their sender, as events for
// no sync (404) do: after 10, the address gets 429 and the app is not
// called.
func TestEventsRefusedByTheAppCount(t *testing.T) {
	t.Parallel()
	e := newAppsEnv(t, "sqlite::memory:", nil)
	app := newGatedApp(t)
	_, _, sy := e.newSync(app.url, map[string]any{"token": "gated-token-1"}, nil)
	if run := e.waitRuns(sy.ID, apps.TriggerSchedule, 1)[0]; run.Status != apps.StatusSucceeded {
		t.Fatalf("first run: %+v", run)
	}
	url := e.srv.URL + "/api/apps/events/" + sy.ID
	for i := range 10 {
		if code, msg := send(t, url, fmt.Sprintf(`{"n":%d}`, i), "forged"); code != http.StatusUnauthorized {
			t.Fatalf("forged event %d: %d %s", i+1, code, msg)
		}
	}
	if code, msg := send(t, url, `{"n":10}`, "forged"); code != http.StatusTooManyRequests {
		t.Fatalf("the 11th forged event: %d %s", code, msg)
	}
	if n := app.calls.Load(); n != 10 {
		t.Errorf("the app verified %d events", n)
	}
}
