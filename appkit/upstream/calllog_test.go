package upstream_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
	"github.com/appkitgo/appkit/internal/calllog"
)

// reported runs fn with a collector in its context (as appkit's middleware
// puts one when the host asks) and returns what the answer header reports.
func reported(t *testing.T, bodies bool, fn func(ctx context.Context)) []calllog.Call {
	t.Helper()
	col := calllog.New(bodies)
	fn(calllog.NewContext(context.Background(), col))
	calls, dropped, err := calllog.Decode(col.Header())
	if err != nil || dropped != 0 {
		t.Fatalf("%v, %d dropped", err, dropped)
	}
	return calls
}

// Each attempt is reported with the URL and error masked (the account's
// secret in every spelling, secret-named query parameters) and the bodies
// masked (secret-named JSON fields, the account's secrets) and cut at
// calllog.MaxBody, never showing the start of a secret cut at the end.
func TestCallsReportedMasked(t *testing.T) {
	t.Parallel()
	var echo string // the answer's body
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusBadGateway)
		}
		io.WriteString(w, echo)
	}))
	defer api.Close()
	client := &upstream.Client{BaseURL: api.URL, Auth: upstream.QueryKey("key", "token"), HTTPClient: api.Client(), Retries: 1}
	s := client.For(appkit.Account{"token": escaping})

	echo = `{"ok":true,"session_id":"sess-1234","copy":"` + strings.ReplaceAll(escaping, "&", `\u0026`) + `"}`
	calls := reported(t, true, func(ctx context.Context) {
		_, err := upstream.Send[map[string]string, map[string]any](ctx, s, http.MethodPost, "/items/"+escaping+"?api_token=local-42&q=1",
			map[string]string{"password": "pw-12345", "note": escaping})
		if err != nil {
			t.Fatal(err)
		}
	})
	if len(calls) != 1 {
		t.Fatalf("%+v", calls)
	}
	c := calls[0]
	if c.Method != http.MethodPost || c.URL != api.URL+"/items/***?api_token=***&q=1" || c.Status != 200 || c.Bytes != int64(len(echo)) {
		t.Errorf("reported %+v", c)
	}
	if c.Request != `{"note":"***","password":"***"}` || c.Response != `{"ok":true,"session_id":"***","copy":"***"}` {
		t.Errorf("bodies %s / %s", c.Request, c.Response)
	}

	// A failed call is reported per attempt, with its status.
	echo = `{"message":"down"}`
	calls = reported(t, false, func(ctx context.Context) {
		if _, err := upstream.Get[map[string]any](ctx, s, "/fail", nil); err == nil {
			t.Fatal("no error")
		}
	})
	if len(calls) != 2 || calls[0].Status != 502 || calls[1].Status != 502 || calls[0].Response != "" {
		t.Errorf("reported %+v", calls)
	}

	// No answer: the error, masked.
	dead := &upstream.Client{BaseURL: "http://127.0.0.1:1", Auth: upstream.QueryKey("key", "token"), Retries: -1}
	calls = reported(t, false, func(ctx context.Context) {
		_, _ = upstream.Get[map[string]any](ctx, dead.For(appkit.Account{"token": escaping}), "/x", nil)
	})
	if len(calls) != 1 || calls[0].Status != 0 || calls[0].Error == "" {
		t.Fatalf("reported %+v", calls)
	}
	for _, sp := range spellings(escaping) {
		if strings.Contains(fmt.Sprint(calls), sp) {
			t.Errorf("the error shows %q: %s", sp, calls[0].Error)
		}
	}

	// A long answer: cut, and a secret that the cut would halve is left
	// out; one that starts past the cut is not shown either.
	// (The earlier copy of the secret, masked, brings the later one's
	// start within the cut.)
	const secret = "halved-secret-0123456789"
	for _, at := range []int{calllog.MaxBody - 10, calllog.MaxBody - 3, calllog.MaxBody + 5, calllog.MaxBody + len(secret) - 10} {
		acct := client.For(appkit.Account{"token": secret})
		head := `{"e":"` + secret + `","a":"`
		pad := strings.Repeat("x", at-len(head))
		echo = head + pad + secret + `","b":"` + strings.Repeat("y", 3000) + `"}`
		calls = reported(t, true, func(ctx context.Context) {
			if _, err := upstream.Get[map[string]any](ctx, acct, "/long", nil); err != nil {
				t.Fatal(err)
			}
		})
		r := calls[0].Response
		if len(r) > calllog.MaxBody || !strings.HasSuffix(r, "…") || !strings.HasPrefix(r, `{"e":"***","a":"xxx`) {
			t.Errorf("at %d: %d bytes: %q…%q", at, len(r), r[:20], r[len(r)-40:])
		}
		for k := 4; k <= len(secret); k++ {
			if strings.Contains(r, secret[:k]) {
				t.Errorf("at %d: the body shows %q", at, secret[:k])
				break
			}
		}
	}

	// Without a collector in the context, nothing is reported (and
	// nothing breaks).
	if _, err := upstream.Get[map[string]any](context.Background(), client.For(appkit.Account{"token": "t0k3n"}), "/long", nil); err != nil {
		t.Fatal(err)
	}
}
