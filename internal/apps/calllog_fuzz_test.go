package apps

import (
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/calllog"
)

// FuzzUpstreamHeader feeds the recorder any answer header: it never
// panics, keeps nothing of a report it refuses, at most calllog.MaxCalls
// calls of one it accepts, no body it did not ask for, and no known
// secret.
func FuzzUpstreamHeader(f *testing.F) {
	c := calllog.New(true)
	c.Add(calllog.Call{Method: "GET", URL: "https://api.example/x?token=account-token-42", Status: 200, Request: `{"password":"pw"}`,
		Response: "account-token-42"})
	f.Add(c.Header(), true)
	f.Add(`{"calls":[],"dropped":2}`, false)
	f.Add(`{"calls":[{"method":"GET","url":"u","durationMs":1,"response":"x"}]}`, false)
	f.Fuzz(func(t *testing.T, v string, bodies bool) {
		r := &recorder{m: newMasker(map[string]any{"token": "account-token-42"}, nil), bodies: bodies}
		h := http.Header{}
		h.Set(calllog.AnswerHeader, v)
		calls, dropped := r.upstream(h)
		if _, _, err := calllog.Decode(v); err != nil && (calls != nil || dropped != 0) {
			t.Fatalf("kept %d calls, %d dropped of a refused report", len(calls), dropped)
		}
		if len(calls) > calllog.MaxCalls || dropped < 0 || dropped > calllog.MaxDropped {
			t.Fatalf("%d calls, %d dropped", len(calls), dropped)
		}
		for _, c := range calls {
			if !bodies && (c.Request != "" || c.Response != "") {
				t.Fatal("bodies kept unasked")
			}
			for _, s := range []string{c.URL, c.Error, c.Request, c.Response} {
				if strings.Contains(s, "account-token-42") {
					t.Fatalf("a secret is kept: %q", s)
				}
			}
		}
	})
}
