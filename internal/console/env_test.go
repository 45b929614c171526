package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/examples/actions/notify"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/internal/testkit/testhost"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

const (
	adminEmail = "admin@example.com"
	adminPass  = "console-test-password"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// env is a host with the apps service (scheduler running) and the console
// at /, on dsn.
type env struct {
	t   *testing.T
	srv *httptest.Server
	svc *apps.Service
	st  *store.Store
	h   *host.Host
}

func newEnv(t *testing.T, dsn string) *env {
	t.Helper()
	return newEnvScheduled(t, dsn, true)
}

// newEnvScheduled is newEnv with the scheduler running or not.
func newEnvScheduled(t *testing.T, dsn string, schedule bool) *env {
	t.Helper()
	return newEnvTuned(t, dsn, schedule, nil)
}

// newEnvTuned is newEnvScheduled with the host's configuration changed by
// tune (nil: as it is).
func newEnvTuned(t *testing.T, dsn string, schedule bool, tune func(*host.Config)) *env {
	t.Helper()
	// store.Open calls uuid.EnableRandPool, which writes a global that
	// every new uuid reads: the tests that open stores do not run in
	// parallel.
	st := teststore.Open(t, dsn)
	hcfg := host.Config{Store: st, PasswordCost: 4, AdminEmail: adminEmail, AdminPassword: adminPass, Notice: io.Discard}
	if tune != nil {
		tune(&hcfg)
	}
	a := testhost.StartApps(t,
		apps.Config{Store: st, Key: testKey, Poll: 20 * time.Millisecond, LeaseTTL: 30 * time.Second, RequestTimeout: 30 * time.Second},
		hcfg, schedule)
	return &env{t: t, srv: a.Srv, svc: a.Svc, st: st, h: a.Host}
}

// newSync registers the app at appURL with the service, sets up an
// account with fields and a sync of it (due at once).
func (e *env) newSync(appURL string, fields map[string]any) *apps.Sync {
	e.t.Helper()
	ctx := context.Background()
	a, err := e.svc.Registry.RegisterApp(ctx, appURL)
	if err != nil {
		e.t.Fatal(err)
	}
	acc, err := e.svc.Registry.CreateAccount(ctx, a.ID, "", fields)
	if err != nil {
		e.t.Fatal(err)
	}
	sy, err := e.svc.SyncService.CreateSync(ctx, apps.SyncSpec{App: a.ID, Account: acc.ID})
	if err != nil {
		e.t.Fatal(err)
	}
	return sy
}

// trackerURL serves the tracker example on loopback.
func trackerURL(t *testing.T, tasks int) string {
	t.Helper()
	nop := zerolog.Nop()
	return testapp.Serve(t, tracker.New(tracker.Config{Projects: 3, Tasks: tasks, Logger: &nop}))
}

// notifyURL serves the notify example on loopback.
func notifyURL(t *testing.T) string {
	t.Helper()
	nop := zerolog.Nop()
	return testapp.Serve(t, notify.New(notify.Config{Logger: &nop, AllowHTTP: true, AllowPrivateNetworks: true}))
}

// browser is a cookie-keeping client of the console that does not follow
// redirects (tests look at them).
type browser struct {
	t      *testing.T
	e      *env
	client *http.Client
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: e.t, e: e, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type answer struct {
	code     int
	body     string
	location string
	header   http.Header
}

func (b *browser) get(path string) answer {
	b.t.Helper()
	resp, err := b.client.Get(b.e.srv.URL + path)
	if err != nil {
		b.t.Fatal(err)
	}
	return read(b.t, resp)
}

// post sends a form as the page would (same origin).
func (b *browser) post(path string, form url.Values) answer {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.e.srv.URL)
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	return read(b.t, resp)
}

func read(t *testing.T, resp *http.Response) answer {
	t.Helper()
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{code: resp.StatusCode, body: string(raw), location: resp.Header.Get("Location"), header: resp.Header}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the CSRF token of a page's first form.
func csrf(t *testing.T, body string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no csrf field in the page:\n%.3000s", body)
	}
	return m[1]
}

// signIn signs the browser in as the admin and returns the CSRF token of
// the signed-in pages.
func (b *browser) signIn() string {
	b.t.Helper()
	a := b.get("/")
	r := b.post("/login", url.Values{"email": {adminEmail}, "password": {adminPass}, "csrf": {csrf(b.t, a.body)}})
	if r.code != http.StatusSeeOther {
		b.t.Fatalf("sign-in: %d %s", r.code, r.body)
	}
	return csrf(b.t, b.get("/tokens").body)
}

// register registers the app at appURL with the console's form (tok is
// the CSRF token of signIn) and returns the path of the app's page.
func (b *browser) register(tok, appURL string) string {
	b.t.Helper()
	r := b.post("/apps", url.Values{"url": {appURL}, "csrf": {tok}})
	if r.code != http.StatusSeeOther || !strings.HasPrefix(r.location, "/apps/") {
		b.t.Fatalf("register %s: %d %s\n%s", appURL, r.code, r.location, r.body)
	}
	return r.location
}
