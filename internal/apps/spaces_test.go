package apps

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// noteApp is a fake sync app whose descriptor id is id: one type "note"
// of two items, and an authentication with a token (accepted whatever it
// is) or none.
func noteApp(t *testing.T, id string) *fakeApp {
	t.Helper()
	app := newFakeApp(t, "token", map[string]http.HandlerFunc{
		"POST " + protocol.PathConfig: answer(200, `{"types":[{"id":"note","name":"Notes"}],"filters":[]}`),
		"POST " + protocol.PathSchema: answer(200, `{"note":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`),
		"POST " + protocol.PathData:   answer(200, `{"items":[{"id":"n1","name":"One"},{"id":"n2","name":"Two"}],"synchronizationType":"full"}`),
	})
	app.describeAs(id)
	return app
}

// describeAs makes the app's descriptor id id.
func (a *fakeApp) describeAs(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.handlers["GET "+protocol.PathDescriptor] = answer(200, `{"id":"`+id+`","name":"App `+id+`","version":"1.0.0","type":"sync",`+
		`"authentication":[{"id":"token","name":"Account","fields":[{"id":"token","name":"Token","type":"password"}]},{"id":"none","name":"None"}]}`)
}

// syncOutside fills the app's space as `appkit sync` and `appkit host
// --demo` do: the engine run directly, no sync of the service owning it.
func syncOutside(t *testing.T, st *store.Store, app *fakeApp) *syncer.Report {
	t.Helper()
	rep, err := syncer.Run(context.Background(), st, syncer.Options{AppURL: app.url, Auth: "none"})
	if err != nil {
		t.Fatalf("appkit sync: %v", err)
	}
	return rep
}

// wantConflict checks that err is ErrConflict and says each of says.
func wantConflict(t *testing.T, what string, err error, says ...string) {
	t.Helper()
	if !errors.Is(err, ErrConflict) {
		t.Errorf("%s: %v, want ErrConflict", what, err)
		return
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%s: %q does not say %q", what, err, s)
		}
	}
}

// A space filled outside the service (`appkit sync`, `appkit host --demo`)
// holds types and the engine's state that no sync owns: an app whose id
// names it, a sync that names it and a registration read again that moves
// an app to it are refused, and its data stays, unless the caller adopts
// it. The engine's state alone counts too.
func TestUnownedSpaceNeedsAdopting(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		svc, _ := testService(t, dsn, nil)
		st := svc.core.st
		demo := noteApp(t, "demo")
		if rep := syncOutside(t, st, demo); rep.Space != "demo" {
			t.Fatalf("the engine synchronized into %q", rep.Space)
		}
		if n := teststore.Count(t, st, "demo/note"); n != 2 {
			t.Fatalf("%d demo notes", n)
		}

		// An app whose id is the space's.
		_, err := svc.Registry.RegisterApp(ctx, demo.url)
		wantConflict(t, "registering an app into the unowned space", err, `"demo"`, "demo/note", "engine's state", `"adopt": true`)
		if apps, _ := svc.Registry.Apps(ctx); len(apps) != 0 {
			t.Fatalf("refused, yet registered: %+v", apps)
		}

		// A sync that names it.
		other := noteApp(t, "other")
		o, acc := registerWithAccount(t, svc, other.url)
		_, err = svc.SyncService.CreateSync(ctx, SyncSpec{App: o.ID, Account: acc.ID, Space: "demo"})
		wantConflict(t, "a sync naming the unowned space", err, `"demo"`, "demo/note", `"adopt": true`)

		// A registration read again whose app's id became the space's.
		other.describeAs("demo")
		_, err = svc.Registry.RegisterApp(ctx, other.url)
		wantConflict(t, "a registration read again moving the app into the unowned space", err, `"demo"`)
		if a, _ := svc.Registry.App(ctx, o.ID); a.Space != "other" {
			t.Errorf("refused, yet the app's space is %q", a.Space)
		}
		other.describeAs("other")
		if n := teststore.Count(t, st, "demo/note"); n != 2 {
			t.Errorf("%d demo notes after the refusals, want 2", n)
		}

		// The engine's state alone (its types removed since).
		if err := st.Write(ctx, func(tx *store.Tx) error { return tx.SaveSyncState(engineStateKey("lone"), []byte(`{}`)) }); err != nil {
			t.Fatal(err)
		}
		_, err = svc.SyncService.CreateSync(ctx, SyncSpec{App: o.ID, Account: acc.ID, Space: "lone"})
		wantConflict(t, "a sync naming a space that holds the engine's state", err, `"lone"`, "engine's state")

		// Adopted on request.
		sy, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: o.ID, Account: acc.ID, Space: "demo", Adopt: true})
		if err != nil || sy.Space != "demo" {
			t.Fatalf("adopting the space: %+v, %v", sy, err)
		}
		if _, err := svc.SyncService.DeleteSync(ctx, sy.ID); err != nil {
			t.Fatal(err)
		}
		a, err := svc.Registry.Register(ctx, RegisterSpec{URL: demo.url, Adopt: true})
		if err != nil || a.Space != "demo" {
			t.Fatalf("registering with adopt: %+v, %v", a, err)
		}
		// The app's own space is its own: its first sync takes it.
		accD, err := svc.Registry.CreateAccount(ctx, a.ID, "none", nil)
		if err != nil {
			t.Fatal(err)
		}
		if sy, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: a.ID, Account: accD.ID}); err != nil || sy.Space != "demo" {
			t.Fatalf("the adopted app's first sync: %+v, %v", sy, err)
		}
	})
}

// A sync that names no space passes over numbered spaces that hold data
// no sync owns (a removed sync's): "fake-2" holds some, the next sync gets
// "fake-3".
func TestNumberedSpacePassesOverUnownedData(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		svc, _ := testService(t, dsn, nil)
		app := noteApp(t, "fake")
		a, acc := registerWithAccount(t, svc, app.url)
		if err := svc.core.st.Write(ctx, func(tx *store.Tx) error {
			return tx.SaveSyncState(engineStateKey("fake-2"), []byte(`{}`))
		}); err != nil {
			t.Fatal(err)
		}
		var spaces []string
		for range 2 {
			sy, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: a.ID, Account: acc.ID})
			if err != nil {
				t.Fatal(err)
			}
			spaces = append(spaces, sy.Space)
		}
		if strings.Join(spaces, " ") != "fake fake-3" {
			t.Errorf("spaces %v, want [fake fake-3]", spaces)
		}
	})
}

// An app never registers with (or moves by a registration read again to)
// a space that a sync of another app owns, and a sync never takes another
// app's own space or another sync's, adopt or not.
func TestOwnedSpacesNeverTaken(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		svc, _ := testService(t, dsn, nil)
		first := noteApp(t, "first")
		f, facc := registerWithAccount(t, svc, first.url)
		named, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: f.ID, Account: facc.ID, Space: "shared"})
		if err != nil {
			t.Fatal(err)
		}

		// An app whose space a sync of another app owns.
		shared := noteApp(t, "shared")
		for _, adopt := range []bool{false, true} {
			_, err := svc.Registry.Register(ctx, RegisterSpec{URL: shared.url, Adopt: adopt})
			wantConflict(t, "registering into another app's sync's space", err, named.ID, `"shared"`)
		}
		// A registration read again moving an app there.
		second := noteApp(t, "second")
		s, sacc := registerWithAccount(t, svc, second.url)
		second.describeAs("shared")
		for _, adopt := range []bool{false, true} {
			_, err := svc.Registry.Register(ctx, RegisterSpec{URL: second.url, Adopt: adopt})
			wantConflict(t, "a registration read again moving the app to another app's sync's space", err, named.ID)
		}
		// Nor to another app's own space.
		second.describeAs("first")
		_, err = svc.Registry.RegisterApp(ctx, second.url)
		wantConflict(t, "a registration read again moving the app to another app's space", err, first.url)
		second.describeAs("second")
		if a, err := svc.Registry.RegisterApp(ctx, second.url); err != nil || a.Space != "second" {
			t.Fatalf("read again unchanged: %+v, %v", a, err)
		}

		// A sync naming another app's own space, or another sync's.
		for _, space := range []string{"first", "shared"} {
			for _, adopt := range []bool{false, true} {
				_, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: s.ID, Account: sacc.ID, Space: space, Adopt: adopt})
				wantConflict(t, "a sync naming the space "+space, err, `"`+space+`"`)
			}
		}
		// Its own app's space is free for it.
		if sy, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: s.ID, Account: sacc.ID, Space: "second"}); err != nil || sy.Space != "second" {
			t.Errorf("a sync naming its app's space: %+v, %v", sy, err)
		}
		// A registration read again that moves the app to its own sync's
		// space is the app's data: allowed.
		own, err := svc.SyncService.CreateSync(ctx, SyncSpec{App: s.ID, Account: sacc.ID, Space: "second-own"})
		if err != nil {
			t.Fatal(err)
		}
		second.describeAs("second-own")
		if a, err := svc.Registry.RegisterApp(ctx, second.url); err != nil || a.Space != own.Space {
			t.Errorf("moving the app to its own sync's space: %+v, %v", a, err)
		}
	})
}
