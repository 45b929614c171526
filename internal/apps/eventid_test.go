package apps

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/testkit"
)

// plainEventID is the id an event had before ids were keyed.
func plainEventID(syncID, webhookID, body string) string {
	sum := sha256.Sum256([]byte(syncID + "\x00" + webhookID + "\x00" + body))
	return hex.EncodeToString(sum[:])
}

// eventIDs are the ids of the sync's recorded events.
func eventIDs(t *testing.T, svc *Service, syncID string) []string {
	t.Helper()
	ids, err := svc.core.ids(context.Background(), "SELECT id FROM apps_events WHERE sync_id = ? ORDER BY received_at, id", syncID)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// An event's id, stored in clear, is keyed with the host's secret key: it
// is not the plain hash of the sync, webhook and body (which anyone who
// knows a body could compute and look for) and another key gives another
// id; the same event received again is a replay.
func TestEventIDKeyed(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		svc, _ := testService(t, dsn, nil)
		app := newFakeApp(t, "token", map[string]http.HandlerFunc{"POST " + protocol.PathWebhookVerify: answer(200, `{"id":"wh-1"}`)})
		_, sy := fakeSync(t, svc, app)
		body := `{"changed":"task-7"}`
		if out := svc.Webhooks.ReceiveEvent(ctx, sy.ID, http.Header{}, []byte(body)); out.Status != http.StatusAccepted {
			t.Fatalf("the event: %+v", out)
		}
		ids := eventIDs(t, svc, sy.ID)
		if len(ids) != 1 {
			t.Fatalf("%d events recorded", len(ids))
		}
		if ids[0] == plainEventID(sy.ID, "wh-1", body) {
			t.Errorf("the event's id is the plain SHA-256 of the sync, webhook and body")
		}
		other, err := newSealer(bytes.Repeat([]byte{4}, KeySize))
		if err != nil {
			t.Fatal(err)
		}
		if other.eventID(sy.ID, "wh-1", []byte(body)) == ids[0] {
			t.Errorf("another key gives the same event id")
		}
		if out := svc.Webhooks.ReceiveEvent(ctx, sy.ID, http.Header{}, []byte(body)); out.Status != http.StatusOK || !out.Replay {
			t.Errorf("the event received again: %+v, want a replay", out)
		}
		if n := len(eventIDs(t, svc, sy.ID)); n != 1 {
			t.Errorf("%d events recorded, want 1", n)
		}
	})
}

// An event recorded before ids were keyed (its id the plain hash, its
// parts in clear or sealed), handled or still pending, is a replay when it
// is received again after the upgrade: nothing new is recorded, so it is
// not applied twice. Another event is recorded with a keyed id.
func TestEventRecordedBeforeKeyedIDsIsAReplay(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		svc, _ := testService(t, dsn, nil)
		app := newFakeApp(t, "token", map[string]http.HandlerFunc{"POST " + protocol.PathWebhookVerify: answer(200, `{"id":"wh-1"}`)})
		_, sy := fakeSync(t, svc, app)
		now := ms(svc.core.now())
		old := []struct{ body, status string }{{`{"n":1}`, "applied"}, {`{"n":2}`, "pending"}}
		for _, e := range old {
			id := plainEventID(sy.ID, "wh-1", e.body)
			if _, err := svc.core.exec(ctx, `INSERT INTO apps_events (id, sync_id, received_at, params, payload, status, result, next_try, sealed)
VALUES (?, ?, ?, '{}', ?, ?, '', 0, 0)`, id, sy.ID, now, e.body, e.status); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range old {
			if out := svc.Webhooks.ReceiveEvent(ctx, sy.ID, http.Header{}, []byte(e.body)); out.Status != http.StatusOK || !out.Replay {
				t.Errorf("the %s event of before the upgrade received again: %+v, want a replay", e.status, out)
			}
		}
		if n := len(eventIDs(t, svc, sy.ID)); n != 2 {
			t.Errorf("%d events recorded, want the 2 of before", n)
		}
		if out := svc.Webhooks.ReceiveEvent(ctx, sy.ID, http.Header{}, []byte(`{"n":3}`)); out.Status != http.StatusAccepted || out.Replay {
			t.Errorf("a new event: %+v", out)
		}
		if n := len(eventIDs(t, svc, sy.ID)); n != 3 {
			t.Errorf("%d events recorded, want 3", n)
		}
		// Of another sync, the same body is another event.
		app2 := noteApp(t, "second")
		app2.mu.Lock()
		app2.handlers["POST "+protocol.PathWebhookVerify] = answer(200, `{"id":"wh-1"}`)
		app2.mu.Unlock()
		_, sy2 := fakeSync(t, svc, app2)
		if out := svc.Webhooks.ReceiveEvent(ctx, sy2.ID, http.Header{}, []byte(old[0].body)); out.Status != http.StatusAccepted {
			t.Errorf("the same body for another sync: %+v", out)
		}
	})
}
