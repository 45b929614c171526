package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/store"
)

// upstreamExchanges are a run's exchanges: the first with the calls the
// app made to its upstream API (one with bodies, one that failed) and 3
// more it did not keep, the second with none.
func upstreamExchanges() []apps.Exchange {
	return []apps.Exchange{
		{Method: "POST", Path: "/api/v1/synchronizer/data", Status: 200, DurationMS: 40,
			Request: `{"requestedType":"task"}`, Response: `{"items":[]}`,
			UpstreamReport: apps.UpstreamReport{RequestID: "req-7f3a<x>", Upstream: []apps.UpstreamCall{
				{Method: "GET", URL: "https://api.example.com/tasks?page=2&token=***", Status: 200, DurationMS: 12, Bytes: 1536,
					Request: `{"q":"open"}`, Response: `{"tasks":[1,2]}`},
				{Method: "GET", URL: "https://api.example.com/users/<me>", DurationMS: 3000, Error: "dial tcp: i/o timeout <b>"},
			},
				UpstreamDropped: 3}},
		{Method: "POST", Path: "/api/v1/synchronizer/schema", Status: 200, DurationMS: 5, Request: `{}`, Response: `{}`},
	}
}

// renderPage renders a screen with its view as the console does.
func renderPage[V any](t *testing.T, s screen[V], l layout, v V) string {
	t.Helper()
	c, err := New(Config{Auth: &auth.Service{}, Store: &store.Store{}, SessionCookie: "s"})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	if err := s.show(c, w, httptest.NewRequest("GET", "/", nil), http.StatusOK, l, v); err != nil {
		t.Fatal(err)
	}
	return w.Body.String()
}

func TestExchangesShowUpstreamCalls(t *testing.T) {
	t.Parallel()
	exs := checkExchanges(upstreamExchanges())
	run := &apps.Run{ID: "r", Seq: 1, Status: apps.StatusSucceeded}
	app := &apps.App{ID: "a", Name: "Fake"}
	acc := &apps.Account{ID: "acc", Name: "Me"}
	pages := map[string]string{
		"run": renderPage(t, runScreen, layout{Title: "Run"}, &runView{Run: run, Sync: &apps.Sync{ID: "s"}, App: app, Exchanges: exs}),
		"testread": renderPage(t, testReadScreen, layout{Title: "Test read", Form: url.Values{}}, &testReadView{AccountSetting: &apps.AccountSetting{App: app, Account: acc,
			Config: &protocol.ConfigResponse{}}, Type: "task", Exchanges: exs}),
	}
	for name, body := range pages {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, want := range []string{
				`<p class="request-id muted"><small>request id <code>req-7f3a&lt;x&gt;</code></small></p>`,
				`<tr class="upstream-call"><td>GET</td><td class="url"><code>https://api.example.com/tasks?page=2&amp;token=***</code></td><td>200</td><td>12ms</td><td>1.5 KiB</td><td></td></tr>`,
				`<tr class="upstream-call"><td>GET</td><td class="url"><code>https://api.example.com/users/&lt;me&gt;</code></td><td>no answer</td><td>3s</td><td>—</td><td><span class="error-text">dial tcp: i/o timeout &lt;b&gt;</span></td></tr>`,
				"<details><summary>Bodies of GET https://api.example.com/tasks?page=2&amp;token=***</summary>",
				"<p>Request</p><pre><code>{\n  &#34;q&#34;: &#34;open&#34;\n}</code></pre>",
				"<p>Answer</p><pre><code>{\n  &#34;tasks&#34;: [\n    1,\n    2\n  ]\n}</code></pre>",
				`<p class="muted upstream-dropped">3 more calls not kept</p>`,
			} {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %s", want)
				}
			}
			if n := strings.Count(body, `<tr class="upstream-call">`); n != 2 {
				t.Errorf("%d upstream rows, want 2", n)
			}
			if n := strings.Count(body, `<table class="upstream">`); n != 1 {
				t.Errorf("%d upstream tables, want 1 (the exchange without calls has none)", n)
			}
			if n := strings.Count(body, `<tr class="upstream-bodies">`); n != 1 {
				t.Errorf("%d rows of bodies, want 1 (a call without bodies has none)", n)
			}
			if strings.Contains(body, "<details open><summary>Bodies") {
				t.Error("the upstream bodies are not collapsed")
			}
			if strings.Contains(body, "<me>") || strings.Contains(body, "timeout <b>") {
				t.Error("a value the app reported is not escaped")
			}
		})
	}
}

func TestExchangesWithoutUpstream(t *testing.T) {
	t.Parallel()
	exs := checkExchanges([]apps.Exchange{{Method: "POST", Path: "/api/v1/synchronizer/schema", Status: 200, UpstreamReport: apps.UpstreamReport{UpstreamDropped: 1}}})
	body := renderPage(t, runScreen, layout{Title: "Run"}, &runView{Run: &apps.Run{ID: "r"}, Sync: &apps.Sync{ID: "s"}, App: &apps.App{}, Exchanges: exs})
	if strings.Contains(body, `class="upstream"`) || strings.Contains(body, "request id") {
		t.Error("an exchange without upstream calls or request id shows them")
	}
	if !strings.Contains(body, `<p class="muted upstream-dropped">1 more call not kept</p>`) {
		t.Error("the calls not kept are not counted")
	}
}

func TestByteSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "—", -1: "—", 1: "1 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// The action screen shows, after a run, the calls the app made to its
// upstream API while running the action.
func TestActionShowsUpstreamCalls(t *testing.T) {
	t.Parallel()
	ex := upstreamExchanges()[0]
	res := &apps.ActionResult{Action: "post", Args: map[string]string{},
		UpstreamReport: ex.UpstreamReport}
	view := &actionView{App: &apps.App{ID: "a"}, Action: &protocol.Action{Action: "post", Name: "Post"}, Result: res, Calls: actionCalls(res)}
	body := renderPage(t, actionScreen, layout{Title: "Post", Form: url.Values{}}, view)
	for _, want := range []string{
		`<p class="request-id muted"><small>request id <code>req-7f3a&lt;x&gt;</code></small></p>`,
		`<td class="url"><code>https://api.example.com/tasks?page=2&amp;token=***</code></td>`,
		`<p class="muted upstream-dropped">3 more calls not kept</p>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the action page lacks %s", want)
		}
	}
}
