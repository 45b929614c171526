package console_test

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/appkitgo/appkit/examples/actions/notify"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/query"
)

// axeSource is axe-core (npm axe-core 4.10.3, MPL-2.0, testdata/axe.LICENSE),
// committed so that the accessibility check runs offline and never skips.
//
//go:embed testdata/axe.min.js
var axeSource string

// chromiumPath finds a Chromium or Chrome binary (APPKIT_CHROMIUM
// overrides).
func chromiumPath() string {
	if p := os.Getenv("APPKIT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// axeViolation is what the test keeps of an axe-core violation.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// session drives one page of a headless Chromium through the console.
type session struct {
	t      *testing.T
	ctx    context.Context
	base   string
	shots  string
	n      int
	mu     sync.Mutex
	errors []string
}

// do runs steps with a generous per-step timeout (a bound for a loaded
// machine, never a wait of its own).
func (s *session) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
}

// load runs steps that load a page and waits until it has loaded.
func (s *session) load(what string, steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 90*time.Second)
	defer cancel()
	if _, err := chromedp.RunResponse(ctx, steps...); err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
}

func run[T any](s *session, what string, a chromedp.Action[T]) T {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 90*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// screen writes a screenshot of the page, checks it with axe-core (no
// serious or critical violation) and that no script error happened.
func (s *session) screen(name string) {
	s.t.Helper()
	s.n++
	png := run(s, "screenshot of "+name, chromedp.FullScreenshot(100))
	file := filepath.Join(s.shots, fmt.Sprintf("%02d-%s.png", s.n, name))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		s.t.Fatal(err)
	}
	run(s, "inject axe-core", chromedp.Evaluate[chromedp.Void](axeSource+";undefined"))
	violations := run(s, "axe.run on "+name, chromedp.Evaluate[[]axeViolation](
		`axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({id: v.id, impact: v.impact || '', help: v.help, nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))})))`,
		chromedp.EvalAwaitPromise))
	for _, v := range violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			s.t.Errorf("%s: accessibility (%s) %s: %s at %v", name, v.Impact, v.ID, v.Help, v.Nodes)
		} else {
			s.t.Logf("%s: accessibility (%s) %s: %s at %v", name, v.Impact, v.ID, v.Help, v.Nodes)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.errors {
		s.t.Errorf("%s: script error: %s", name, e)
	}
	s.errors = nil
}

func (s *session) text(sel string) string {
	s.t.Helper()
	return run(s, "text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}

// waitFor polls a JavaScript predicate in the page.
func (s *session) waitFor(what, predicate string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 90*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(80*time.Second))); err != nil {
		main, _ := chromedp.Run(s.ctx, chromedp.Evaluate[string](`document.querySelector('main') ? document.querySelector('main').innerText : document.body.innerText`))
		s.t.Fatalf("wait for %s: %v\nthe page shows:\n%s", what, err, main)
	}
}

// startChromium starts a headless Chromium (bin) for a test of the
// console at base, its screenshots written to shots; it is stopped when
// the test ends. Script errors are collected for screen.
func startChromium(t *testing.T, bin, base, shots string) *session {
	t.Helper()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.WindowSize(1280, 900), chromedp.Flag("disable-dev-shm-usage", true))...)
	t.Cleanup(cancelAlloc)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	s := &session{t: t, ctx: bctx, base: base, shots: shots}
	// The first call starts the browser: no timeout on its context.
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if err := chromedp.Listen(bctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				for _, a := range ev.Args {
					msg += " " + string(a.Value) + a.Description
				}
			}
		}
		if msg != "" {
			s.mu.Lock()
			s.errors = append(s.errors, msg)
			s.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// The console end to end in a real headless Chromium: sign in, a token,
// register the tracker, connect an account, pick types and a date filter
// (its bounds shown as typed), sync and watch the counts, the run's
// exchanges, a database paged and sorted, a relation followed, and an
// action of the notify example run against a synchronized task. Every
// screen is photographed (into $APPKIT_CONSOLE_SCREENSHOTS, else a
// temporary directory) and checked with axe-core.
func TestConsoleInChromium(t *testing.T) {
	bin := chromiumPath()
	if bin == "" {
		t.Skip("no chromium binary found (install Debian's chromium package, or set APPKIT_CHROMIUM): the console is not tested in a browser")
	}
	shots := os.Getenv("APPKIT_CONSOLE_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, "sqlite::memory:")
	trackerAt := trackerURL(t, 60)
	notifyAt := notifyURL(t)
	target, got := hook(t)

	s := startChromium(t, bin, e.srv.URL, shots)
	t.Logf("screenshots in %s", shots)

	// Sign in.
	s.do("open the console", chromedp.Navigate(e.srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("email")))
	s.screen("signin")
	s.do("sign in",
		chromedp.SendKeys(chromedp.ID("email"), adminEmail),
		chromedp.SendKeys(chromedp.ID("password"), adminPass),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("app-url")))
	s.screen("apps-empty")

	// A token, its value shown once.
	s.do("create a token",
		chromedp.Click(chromedp.CSS(`a[href="/tokens"]`)),
		chromedp.WaitVisible(chromedp.ID("token-name")),
		chromedp.SendKeys(chromedp.ID("token-name"), "e2e"),
		chromedp.Click(chromedp.CSS(`form[action="/tokens"] button`)),
		chromedp.WaitVisible(chromedp.ID("token-value")))
	if v := s.text("#token-value"); len(v) < 20 {
		t.Errorf("token value %q", v)
	}
	s.screen("tokens")

	// Register the tracker.
	s.do("register the tracker",
		chromedp.Click(chromedp.CSS(`header a[href="/apps"]`)),
		chromedp.WaitVisible(chromedp.ID("app-url")),
		chromedp.SendKeys(chromedp.ID("app-url"), trackerAt),
		chromedp.Click(chromedp.CSS(`form[action="/apps"] button`)),
		chromedp.WaitVisible(chromedp.ID("checks-h")))
	s.screen("app")

	// Connect an account.
	s.do("account form",
		chromedp.Click(chromedp.CSS(`a[href$="/accounts/new?auth=token"]`)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="f.token"]`)))
	if typ := run(s, "token input type", chromedp.Evaluate[string](`document.querySelector('input[name="f.token"]').type`)); typ != "password" {
		t.Errorf("the token field is a %q input", typ)
	}
	s.screen("account")
	s.do("connect",
		chromedp.SendKeys(chromedp.CSS(`input[name="f.token"]`), tracker.DemoToken),
		chromedp.Click(chromedp.CSS(`form[action$="/accounts"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`a[href*="/syncs/new?account="]`)))

	// Types and a date filter; the bounds show as it is typed.
	s.do("sync form",
		chromedp.Click(chromedp.CSS(`a[href*="/syncs/new?account="]`)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="filter.due"]`)))
	s.do("pick statuses from the app's datalist",
		chromedp.Click(chromedp.CSS(`input[name="filter.status"][value="todo"]`)),
		chromedp.Click(chromedp.CSS(`input[name="filter.status"][value="doing"]`)))
	s.do("type a date statement", chromedp.SendKeys(chromedp.CSS(`input[name="filter.due"]`), "between 1 January 2025 and 31 December 2026"))
	s.waitFor("the parsed bounds", `(document.querySelector('#due-range code.min')||{}).textContent === '2025-01-01T00:00:00Z' && document.querySelector('#due-range code.max').textContent.startsWith('2026-12-31T23:59:59')`)
	s.screen("sync-form")
	s.do("set up the sync",
		chromedp.Click(chromedp.CSS(`form[action$="/syncs"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("runs")))
	// Watch the counts: the runs table refreshes itself until the run ends.
	s.waitFor("the first run's counts", `!!document.querySelector('#runs[data-live="false"] .status.succeeded') && document.querySelectorAll('#runs .counts li').length === 2`)
	s.load("sync now", chromedp.Click(chromedp.CSS(`form[action$="/run"] button`)))
	s.waitFor("the second run", `document.querySelectorAll('#runs .status.succeeded').length === 2 && document.querySelector('#runs').dataset.live === 'false'`)
	if c := s.text(`#runs tbody tr:last-child .counts`); !strings.Contains(c, "task") || !strings.Contains(c, "project") {
		t.Errorf("counts %q", c)
	}
	s.screen("sync")

	// The first run's exchanges.
	s.do("open the first run",
		chromedp.Click(chromedp.CSS(`#runs tbody tr:last-child a[href^="/runs/"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.exchange`)))
	if n := s.text(".bad-count"); n != "0" {
		t.Errorf("the tracker's items have %s findings", n)
	}
	if body := s.text("main"); !strings.Contains(body, "items checked") || !strings.Contains(body, "/api/v1/synchronizer/data") {
		t.Errorf("the run page:\n%.2000s", body)
	}
	s.screen("run")

	// A test read of one page, nothing stored.
	s.do("back to the sync", chromedp.NavigateBack(), chromedp.WaitVisible(chromedp.ID("runs")))
	s.load("the app's page", chromedp.Click(chromedp.CSS(`main a[href^="/apps/"]`)))
	s.load("the test read form", chromedp.Click(chromedp.CSS(`a[href$="/testread"]`)))
	s.do("test read",
		chromedp.WaitVisible(chromedp.ID("type")),
		chromedp.SetValue(chromedp.ID("type"), "project"))
	s.load("read one page", chromedp.Click(chromedp.CSS(`form[action$="/testread"] button[type=submit]`)))
	s.do("the page read", chromedp.WaitVisible(chromedp.ID("result-h")))
	if n := s.text(".bad-count"); n != "0" {
		t.Errorf("the test read's items have %s findings", n)
	}
	s.screen("test-read")

	// A database: paged, sorted, a relation followed.
	s.do("open the tasks",
		chromedp.Click(chromedp.CSS(`header a[href="/data"]`)),
		chromedp.WaitVisible(chromedp.CSS(`a[href="/data/tracker/task"]`)),
		chromedp.Click(chromedp.CSS(`a[href="/data/tracker/task"]`)),
		chromedp.WaitVisible(chromedp.CSS(`table.data`)))
	s.screen("table")
	s.do("next page", chromedp.Click(chromedp.CSS(`a[rel="next"]`)), chromedp.WaitVisible(chromedp.CSS(`a[rel="prev"]`)))
	if strings.Contains(s.text("table.data tbody"), "done") {
		t.Error("a done task was synchronized despite the status filter")
	}
	if c := s.text("table.data caption"); !strings.Contains(c, "page 2") {
		t.Errorf("caption %q", c)
	}
	s.do("sort by priority", chromedp.Click(chromedp.CSS(`th a.sort[href*="sort=tracker.task%2Fpriority"]`)), chromedp.WaitVisible(chromedp.CSS(`th[aria-sort="ascending"]`)))
	s.do("sort descending", chromedp.Click(chromedp.CSS(`th[aria-sort] a.sort`)), chromedp.WaitVisible(chromedp.CSS(`th[aria-sort="descending"]`)))
	first := s.text(`table.data tbody tr:first-child`)
	s.screen("table-sorted")
	s.do("follow a project", chromedp.Click(chromedp.CSS(`table.data tbody tr:first-child a[href^="/data/tracker/project"]`)),
		chromedp.WaitVisible(chromedp.CSS(`a[href^="/data/tracker/task?field=tracker.task%2Fproject"]`)))
	if n := run(s, "rows", chromedp.Evaluate[int](`document.querySelectorAll('table.data tbody tr').length`)); n != 1 {
		t.Errorf("the followed project shows %d rows", n)
	}
	s.screen("relation")
	_ = first

	// An action of the notify example, with a text template rendered
	// against a synchronized task.
	rows, err := query.Exec(context.Background(), e.st, &query.Query{From: "tracker/task", Limit: 1, Select: []query.Select{
		{Kind: query.SelectField, Key: "id", Field: "platform/id"}, {Kind: query.SelectField, Key: "name", Field: "tracker.task/name"}}}, nil)
	if err != nil || len(rows) != 1 {
		t.Fatalf("a task: %v %v", rows, err)
	}
	s.do("register notify",
		chromedp.Click(chromedp.CSS(`header a[href="/apps"]`)),
		chromedp.WaitVisible(chromedp.ID("app-url")),
		chromedp.SendKeys(chromedp.ID("app-url"), notifyAt),
		chromedp.Click(chromedp.CSS(`form[action="/apps"] button`)),
		chromedp.WaitVisible(chromedp.ID("actions-h")),
		chromedp.Click(chromedp.CSS(`a[href$="/accounts/new?auth=token"]`)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="f.token"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="f.token"]`), notify.DefaultToken),
		chromedp.Click(chromedp.CSS(`form[action$="/accounts"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)),
		chromedp.Click(chromedp.CSS(`a[href$="/actions/post-message"]`)),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name="arg.text"]`)))
	s.screen("action-form")
	s.do("run the action",
		chromedp.SendKeys(chromedp.CSS(`textarea[name="arg.text"]`), "Task: {{name}}"),
		chromedp.SendKeys(chromedp.CSS(`input[name="arg.webhook_url"]`), target),
		chromedp.SetValue(chromedp.ID("entity_type"), "tracker/task"),
		chromedp.SendKeys(chromedp.ID("entity_id"), rows[0]["id"].(string)),
		chromedp.Click(chromedp.CSS(`form[action$="/actions/post-message"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("result-h")))
	want := "Task: " + rows[0]["name"].(string)
	if m := <-got; m["text"] != want {
		t.Errorf("the webhook got %v, want text %q", m, want)
	}
	if r := s.text(".result"); !strings.Contains(r, want) {
		t.Errorf("the result shows %q", r)
	}
	s.screen("action-result")

	// The back button works: each screen is its own address.
	s.do("back", chromedp.NavigateBack(), chromedp.WaitVisible(chromedp.CSS(`textarea[name="arg.text"]`)))
}
