package commands

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// forEachStore runs fn against every configured backend.
func forEachStore(t *testing.T, fn func(t *testing.T, api *API, st *store.Store)) {
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		st := teststore.Open(t, dsn)
		var tick int64
		st.SetClock(func() time.Time {
			tick++
			return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(tick) * time.Second)
		})
		fn(t, New(st), st)
	})
}

// exec runs a JSON request body and returns the results re-encoded as JSON values.
func exec(t *testing.T, api *API, body string) []map[string]any {
	t.Helper()
	res, err := api.Execute(context.Background(), []byte(body))
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return out
}

// ok runs one command and returns its result, failing the test on error.
func ok(t *testing.T, api *API, cmd string) any {
	t.Helper()
	res := exec(t, api, "["+cmd+"]")
	if res[0]["success"] != true {
		t.Fatalf("command failed: %s\n%v", cmd, res[0]["result"])
	}
	return res[0]["result"]
}

// fails runs one command and returns its error name.
func fails(t *testing.T, api *API, cmd string) string {
	t.Helper()
	res := exec(t, api, "["+cmd+"]")
	if res[0]["success"] != false {
		t.Fatalf("command succeeded, want failure: %s\n%v", cmd, res[0]["result"])
	}
	r := res[0]["result"].(map[string]any)
	return r["name"].(string)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
