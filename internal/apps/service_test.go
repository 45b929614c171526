package apps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/netguard"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// testService opens a store on dsn and the service on it, without its
// scheduler (tests drive it).
func testService(t *testing.T, dsn string, tune func(*Config)) (*Service, *testkit.Buffer) {
	t.Helper()
	ctx := context.Background()
	st := teststore.Open(t, dsn)
	logs := &testkit.Buffer{}
	cfg := Config{Store: st, Key: bytes.Repeat([]byte{3}, KeySize), Poll: 20 * time.Millisecond, RequestTimeout: time.Minute,
		Logger: zerolog.New(logs), BaseURL: "http://host.test"}
	if tune != nil {
		tune(&cfg)
	}
	svc, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return svc, logs
}

// fakeApp is an app written with net/http only: handlers by "METHOD
// path", a descriptor for GET / unless one is given, every call counted.
type fakeApp struct {
	url string

	mu       sync.Mutex
	handlers map[string]http.HandlerFunc
	calls    map[string]int
}

// fakeDescriptor declares one authentication and one type.
func fakeDescriptor(auth string) string {
	return `{"id":"fake","name":"Fake","version":"1.0.0","type":"sync","authentication":[{"id":"` + auth + `","name":"Account","fields":[{"id":"token","name":"Token","type":"password"}]}]}`
}

func newFakeApp(t *testing.T, auth string, handlers map[string]http.HandlerFunc) *fakeApp {
	t.Helper()
	a := &fakeApp{handlers: handlers, calls: map[string]int{}}
	if a.handlers == nil {
		a.handlers = map[string]http.HandlerFunc{}
	}
	if a.handlers["GET "+protocol.PathDescriptor] == nil {
		a.handlers["GET "+protocol.PathDescriptor] = answer(200, fakeDescriptor(auth))
	}
	if a.handlers["POST "+protocol.PathValidate] == nil {
		a.handlers["POST "+protocol.PathValidate] = answer(200, `{"name":"Fake account"}`)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := r.Method + " " + r.URL.Path
		a.mu.Lock()
		a.calls[k]++
		h := a.handlers[k]
		a.mu.Unlock()
		if h == nil {
			answer(404, `{"message":"no such endpoint"}`)(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	a.url = srv.URL
	return a
}

func (a *fakeApp) count(k string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls[k]
}

// answer answers a JSON body with a status.
func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// registerWithAccount registers the app at url and sets up an account
// with the token "account-token-42".
func registerWithAccount(t *testing.T, svc *Service, url string) (*App, *Account) {
	t.Helper()
	return registerWithToken(t, svc, url, "account-token-42")
}

// registerWithToken registers the app at url and sets up an account with
// the token.
func registerWithToken(t *testing.T, svc *Service, url, token string) (*App, *Account) {
	t.Helper()
	ctx := context.Background()
	a, err := svc.Registry.RegisterApp(ctx, url)
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	acc, err := svc.Registry.CreateAccount(ctx, a.ID, "", map[string]any{"token": token})
	if err != nil {
		t.Fatalf("account: %v", err)
	}
	return a, acc
}

// registerWithSync registers the app at url and sets up an account (see
// registerWithAccount) and a sync of it.
func registerWithSync(t *testing.T, svc *Service, url string) (*App, *Sync) {
	t.Helper()
	a, acc := registerWithAccount(t, svc, url)
	sy, err := svc.SyncService.CreateSync(context.Background(), SyncSpec{App: a.ID, Account: acc.ID})
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return a, sy
}

// fakeSync registers the app, sets up an account with a token and a sync
// whose webhook "wh-1" is installed.
func fakeSync(t *testing.T, svc *Service, app *fakeApp) (*App, *Sync) {
	t.Helper()
	ctx := context.Background()
	a, sy := registerWithSync(t, svc, app.url)
	if _, err := svc.core.exec(ctx, "UPDATE apps_syncs SET webhook = ?, webhook_types = ? WHERE id = ?", `{"id":"wh-1"}`, `["note"]`, sy.ID); err != nil {
		t.Fatal(err)
	}
	return a, sy
}

// A webhook event reaches the app's verify with the bytes received,
// exactly (a signature covers them), and verify must name the sync's
// webhook.
func TestReceiveEventVerifiesExactBytesAndWebhook(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, func(t *testing.T, dsn string) {
		svc, _ := testService(t, dsn, nil)
		var mu sync.Mutex
		var got []byte // the payload verify received
		verifyAs := "wh-1"
		app := newFakeApp(t, "token", map[string]http.HandlerFunc{
			"POST " + protocol.PathWebhookVerify: func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					Params  map[string]any  `json:"params"`
					Payload json.RawMessage `json:"payload"`
				}
				b, _ := io.ReadAll(r.Body)
				if err := json.Unmarshal(b, &req); err != nil {
					answer(400, `{"message":"not JSON"}`)(w, r)
					return
				}
				mu.Lock()
				got = append([]byte(nil), req.Payload...)
				id := verifyAs
				mu.Unlock()
				if req.Params["x-signature"] != "sig-1" {
					answer(401, `{"message":"no signature"}`)(w, r)
					return
				}
				answer(200, `{"id":"`+id+`"}`)(w, r)
			},
		})
		_, sy := fakeSync(t, svc, app)
		hdr := http.Header{"X-Signature": {"sig-1"}}
		for _, body := range []string{
			"{\n  \"set\": [\n    {\"id\": \"n1\", \"name\": \"a & b <c>\"}\n  ]\n}",
			`{"name":"Tom & Jerry <tj@example.com>","x":"\u00e9\/"}`,
			`[1, 2.50, 3e2]`,
		} {
			out := svc.Webhooks.ReceiveEvent(context.Background(), sy.ID, hdr, []byte(body))
			if out.Status != http.StatusAccepted {
				t.Errorf("%q: %d %s", body, out.Status, out.Message)
			}
			mu.Lock()
			if string(got) != body {
				t.Errorf("verify got %q, want the bytes received %q", got, body)
			}
			mu.Unlock()
		}
		// Not JSON: passed as a JSON string of the same text.
		form := "a=1&b=<2>"
		if out := svc.Webhooks.ReceiveEvent(context.Background(), sy.ID, hdr, []byte(form)); out.Status != http.StatusAccepted {
			t.Errorf("a form body: %d %s", out.Status, out.Message)
		}
		mu.Lock()
		var s string
		if json.Unmarshal(got, &s) != nil || s != form {
			t.Errorf("a form body reached verify as %s", got)
		}
		verifyAs = "wh-2"
		mu.Unlock()
		// Verify naming another webhook: refused, not recorded.
		out := svc.Webhooks.ReceiveEvent(context.Background(), sy.ID, hdr, []byte(`{"other":1}`))
		if out.Status != http.StatusUnauthorized || !strings.Contains(out.Message, "another webhook") {
			t.Errorf("an event of another webhook: %d %s", out.Status, out.Message)
		}
		var n int
		svc.core.db.QueryRow("SELECT COUNT(*) FROM apps_events").Scan(&n)
		if n != 4 {
			t.Errorf("%d events recorded, want 4", n)
		}
		if out := svc.Webhooks.ReceiveEvent(context.Background(), sy.ID, http.Header{}, []byte(`{}`)); out.Status != http.StatusUnauthorized {
			t.Errorf("an unsigned event: %d %s", out.Status, out.Message)
		}
	})
}

// An OAuth set-up is completed only within oauthTTL of its start.
func TestFinishOAuthExpires(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	svc, _ := testService(t, "sqlite::memory:", func(c *Config) { c.Now = clock })
	states := make(chan string, 2)
	app := newFakeApp(t, protocol.AuthOAuth2, map[string]http.HandlerFunc{
		"POST " + protocol.PathOAuth2Auth: func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				State string `json:"state"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			states <- req.State
			answer(200, `{"redirect_uri":"https://provider.test/consent?state=`+url.QueryEscape(req.State)+`"}`)(w, r)
		},
		"POST " + protocol.PathOAuth2Token: answer(200, `{"access_token":"oauth-access-1","refresh_token":"oauth-refresh-1"}`),
	})
	ctx := context.Background()
	a, err := svc.Registry.RegisterApp(ctx, app.url)
	if err != nil {
		t.Fatal(err)
	}
	start := func() string {
		t.Helper()
		if _, err := svc.OAuthSetup.StartOAuth(ctx, a.ID, "", "", ""); err != nil {
			t.Fatal(err)
		}
		return <-states
	}
	late := start()
	advance(oauthTTL + time.Second)
	_, err = svc.OAuthSetup.FinishOAuth(ctx, url.Values{"state": {late}, "code": {"c-1"}})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "expired") {
		t.Errorf("an expired set-up: %v", err)
	}
	if n := app.count("POST " + protocol.PathOAuth2Token); n != 0 {
		t.Errorf("an expired set-up called access_token %d times", n)
	}
	inTime := start()
	advance(oauthTTL - time.Second)
	acc, err := svc.OAuthSetup.FinishOAuth(ctx, url.Values{"state": {inTime}, "code": {"c-2"}})
	if err != nil || acc.Auth != protocol.AuthOAuth2 {
		t.Fatalf("a set-up in time: %+v %v", acc, err)
	}
	if list, _ := svc.Registry.Accounts(ctx, a.ID); len(list) != 1 {
		t.Errorf("%d accounts, want the one set up in time", len(list))
	}
}

// failingTransport fails every call with an error that repeats what it
// was sent.
type failingTransport struct{}

func (failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	return nil, errors.New("dial failed while sending " + string(b))
}

// The history keeps failed calls with their error text masked.
func TestRecorderMasksErrors(t *testing.T) {
	t.Parallel()
	m := newMasker(map[string]any{"token": "account-token-42"}, nil)
	rec, hc := newRecorder(&http.Client{Transport: failingTransport{}}, m, false)
	req, _ := http.NewRequest("POST", "http://app.test/api/v1/synchronizer/data", strings.NewReader(`{"account":{"token":"account-token-42"}}`))
	if _, err := hc.Do(req); err == nil {
		t.Fatal("the call did not fail")
	}
	ex, _ := rec.exchanges()
	if len(ex) != 1 || ex[0].Error == "" {
		t.Fatalf("exchanges: %+v", ex)
	}
	if strings.Contains(ex[0].Error, "account-token-42") || !strings.Contains(ex[0].Error, "***") {
		t.Errorf("the error is kept unmasked: %q", ex[0].Error)
	}
}

// A token that an answer brings is masked by its field's name in bodies
// of any size: in a large answer that the history cuts, and in the large
// requests that carry it afterwards.
func TestRecorderMasksLargeBodies(t *testing.T) {
	t.Parallel()
	const fresh = "refreshed-token-7f3a"
	big := strings.Repeat("x", 40<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == protocol.PathValidate {
			io.WriteString(w, `{"name":"A","access_token":"`+fresh+`","profile":"`+big+`"}`)
			return
		}
		io.WriteString(w, `{"items":[]}`)
	}))
	defer srv.Close()
	m := newMasker(map[string]any{"access_token": "old-token-1234"}, nil)
	rec, hc := newRecorder(srv.Client(), m, false)
	post := func(path, body string) {
		t.Helper()
		resp, err := hc.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	post(protocol.PathValidate, `{"fields":{"access_token":"old-token-1234","profile":"`+big+`"}}`)
	// The next calls carry the fresh token deep in a large body, after
	// the bytes the history keeps, and in its first bytes.
	post(protocol.PathData, `{"account":{"access_token":"`+fresh+`","profile":"`+big+`"}}`)
	post(protocol.PathData, `{"account":{"profile":"`+big+`","access_token":"`+fresh+`"}}`)
	post(protocol.PathData, `{"pretty": {
  "refresh_token" : "refresh-token-99", "note": "`+big+`"}}`)
	ex, _ := rec.exchanges()
	if len(ex) != 4 {
		t.Fatalf("%d exchanges", len(ex))
	}
	for i, e := range ex {
		for _, secret := range []string{fresh, "old-token-1234", "refresh-token-99"} {
			if strings.Contains(e.Request, secret) || strings.Contains(e.Response, secret) {
				t.Errorf("exchange %d shows %s", i, secret)
			}
		}
		if len(e.Request) > maxExchangeBody+10 || len(e.Response) > maxExchangeBody+10 {
			t.Errorf("exchange %d keeps %d/%d bytes", i, len(e.Request), len(e.Response))
		}
	}
	if !strings.Contains(ex[0].Response, `"access_token":"***"`) {
		t.Errorf("the answer's token field: %.200s", ex[0].Response)
	}
	if got := m.mask("later " + fresh); got != "later ***" {
		t.Errorf("the fresh token is not remembered: %q", got)
	}
}

// Registration calls only addresses the network policy allows, checked on
// the address dialled, and fails the same way wherever no app answered:
// nothing listening, a refused address, another status, another content.
func TestRegisterAppNetworksAndUniformErrors(t *testing.T) {
	t.Parallel()
	local, _ := testService(t, "sqlite::memory:", nil)
	public, _ := testService(t, "sqlite::memory:", func(c *Config) { c.Networks = netguard.PublicOnly })
	ctx := context.Background()

	app := newFakeApp(t, "token", nil)
	if _, err := local.Registry.RegisterApp(ctx, app.url); err != nil {
		t.Fatalf("the default policy refuses a loopback app: %v", err)
	}
	calls := app.count("GET /")
	_, refused := public.Registry.RegisterApp(ctx, app.url)
	if app.count("GET /") != calls {
		t.Error("the public-only policy let a call reach a loopback app")
	}
	// "localhost" resolves to loopback: the check is on the address dialled.
	_, byName := public.Registry.RegisterApp(ctx, strings.Replace(app.url, "127.0.0.1", "localhost", 1))

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	notFound := newFakeApp(t, "token", map[string]http.HandlerFunc{"GET /": answer(404, `{"message":"no"}`)})
	html := newFakeApp(t, "token", map[string]http.HandlerFunc{"GET /": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>router login</html>")
	}})
	_, down := local.Registry.RegisterApp(ctx, closed.URL)
	_, status := local.Registry.RegisterApp(ctx, notFound.url)
	_, content := local.Registry.RegisterApp(ctx, html.url)
	for name, err := range map[string]error{"refused by policy": refused, "refused by policy (a name)": byName, "nothing listening": down, "404": status, "text/html": content} {
		if !errors.Is(err, ErrUnreachable) || err.Error() != errNoApp.Error() {
			t.Errorf("%s: %v, want the uniform %v", name, err, errNoApp)
		}
	}
	// An app that answered a JSON descriptor is told what is wrong with it.
	noName := newFakeApp(t, "token", map[string]http.HandlerFunc{"GET /": answer(200, `{"id":"x","authentication":[{"id":"none"}]}`)})
	if _, err := local.Registry.RegisterApp(ctx, noName.url); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no name") {
		t.Errorf("a descriptor without a name: %v", err)
	}
}

// An account's values never leave the service: its keys are listed, its
// values are stored sealed, a refusal by the app that repeats them is
// masked, the log never shows them.
func TestAccountSecretsStayInside(t *testing.T) {
	t.Parallel()
	svc, logs := testService(t, "sqlite::memory:", nil)
	app := newFakeApp(t, "token", map[string]http.HandlerFunc{
		"POST " + protocol.PathValidate: func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Fields map[string]any `json:"fields"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			tok, _ := req.Fields["token"].(string)
			if tok != "account-token-42" {
				answer(401, `{"message":"token `+tok+` is unknown"}`)(w, r)
				return
			}
			answer(200, `{"name":"Fake account"}`)(w, r)
		},
	})
	ctx := context.Background()
	a, err := svc.Registry.RegisterApp(ctx, app.url)
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Registry.CreateAccount(ctx, a.ID, "", map[string]any{"token": "wrong-token-77"})
	if !errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "wrong-token-77") || !strings.Contains(err.Error(), "***") {
		t.Errorf("a refused account: %v", err)
	}
	acc, err := svc.Registry.CreateAccount(ctx, a.ID, "", map[string]any{"token": "account-token-42"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(acc); strings.Contains(string(b), "account-token-42") || strings.Join(acc.Fields, ",") != "auth,token" {
		t.Errorf("the account shows %s", b)
	}
	var sealed string
	svc.core.db.QueryRow("SELECT sealed FROM apps_accounts WHERE id = ?", acc.ID).Scan(&sealed)
	if sealed == "" || strings.Contains(sealed, "account-token-42") {
		t.Errorf("stored unsealed: %q", sealed)
	}
	if strings.Contains(logs.String(), "account-token-42") || strings.Contains(logs.String(), "wrong-token-77") {
		t.Error("a secret reached the log")
	}
}

// A replayed event is recorded once and answered 200.
func TestReceiveEventReplay(t *testing.T) {
	t.Parallel()
	svc, _ := testService(t, "sqlite::memory:", nil)
	app := newFakeApp(t, "token", map[string]http.HandlerFunc{"POST " + protocol.PathWebhookVerify: answer(200, `{"id":"wh-1"}`)})
	_, sy := fakeSync(t, svc, app)
	ctx := context.Background()
	if out := svc.Webhooks.ReceiveEvent(ctx, sy.ID, http.Header{}, []byte(`{"n":1}`)); out.Status != http.StatusAccepted || out.Replay {
		t.Fatalf("first: %+v", out)
	}
	if out := svc.Webhooks.ReceiveEvent(ctx, sy.ID, http.Header{}, []byte(`{"n":1}`)); out.Status != http.StatusOK || !out.Replay {
		t.Errorf("a replay: %+v", out)
	}
	if out := svc.Webhooks.ReceiveEvent(ctx, "nope", http.Header{}, []byte(`{"n":1}`)); out.Status != http.StatusNotFound {
		t.Errorf("no such sync: %+v", out)
	}
	var n int
	svc.core.db.QueryRow("SELECT COUNT(*) FROM apps_events").Scan(&n)
	if n != 1 {
		t.Errorf("%d events recorded", n)
	}
}
