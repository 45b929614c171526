package syncer_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// Changes that arrive between runs (webhook events) apply with the delta
// rules: a partial SET updates, a SET of a new id creates, REMOVE deletes;
// applying the same changes again changes nothing; the next full run still
// removes what it does not deliver.
func TestApplyChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},"size":{"id":"size","name":"Size","type":"number"}}}`
	app := newFakeApp(t, schema, func(c dataCall) (int, string) {
		return 200, `{"items":[{"id":"a","name":"A","size":1},{"id":"b","name":"B","size":2}]}`
	})
	st := openStore(t)
	if _, err := syncer.ApplyChanges(ctx, st, "fake", map[string][]any{"item": {}}, nil); !errors.Is(err, syncer.ErrNotSynchronized) {
		t.Fatalf("before any run: %v", err)
	}
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	changes := map[string][]any{
		"item":  {map[string]any{"id": "a", "size": json.Number("5"), "__syncAction": "SET"}, map[string]any{"id": "c", "name": "C"}, map[string]any{"id": "b", "__syncAction": "REMOVE"}},
		"other": {map[string]any{"id": "x"}},
	}
	marked := 0
	rep, err := syncer.ApplyChanges(ctx, st, "fake", changes, func(tx *store.Tx) error { marked++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if marked != 1 || len(rep.Types) != 1 || len(rep.Warnings) != 1 {
		t.Fatalf("report %+v, within called %d times", rep, marked)
	}
	if tr := rep.Types[0]; tr.Created != 1 || tr.Updated != 1 || tr.Removed != 1 || tr.Duplicates != 0 || tr.Mode != "delta" {
		t.Errorf("counts %+v", tr)
	}
	want := map[string]map[string]any{"a": {"name": "A", "size": "5"}, "c": {"name": "C"}}
	if got := rows(t, st, "fake/item"); !reflect.DeepEqual(got, want) {
		t.Errorf("after the changes: %v", got)
	}
	// Again: the same store.
	rep, err = syncer.ApplyChanges(ctx, st, "fake", changes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.Types[0]; tr.Created != 0 || tr.Removed != 0 {
		t.Errorf("a replay created or removed: %+v", tr)
	}
	if got := rows(t, st, "fake/item"); !reflect.DeepEqual(got, want) {
		t.Errorf("after a replay: %v", got)
	}
	// A failing within rolls the changes back.
	boom := errors.New("boom")
	if _, err := syncer.ApplyChanges(ctx, st, "fake", map[string][]any{"item": {map[string]any{"id": "d", "name": "D"}}}, func(*store.Tx) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("within's error: %v", err)
	}
	if got := rows(t, st, "fake/item"); !reflect.DeepEqual(got, want) {
		t.Errorf("after a rolled back change: %v", got)
	}
	// The next full run replaces the type.
	if _, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL}); err != nil {
		t.Fatal(err)
	}
	want = map[string]map[string]any{"a": {"name": "A", "size": "1"}, "b": {"name": "B", "size": "2"}}
	if got := rows(t, st, "fake/item"); !reflect.DeepEqual(got, want) {
		t.Errorf("after the next run: %v", got)
	}
}

// Describe reads the descriptor as a run does; AccountElsewhere keeps the
// account out of the saved state and hands the validated one back.
func TestDescribeAndAccountElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`
	app := newFakeApp(t, schema, func(c dataCall) (int, string) { return 200, `{"items":[{"id":"a","name":"A"}]}` })
	app.set(func(a *fakeApp) {
		a.descriptor = `{"id":"fake","name":"Fake","version":"1","description":"d","website":"https://example.com",
	"authentication":[{"id":"token","name":"Token","fields":[{"id":"token","name":"Token","type":"password","description":"d"}]}],"sources":[],"responsibleFor":{"dataSynchronization":true}}`
		a.validate = func(fields map[string]any) (int, string) {
			if fields["token"] != "tok-secret-1" {
				return 401, `{"message":"bad token"}`
			}
			return 200, `{"name":"Acct","access_token":"fresh-token"}`
		}
	})
	d, err := syncer.Describe(ctx, syncer.Options{AppURL: app.srv.URL})
	if err != nil || d.Space != "fake" || d.Descriptor.Name != "Fake" {
		t.Fatalf("describe: %+v %v", d, err)
	}
	st := openStore(t)
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.srv.URL, AccountElsewhere: true, StoredAccount: map[string]any{"token": "tok-secret-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.AccountFields["access_token"] != "fresh-token" || rep.AccountFields["token"] != "tok-secret-1" || rep.AccountFields["auth"] != "token" {
		t.Errorf("account fields %v", rep.AccountFields)
	}
	var state string
	err = st.Write(ctx, func(tx *store.Tx) error {
		b, err := tx.SyncState("app:fake")
		state = string(b)
		return err
	})
	if err != nil || state == "" {
		t.Fatal(err)
	}
	for _, secret := range []string{"tok-secret-1", "fresh-token"} {
		if strings.Contains(state, secret) {
			t.Errorf("the saved state holds %q: %s", secret, state)
		}
	}
}
