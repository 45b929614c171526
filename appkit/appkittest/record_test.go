package appkittest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
)

// captureTB records failures instead of failing the test.
type captureTB struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (c *captureTB) Helper() {}
func (c *captureTB) Errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, fmt.Sprintf(format, args...))
}
func (c *captureTB) Fatalf(format string, args ...any) {
	c.Errorf(format, args...)
	runtime.Goexit()
}
func (c *captureTB) failures() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.msgs, "\n")
}

const (
	recToken  = "ghp_recordedSecretToken1234"
	recAnswer = "tok-from-the-upstream-5678"
)

// standIn is an upstream that needs the token, answers a secret in a body
// and a cookie, and fails the first /flaky call with a 502.
func standIn(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	var flaky atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+recToken || r.URL.Query().Get("api_key") != recToken {
			w.WriteHeader(401)
			return
		}
		if r.URL.Path == "/flaky" && flaky.Add(1) == 1 {
			w.WriteHeader(502)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "cookie-secret-999"})
		w.Header().Set("Content-Type", "application/json")
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, `{"path":%q,"page":%q,"sent":%q,"access_token":%q}`, r.URL.Path, r.URL.Query().Get("page"), body, recAnswer)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func setRecording(t *testing.T, on bool) {
	old := *recordFlag
	*recordFlag = on
	t.Cleanup(func() { *recordFlag = old })
}

// calls makes the exchanges of the test through the upstream toolkit.
func calls(t testing.TB, hc *http.Client, base, token string) []string {
	api := &upstream.Client{BaseURL: base, Auth: upstream.Bearer("token"), HTTPClient: hc}
	s := api.For(appkit.Account{"token": token})
	var out []string
	for _, r := range []upstream.Request{
		{Path: "/items", Query: map[string][]string{"page": {"1"}, "api_key": {token}}},
		{Path: "/items", Query: map[string][]string{"page": {"2"}, "api_key": {token}}},
		{Path: "/flaky", Query: map[string][]string{"api_key": {token}}},
		{Method: "POST", Path: "/notes", Query: map[string][]string{"api_key": {token}}, Body: map[string]string{"note": "hi", "password": "pw-" + token}},
	} {
		var m map[string]string
		if _, err := s.Do(context.Background(), r, &m); err != nil {
			out = append(out, "error: "+err.Error())
			continue
		}
		out = append(out, m["path"]+"|"+m["page"]+"|"+m["sent"]+"|"+m["access_token"])
	}
	return out
}

func TestRecordAndReplay(t *testing.T) {
	t.Chdir(t.TempDir())
	srv, served := standIn(t)
	var recorded []string
	t.Run("record", func(t *testing.T) {
		setRecording(t, true)
		hc := Record(t, RecordName("exchanges"), RecordSecrets(recToken), RecordTransport(srv.Client().Transport))
		recorded = calls(t, hc, srv.URL, recToken)
	})
	if served.Load() != 5 { // two pages, a 502 and its retry, a POST
		t.Fatalf("the stand-in served %d requests while recording", served.Load())
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "exchanges.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{recToken, recAnswer, "cookie-secret-999"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the recording holds the secret %q:\n%s", secret, raw)
		}
	}
	if !strings.Contains(string(raw), `"password":"***"`) || !strings.Contains(string(raw), "code: 502") {
		t.Errorf("the recording lacks the masks or the 502:\n%s", raw)
	}

	t.Run("replay", func(t *testing.T) {
		srv.Close() // offline
		hc := Record(t, RecordName("exchanges"), RecordSecrets("another-token-0000"))
		got := calls(t, hc, "https://api.example", "another-token-0000")
		for i := range recorded {
			want := strings.ReplaceAll(strings.ReplaceAll(recorded[i], recAnswer, Masked), recToken, Masked)
			if got[i] != want {
				t.Errorf("replay %d = %q, want %q", i, got[i], want)
			}
		}
	})
	if served.Load() != 5 {
		t.Fatalf("the replay reached the stand-in")
	}

	t.Run("matched by query, not by order", func(t *testing.T) {
		hc := Record(t, RecordName("exchanges"), RecordSecrets("third-token-0000"))
		api := &upstream.Client{BaseURL: "https://api.example", Auth: upstream.Bearer("token"), HTTPClient: hc}
		got, err := upstream.Get[map[string]string](context.Background(), api.For(appkit.Account{"token": "third-token-0000"}), "/items",
			map[string][]string{"page": {"2"}, "api_key": {"third-token-0000"}})
		if err != nil || got["page"] != "2" {
			t.Fatalf("page 2 first: %v %v", got, err)
		}
	})
	t.Run("a request without a recording", func(t *testing.T) {
		c := &captureTB{TB: t}
		hc := Record(c, RecordName("exchanges"))
		_, err := hc.Get("https://api.example/missing?page=3")
		if err == nil || !strings.Contains(c.failures(), "no recorded answer for GET /missing?page=3 in testdata/exchanges.yaml") || !strings.Contains(c.failures(), "-appkit.record") {
			t.Fatalf("err %v, failures %q", err, c.failures())
		}
	})
	t.Run("no recording file", func(t *testing.T) {
		c := &captureTB{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Record(c, RecordName("nothing"))
		}()
		<-done
		if !strings.Contains(c.failures(), "no recording testdata/nothing.yaml") || !strings.Contains(c.failures(), "-appkit.record") {
			t.Fatalf("failures %q", c.failures())
		}
	})
}

func TestScrubber(t *testing.T) {
	t.Parallel()
	s := newScrubber([]string{"s3cr3t!x"})
	for _, tc := range []struct{ in, ct, want string }{
		{`{"access_token":"abc","name":"n","nested":{"client_secret":"x\"y"}}`, "application/json", `{"access_token":"***","name":"n","nested":{"client_secret":"***"}}`},
		{`grant_type=refresh_token&refresh_token=r1&client_id=c`, "application/x-www-form-urlencoded", `client_id=c&grant_type=refresh_token&refresh_token=%2A%2A%2A`},
		{`say s3cr3t!x and s3cr3t%21x`, "text/plain", `say *** and ***`},
	} {
		if got := s.scrubBody(tc.in, tc.ct); got != tc.want {
			t.Errorf("scrubBody(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := s.scrubURL("https://u:p@api.example/x/s3cr3t!x?key=1&page=2&access_token=z"); got != "https://api.example/x/***?access_token=%2A%2A%2A&key=%2A%2A%2A&page=2" {
		t.Errorf("scrubURL = %q", got)
	}
	h := http.Header{"Authorization": {"Bearer x"}, "X-Api-Key": {"k"}, "Accept": {"s3cr3t!x"}, "Content-Type": {"application/json"}}
	s.scrubValues(h)
	if h.Get("Authorization") != Masked || h.Get("X-Api-Key") != Masked || h.Get("Accept") != Masked || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", h)
	}
}

// linkPaged is a stand-in that pages /items by absolute Link URLs of its
// own origin (as GitHub does), and names its origin in each item.
func linkPaged(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+recToken {
			w.WriteHeader(401)
			return
		}
		origin := "http://" + r.Host
		page := r.URL.Query().Get("page")
		if page == "" {
			page = "1"
		}
		if page != "3" {
			next := map[string]string{"1": "2", "2": "3"}[page]
			w.Header().Set("Link", fmt.Sprintf(`<%s/items?page=%s>; rel="next", <%s/items?page=3>; rel="last"`, origin, next, origin))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `[{"id":"p%s","url":"%s/items/p%s"}]`, page, origin, page)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// allPages follows the Link header from /items to the end.
func allPages(t testing.TB, hc *http.Client, base string) []string {
	api := &upstream.Client{BaseURL: base, Auth: upstream.Bearer("token"), HTTPClient: hc}
	s := api.For(appkit.Account{"token": recToken})
	var out []string
	var c *upstream.Cursor
	for range 10 {
		page, err := upstream.Fetch[map[string]string](context.Background(), s, upstream.LinkHeader(), upstream.Request{Path: "/items"}, c)
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		for _, it := range page.Items {
			out = append(out, it["id"]+" "+strings.Replace(it["url"], base, "BASE", 1))
		}
		if c = page.Next; c == nil {
			break
		}
	}
	return out
}

// A stand-in on a random port answers absolute Link URLs; the recording
// holds a fixed origin instead, and a replay against another origin (a
// stand-in on another random port) follows the links to its own origin.
func TestRecordAbsoluteLinks(t *testing.T) {
	t.Chdir(t.TempDir())
	want := []string{"p1 BASE/items/p1", "p2 BASE/items/p2", "p3 BASE/items/p3"}
	recorded := linkPaged(t)
	t.Run("record", func(t *testing.T) {
		setRecording(t, true)
		hc := Record(t, RecordName("linked"), RecordSecrets(recToken), RecordTransport(recorded.Client().Transport))
		if got := allPages(t, hc, recorded.URL); !slices.Equal(got, want) {
			t.Fatalf("recording: %q, want %q", got, want)
		}
	})
	raw, err := os.ReadFile(filepath.Join("testdata", "linked.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(recorded.URL, "http://")
	if strings.Contains(string(raw), host) || !strings.Contains(string(raw), "<"+recordedOrigin+"/items?page=2>") {
		t.Fatalf("the recording names the stand-in's origin %s, or not the fixed one:\n%s", host, raw)
	}
	recorded.Close()

	other := linkPaged(t) // another random port, never reached: the replay is offline
	other.Close()
	t.Run("replay", func(t *testing.T) {
		if got := allPages(t, Record(t, RecordName("linked")), other.URL); !slices.Equal(got, want) {
			t.Fatalf("replay on %s: %q, want %q", other.URL, got, want)
		}
	})
}
