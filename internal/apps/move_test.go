package apps

import (
	"context"
	"errors"
	"net/http"
	"testing"
)

// The same app on a new address (as each "appkit dev" session runs it):
// registered by its address, refused (its id is registered at the old
// one); registered by its id, the registration moves there with its
// account and sync, and calls go to the new address. Another app is
// never moved, and an app registered at the new address already stays.
func TestRegisterMovingKeepsTheApp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _ := testService(t, "sqlite::memory:", nil)
	first := newFakeApp(t, "token", nil)
	a, sy := registerWithSync(t, svc, first.url)
	second := newFakeApp(t, "token", nil)
	if _, err := svc.Registry.RegisterApp(ctx, second.url); !errors.Is(err, ErrConflict) {
		t.Fatalf("the same id at a new address, registered by address: %v, want a conflict", err)
	}
	moved, err := svc.Registry.RegisterMoving(ctx, RegisterSpec{URL: second.url + "/"})
	if err != nil {
		t.Fatalf("register moving: %v", err)
	}
	if moved.ID != a.ID || moved.URL != second.url || moved.Space != a.Space {
		t.Errorf("moved: %s at %s (space %s), want %s at %s (space %s)", moved.ID, moved.URL, moved.Space, a.ID, second.url, a.Space)
	}
	all, err := svc.Registry.Apps(ctx)
	if err != nil || len(all) != 1 || all[0].URL != second.url {
		t.Fatalf("apps after the move: %v (%v), want the one at %s", all, err, second.url)
	}
	syncs, err := svc.SyncService.Syncs(ctx, a.ID)
	if err != nil || len(syncs) != 1 || syncs[0].ID != sy.ID || syncs[0].AccountID != sy.AccountID {
		t.Fatalf("syncs after the move: %v (%v), want %s", syncs, err, sy.ID)
	}
	// Calls go to the new address.
	before := second.count("POST /validate")
	if _, err := svc.Registry.UpdateAccount(ctx, sy.AccountID, map[string]any{"token": "t-2"}); err != nil {
		t.Fatalf("update the account: %v", err)
	}
	if second.count("POST /validate") == before {
		t.Error("the account was not validated at the new address")
	}
	// Again at the same address: nothing moves, the app is read again.
	if again, err := svc.Registry.RegisterMoving(ctx, RegisterSpec{URL: second.url}); err != nil || again.ID != a.ID {
		t.Errorf("again at the same address: %v, %v", again, err)
	}

	// Another app (another id) moves nothing: it is registered as new.
	other := newFakeApp(t, "token", map[string]http.HandlerFunc{"GET /": answer(200, `{"id":"other","name":"Other","version":"1.0.0","type":"sync","authentication":[{"id":"none","name":"None"}]}`)})
	o, err := svc.Registry.RegisterMoving(ctx, RegisterSpec{URL: other.url})
	if err != nil || o.ID == a.ID {
		t.Fatalf("another app: %v, %v", o, err)
	}
	if got, err := svc.Registry.App(ctx, a.ID); err != nil || got.URL != second.url {
		t.Errorf("the first app after another registered: %v, %v", got, err)
	}
	// Back to the first address: it moves again.
	if _, err := svc.Registry.RegisterMoving(ctx, RegisterSpec{URL: first.url}); err != nil {
		t.Fatalf("back to the first address: %v", err)
	}
	if got, _ := svc.Registry.App(ctx, a.ID); got.URL != first.url {
		t.Errorf("moved back: at %s, want %s", got.URL, first.url)
	}
}
