package apps

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/testkit"
)

// Setting reads an account with its app and asks the app for its config
// once; an app's refusal has the account's secrets masked; an unknown
// account is ErrNotFound without any call.
func TestSetting(t *testing.T) {
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		svc, _ := testService(t, dsn, nil)
		fake := newFakeApp(t, "token", map[string]http.HandlerFunc{
			"POST " + protocol.PathConfig: answer(200, `{"types":[{"id":"task","name":"Tasks"}],"filters":[]}`),
		})
		a, acc := registerWithAccount(t, svc, fake.url)
		set, err := svc.Registry.Setting(ctx, acc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if set.App.ID != a.ID || set.Account.ID != acc.ID || len(set.Config.Types) != 1 || set.Config.Types[0].ID != "task" {
			t.Fatalf("setting: app %s account %s config %+v", set.App.ID, set.Account.ID, set.Config)
		}
		if n := fake.count("POST " + protocol.PathConfig); n != 1 {
			t.Errorf("%d config calls, want 1", n)
		}
		if _, err := svc.Registry.Setting(ctx, "no-such-account"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown account: %v", err)
		}
		if n := fake.count("POST " + protocol.PathConfig); n != 1 {
			t.Errorf("an unknown account called the app (%d config calls)", n)
		}

		fake.mu.Lock()
		fake.handlers["POST "+protocol.PathConfig] = answer(401, `{"message":"token account-token-42 refused"}`)
		fake.mu.Unlock()
		_, err = svc.Registry.Setting(ctx, acc.ID)
		var ae *AppError
		if !errors.As(err, &ae) || strings.Contains(ae.Message, "account-token-42") {
			t.Errorf("refusal: %v (want an *AppError with the token masked)", err)
		}
	})
}
