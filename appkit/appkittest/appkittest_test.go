package appkittest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

// fakeT records failures instead of failing the real test, so the harness's
// own checks can be tested.
type fakeT struct {
	testing.TB
	failed []string
}

func (f *fakeT) Helper()           {}
func (f *fakeT) Cleanup(fn func()) { fn() } // at once: the fake has no end
func (f *fakeT) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }
func (f *fakeT) Errorf(format string, args ...any) {
	f.failed = append(f.failed, fmt.Sprintf(format, args...))
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = append(f.failed, fmt.Sprintf(format, args...))
	panic(f)
}

// run calls fn with a fakeT and returns what it reported.
func run(fn func(t *fakeT)) (failed []string) {
	f := &fakeT{}
	defer func() {
		if p := recover(); p != nil && p != any(f) {
			panic(p)
		}
		failed = f.failed
	}()
	fn(f)
	return f.failed
}

type cur struct{ N int }

func app(page appkit.PageFunc[cur]) *appkit.App {
	nop := zerolog.Nop()
	return &appkit.App{ID: "h", Name: "h", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &nop,
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "t", Name: "T", Fields: []appkit.Field{appkit.ID("ID"), appkit.Text("name", "N")},
			Data: appkit.Pages(page)}}}}
}

func TestSyncWalksTheTracker(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	c := appkittest.New(t, tracker.New(tracker.Config{Projects: 4, Tasks: 1200, Now: func() time.Time { return now }}))
	c.Account = map[string]any{"token": "demo"}
	if d := c.Descriptor(); d.ID != "tracker" {
		t.Fatalf("descriptor = %+v", d)
	}
	if r := c.Validate("token"); r.Status != 200 {
		t.Fatalf("validate = %d %s", r.Status, r.Body)
	}
	if s := c.Schema(nil, "task"); s["task"]["project"].Relation == nil {
		t.Fatalf("schema = %v", s)
	}
	pages := c.Sync(appkittest.Run{Type: "task"})
	if len(pages) < 3 {
		t.Fatalf("1200 tasks in %d pages; want at least 3 of at most %d", len(pages), tracker.PageSize)
	}
	seen := map[any]bool{}
	for _, p := range pages {
		for _, it := range p.Items {
			if seen[it["id"]] {
				t.Fatalf("task %v delivered twice", it["id"])
			}
			seen[it["id"]] = true
		}
	}
	delta := c.Sync(appkittest.Run{Type: "task", LastSynchronizedAt: now.Add(-72 * time.Hour)})
	if delta[0].SynchronizationType != "delta" {
		t.Fatalf("delta run answered %q", delta[0].SynchronizationType)
	}
	c.Account = map[string]any{"token": "nope"}
	if r := c.Validate("token"); r.Status != 401 || r.Message() == "" {
		t.Fatalf("bad token = %d %s", r.Status, r.Body)
	}
}

func TestSyncCatchesProtocolBreaks(t *testing.T) {
	tests := []struct {
		name string
		page appkit.PageFunc[cur]
		want string
	}{
		{"item without id", func(ctx context.Context, r *appkit.DataRequest, c *cur) (*appkit.Page[cur], error) {
			return &appkit.Page[cur]{Items: []any{map[string]any{"name": "x"}}}, nil
		}, "item without id"},
		{"delta struct item without __syncAction", func(ctx context.Context, r *appkit.DataRequest, c *cur) (*appkit.Page[cur], error) {
			return &appkit.Page[cur]{Items: []any{struct {
				ID string `json:"id"`
			}{"1"}}, Sync: appkit.Delta}, nil
		}, "without __syncAction"},
		{"failing page", func(ctx context.Context, r *appkit.DataRequest, c *cur) (*appkit.Page[cur], error) {
			return nil, appkit.TryLater(fmt.Errorf("busy"))
		}, "= 503"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			failed := run(func(ft *fakeT) {
				appkittest.New(ft, app(tc.page)).Sync(appkittest.Run{Type: "t"})
			})
			if len(failed) == 0 || !strings.Contains(strings.Join(failed, "\n"), tc.want) {
				t.Fatalf("reported %q, want %q", failed, tc.want)
			}
		})
	}
	good := run(func(ft *fakeT) {
		appkittest.New(ft, app(func(ctx context.Context, r *appkit.DataRequest, c *cur) (*appkit.Page[cur], error) {
			if c == nil {
				return &appkit.Page[cur]{Items: []any{appkit.Item{"id": "1"}}, Next: &cur{N: 1}}, nil
			}
			return &appkit.Page[cur]{Items: []any{appkit.Item{"id": "2"}}, Sync: appkit.Delta}, nil
		})).SyncAll(appkittest.Run{Type: "t"})
	})
	if len(good) != 0 {
		t.Fatalf("a well-behaved app was reported: %q", good)
	}
	invalid := run(func(ft *fakeT) { appkittest.New(ft, &appkit.App{}) })
	if len(invalid) != 1 || !strings.Contains(invalid[0], "declaration is invalid") {
		t.Fatalf("invalid app reported %q", invalid)
	}
}

func TestServeMain(t *testing.T) {
	a := app(func(ctx context.Context, r *appkit.DataRequest, c *cur) (*appkit.Page[cur], error) { return nil, nil })
	m := appkittest.ServeMain(t, func(ctx context.Context, port string) error {
		return appkit.ListenAndServe(ctx, "127.0.0.1:"+port, a)
	})
	if !strings.Contains(m.Descriptor, `"id":"h"`) {
		t.Fatalf("descriptor = %s", m.Descriptor)
	}
	if err := m.Stop(); err != nil {
		t.Fatalf("Stop = %v", err)
	}
	failed := run(func(ft *fakeT) {
		appkittest.ServeMain(ft, func(ctx context.Context, port string) error { return fmt.Errorf("bad config") })
	})
	if len(failed) != 1 || !strings.Contains(failed[0], "stopped before answering: bad config") {
		t.Fatalf("a main that fails at start reported %q", failed)
	}
}
