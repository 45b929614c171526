package host_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/host"
)

// The console's link to the GraphQL IDE works for the signed-in user: the
// page opens on a find of the space's first type, and its POST runs on the
// session cookie when it carries X-Appkit-IDE from the host's own origin;
// without the header, or from a foreign origin, the cookie is refused, and
// the token still works.
func TestGraphQLIDESession(t *testing.T) {
	t.Parallel()
	e := newGQLEnv(t, "sqlite::memory:", host.Config{})
	const space = "/api/graphql/space/shop"

	code, body, hdr := e.post(t, "/api/login", `{"email":"`+adminEmail+`","password":"`+adminPass+`"}`, false)
	if code != http.StatusOK {
		t.Fatalf("login: %d %s", code, body)
	}
	var session string
	for _, c := range (&http.Response{Header: hdr}).Cookies() {
		if c.Name == host.SessionCookie {
			session = c.Name + "=" + c.Value
		}
	}
	if session == "" {
		t.Fatal("login set no session cookie")
	}

	code, page, _ := e.get(t, space, map[string]string{"Cookie": session})
	if code != http.StatusOK {
		t.Fatalf("IDE page: %d", code)
	}
	if !strings.Contains(page, `findProducts(limit: 5) {\n    id\n    name\n    price\n  }`) || strings.Contains(page, "me {") {
		t.Errorf("the IDE does not open on a find of the first type:\n%s", page)
	}
	if !strings.Contains(page, `headers["X-Appkit-IDE"] = "1"`) || !strings.Contains(page, `credentials: "same-origin"`) {
		t.Error("the IDE's fetcher does not send X-Appkit-IDE with credentials")
	}

	query := gqlBody(`{ me { email } findProducts(limit: 5) { name } }`)
	send := func(hdr map[string]string) (int, string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+space, strings.NewReader(query))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		return roundTrip(t, http.DefaultTransport.RoundTrip, req)
	}
	own := e.srv.URL
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"session with the header", map[string]string{"Cookie": session, "X-Appkit-IDE": "1"}, 200},
		{"session with the header from its own origin", map[string]string{"Cookie": session, "X-Appkit-IDE": "1", "Origin": own}, 200},
		{"session without the header", map[string]string{"Cookie": session}, 401},
		{"session without the header, own origin", map[string]string{"Cookie": session, "Origin": own}, 401},
		{"session with another value", map[string]string{"Cookie": session, "X-Appkit-IDE": "yes"}, 401},
		{"session from a foreign origin", map[string]string{"Cookie": session, "X-Appkit-IDE": "1", "Origin": "https://evil.example"}, 403},
		{"session from a null origin", map[string]string{"Cookie": session, "X-Appkit-IDE": "1", "Origin": "null"}, 403},
		{"header without a session", map[string]string{"X-Appkit-IDE": "1"}, 401},
		{"header with a stale session", map[string]string{"Cookie": host.SessionCookie + "=nope", "X-Appkit-IDE": "1"}, 401},
		{"token", map[string]string{"Authorization": "Token " + gqlToken}, 200},
		{"token with the header", map[string]string{"Authorization": "Token " + gqlToken, "X-Appkit-IDE": "1"}, 200},
		{"bad token with a session and the header", map[string]string{"Authorization": "Token wrong-token-value", "Cookie": session, "X-Appkit-IDE": "1"}, 401},
	} {
		code, body, answered := send(tc.hdr)
		if code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, code, body, tc.want)
			continue
		}
		if challenge := answered.Get("WWW-Authenticate"); code == 401 && challenge != `Token realm="appkit"` {
			t.Errorf("%s: 401 with WWW-Authenticate %q, want the token scheme's challenge", tc.name, challenge)
		}
		if code == 200 && (!strings.Contains(body, `"email":"`+adminEmail+`"`) || !strings.Contains(body, `"name":"apple"`) || strings.Contains(body, `"errors"`)) {
			t.Errorf("%s: %s", tc.name, body)
		}
	}
}
