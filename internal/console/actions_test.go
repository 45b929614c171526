package console_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/examples/actions/notify"
)

// hook is an incoming-webhook target that keeps the bodies it gets.
func hook(t *testing.T) (string, <-chan map[string]any) {
	t.Helper()
	got := make(chan map[string]any, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		got <- m
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, got
}

// An action of the notify example run from its form: the arguments as
// sent, the app's {message} when it refuses, bad input refused at the
// field.
func TestRunAction(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	b := e.browser()
	tok := b.signIn()
	appPath := b.register(tok, notifyURL(t))
	page := b.get(appPath)
	if !strings.Contains(page.body, `href="`+appPath+`/actions/post-message"`) {
		t.Fatalf("no action link:\n%s", page.body)
	}
	if strings.Contains(page.body, "Set up a sync") {
		t.Error("an action app offers syncs")
	}
	if r := b.get(appPath + "/actions/nope"); r.code != http.StatusNotFound {
		t.Errorf("unknown action: %d", r.code)
	}
	// Without an account the form says so.
	r := b.post(appPath+"/actions/post-message", url.Values{"arg.text": {"hi"}, "csrf": {tok}})
	if r.code != http.StatusBadRequest || !strings.Contains(r.body, `id="account-error"`) {
		t.Errorf("no account: %d\n%s", r.code, r.body)
	}
	if r := b.post(appPath+"/accounts", url.Values{"auth": {"token"}, "f.token": {notify.DefaultToken}, "csrf": {tok}}); r.code != http.StatusOK {
		t.Fatalf("account: %d\n%s", r.code, r.body)
	}
	form := b.get(appPath + "/actions/post-message")
	acc := regexp.MustCompile(`<option value="([0-9a-f-]{36})"`).FindStringSubmatch(form.body)
	if acc == nil || !strings.Contains(form.body, `<textarea id="arg.text"`) || !strings.Contains(form.body, "Text templates") {
		t.Fatalf("action form:\n%s", form.body)
	}
	target, got := hook(t)
	r = b.post(appPath+"/actions/post-message", url.Values{"account": {acc[1]}, "arg.text": {"hello from the console"}, "arg.webhook_url": {target}, "csrf": {tok}})
	if r.code != http.StatusOK || !strings.Contains(r.body, "The app ran the action") || !strings.Contains(r.body, "hello from the console") {
		t.Fatalf("run: %d\n%s", r.code, r.body)
	}
	if m := <-got; m["text"] != "hello from the console" {
		t.Errorf("the target got %v", m)
	}
	// The app refuses a call without text: its message is shown.
	r = b.post(appPath+"/actions/post-message", url.Values{"account": {acc[1]}, "arg.webhook_url": {target}, "csrf": {tok}})
	if r.code < 400 || !strings.Contains(r.body, `role="alert">The app answered:`) {
		t.Errorf("refused: %d\n%s", r.code, r.body)
	}
	// An unknown database is refused at the field.
	r = b.post(appPath+"/actions/post-message", url.Values{"account": {acc[1]}, "arg.text": {"x"}, "entity_type": {"nope/nothing"}, "entity_id": {"1"}, "csrf": {tok}})
	if r.code != http.StatusBadRequest || !strings.Contains(r.body, `id="entity_type-error"`) {
		t.Errorf("unknown entity type: %d", r.code)
	}
	// Half an entity reference is refused at the field.
	r = b.post(appPath+"/actions/post-message", url.Values{"account": {acc[1]}, "arg.text": {"x"}, "entity_id": {"abc"}, "csrf": {tok}})
	if r.code != http.StatusBadRequest {
		t.Errorf("half an entity: %d", r.code)
	}
	if !strings.Contains(r.body, `id="entity_type-error"`) {
		t.Error("an id without a type is not refused at the type")
	}
	select {
	case m := <-got:
		t.Errorf("a refused form reached the target: %v", m)
	default:
	}
}
