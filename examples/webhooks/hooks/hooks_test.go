package hooks_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/examples/webhooks/hooks"
	"github.com/appkitgo/appkit/examples/webhooks/shop"
)

const token = "test-token"

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// delivery is one event as the service's webhook address received it.
type delivery struct {
	params map[string]any
	body   string
}

// service stands in for the workspace service's webhook address: it keeps
// what the shop posts, for the test to pass on to verify and transform as
// the service would (headers as params, the body as a string payload).
type service struct {
	*httptest.Server
	mu  sync.Mutex
	got []delivery
}

func newService(t *testing.T) *service {
	s := &service{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		params := map[string]any{}
		for k, v := range r.Header {
			params[k] = v[0]
		}
		s.mu.Lock()
		s.got = append(s.got, delivery{params, string(b)})
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(s.Close)
	return s
}

// take returns and forgets the deliveries so far.
func (s *service) take() []delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.got
	s.got = nil
	return out
}

type fixture struct {
	clock *clock
	shop  *shop.Shop
	svc   *service
	c     *appkittest.Client
}

func setup(t *testing.T) *fixture {
	t.Helper()
	clk := &clock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	s := shop.New(token, 30, clk.now)
	app, err := hooks.New(s, hooks.Config{Key: []byte("0123456789abcdef-test-key"), Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	c := appkittest.New(t, app.App())
	c.Account = map[string]any{"token": token}
	return &fixture{clk, s, newService(t), c}
}

// The shop's changes reach the app as signed events: verify names the
// webhook, transform gives the changes, and a delta run agrees with them.
func TestWebhook_installVerifyTransform(t *testing.T) {
	f := setup(t)
	if cfg := f.c.Config(); cfg.Webhooks == nil || !cfg.Webhooks.Enabled {
		t.Fatalf("config %+v does not announce webhooks", cfg)
	}
	full := f.c.SyncAll(appkittest.Run{Type: "order"})
	if len(full) != 30 {
		t.Fatalf("%d orders, want 30", len(full))
	}
	hook := appkittest.Webhook{Types: []string{"order"}, URL: f.svc.URL}
	obj := f.c.InstallWebhook(hook)
	id := obj["id"].(string)
	if subs := f.shop.Subscriptions(); !slices.Equal(subs, []string{id}) {
		t.Fatalf("the shop's subscriptions %v, want [%s]", subs, id)
	}
	runAt := f.clock.now()

	f.clock.add(2 * time.Hour)
	f.shop.Put(shop.Order{ID: "o-100", Customer: "Zoe", Status: "pending", Total: 12.5, Items: 2})
	f.shop.Put(shop.Order{ID: "o-3", Customer: "Cy", Status: "cancelled", Total: 11, Items: 1})
	f.shop.Delete("o-5")
	if err := f.shop.Flush(); err != nil {
		t.Fatal(err)
	}
	got := f.svc.take()
	if len(got) != 3 {
		t.Fatalf("%d deliveries, want 3", len(got))
	}
	sets, removed := map[string]map[string]any{}, []string{}
	for _, d := range got {
		r := f.c.VerifyWebhook(d.params, d.body)
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"id":"`+id+`"`) {
			t.Fatalf("verify = %d %s, want the webhook %s", r.Status, r.Body, id)
		}
		for _, it := range f.c.TransformWebhook(hook, d.params, d.body)["order"] {
			switch it["__syncAction"] {
			case "SET":
				sets[it["id"].(string)] = it
			case "REMOVE":
				removed = append(removed, it["id"].(string))
			}
		}
	}
	if len(sets) != 2 || sets["o-100"]["customer"] != "Zoe" || sets["o-3"]["status"] != "cancelled" || !slices.Equal(removed, []string{"o-5"}) {
		t.Errorf("transformed: set %v, removed %v", sets, removed)
	}

	// The next run's delta holds the same changes.
	pages := f.c.Sync(appkittest.Run{Type: "order", LastSynchronizedAt: runAt.Add(time.Hour)})
	var ids []string
	for _, p := range pages {
		for _, it := range p.Items {
			ids = append(ids, it["id"].(string)+":"+it["__syncAction"].(string))
		}
	}
	slices.Sort(ids)
	if want := []string{"o-100:SET", "o-3:SET", "o-5:REMOVE"}; !slices.Equal(ids, want) {
		t.Errorf("delta run %v, want %v", ids, want)
	}

	// A reinstall keeps the id; a delete unsubscribes and the shop stops sending.
	again := f.c.InstallWebhook(appkittest.Webhook{Types: hook.Types, URL: f.svc.URL, Object: obj})
	if again["id"] != id {
		t.Errorf("reinstall gave id %v, want %s", again["id"], id)
	}
	if r := f.c.DeleteWebhook(appkittest.Webhook{Types: hook.Types, Object: obj}); r.Status != http.StatusNoContent {
		t.Fatalf("delete = %d %s", r.Status, r.Body)
	}
	f.shop.Put(shop.Order{ID: "o-101", Customer: "Yann", Status: "paid", Total: 3, Items: 1})
	_ = f.shop.Flush()
	if n := len(f.svc.take()); n != 0 || len(f.shop.Subscriptions()) != 0 {
		t.Errorf("after delete: %d deliveries, subscriptions %v", n, f.shop.Subscriptions())
	}
}

// Only genuine, recent events verify.
func TestVerify_refuses(t *testing.T) {
	f := setup(t)
	obj := f.c.InstallWebhook(appkittest.Webhook{Types: []string{"order"}, URL: f.svc.URL})
	f.shop.Put(shop.Order{ID: "o-1", Customer: "Ada", Status: "paid", Total: 1, Items: 1})
	if err := f.shop.Flush(); err != nil {
		t.Fatal(err)
	}
	d := f.svc.take()[0]
	with := func(k, v string) map[string]any {
		p := map[string]any{}
		for k, v := range d.params {
			p[k] = v
		}
		p[k] = v
		return p
	}
	otherSig := shop.Sign([]byte("a secret the app never gave out"), f.clock.now(), []byte(d.body))
	for _, tc := range []struct {
		name   string
		params map[string]any
		body   string
		want   string
	}{
		{"tampered body", d.params, strings.Replace(d.body, `"paid"`, `"cancelled"`, 1), "does not match"},
		{"another secret", with(shop.HeaderSignature, otherSig), d.body, "does not match"},
		{"another hook", with(shop.HeaderHook, "wh_"+strings.Repeat("0", 24)), d.body, "does not match"},
		{"not a hook id", with(shop.HeaderHook, "../x"), d.body, "not a webhook of this app"},
		{"no signature", with(shop.HeaderSignature, ""), d.body, "missing"},
		{"bad signature", with(shop.HeaderSignature, "t=1,v1=zz"), d.body, "64 hex digits"},
		{"event header disagrees", with(shop.HeaderEvent, shop.OrderDeleted), d.body, "but the body says"},
		{"no params", map[string]any{}, d.body, "not a webhook"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.c.VerifyWebhook(tc.params, tc.body)
			if r.Status != http.StatusUnauthorized || !strings.Contains(r.Message(), tc.want) {
				t.Errorf("verify = %d %q, want 401 with %q", r.Status, r.Message(), tc.want)
			}
			r = f.c.Do("POST", "/api/v1/synchronizer/webhooks/transform", map[string]any{"types": []string{"order"}, "params": tc.params, "payload": tc.body})
			if r.Status != http.StatusUnauthorized {
				t.Errorf("transform = %d %s, want 401", r.Status, r.Body)
			}
		})
	}
	// Replayed later than the tolerance, the genuine event is refused.
	f.clock.add(hooks.DefaultTolerance + time.Second)
	if r := f.c.VerifyWebhook(d.params, d.body); r.Status != http.StatusUnauthorized || !strings.Contains(r.Message(), "replay") {
		t.Errorf("a replay: verify = %d %q", r.Status, r.Message())
	}
	_ = obj
}

// With statuses selected, an order that leaves the selection is removed.
func TestTransform_followsTheFilter(t *testing.T) {
	f := setup(t)
	hook := appkittest.Webhook{Types: []string{"order"}, Filter: map[string]any{"status": []any{"paid"}}, URL: f.svc.URL}
	f.c.InstallWebhook(hook)
	f.shop.Put(shop.Order{ID: "o-2", Customer: "Bo", Status: "shipped", Total: 1, Items: 1})
	f.shop.Put(shop.Order{ID: "o-4", Customer: "Di", Status: "paid", Total: 1, Items: 1})
	if err := f.shop.Flush(); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range f.svc.take() {
		for _, it := range f.c.TransformWebhook(hook, d.params, d.body)["order"] {
			got[it["id"].(string)] = it["__syncAction"].(string)
		}
	}
	if got["o-2"] != "REMOVE" || got["o-4"] != "SET" {
		t.Errorf("transformed %v, want o-2 removed and o-4 set", got)
	}
	for _, it := range f.c.SyncAll(appkittest.Run{Type: "order", Filter: hook.Filter}) {
		if it["status"] != "paid" {
			t.Errorf("a filtered run holds %v", it)
		}
	}
}

func TestAccount(t *testing.T) {
	f := setup(t)
	if r := f.c.Validate("token"); r.Status != http.StatusOK {
		t.Errorf("validate = %d %s", r.Status, r.Body)
	}
	f.c.Account = map[string]any{"token": "wrong"}
	if r := f.c.Validate("token"); r.Status != http.StatusUnauthorized {
		t.Errorf("validate with a wrong token = %d %s", r.Status, r.Body)
	}
	if r := f.c.Do("POST", "/api/v1/synchronizer/webhooks", map[string]any{"types": []string{"order"}, "url": f.svc.URL, "webhook": nil}); r.Status != http.StatusUnauthorized {
		t.Errorf("install with a wrong token = %d %s", r.Status, r.Body)
	}
	if _, err := hooks.New(f.shop, hooks.Config{Key: []byte("short")}); err == nil {
		t.Error("a short key was accepted")
	}
}
