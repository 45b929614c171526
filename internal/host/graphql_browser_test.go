package host_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/appkitgo/appkit/internal/host"
)

// chromium finds a Chromium or Chrome binary (APPKIT_CHROMIUM overrides).
func chromium() string {
	if p := os.Getenv("APPKIT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// The IDE page in a real headless Chromium: it loads from the binary's
// embedded files only, runs a query against the host with the token from
// the page's address, and shows the result. The test waits for the result
// pane to show an answer (polled in the page, bounded by a generous
// timeout for a loaded machine), not for a budget of time to pass.
func TestGraphiQLInChromium(t *testing.T) {
	t.Parallel()
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium binary found (install Debian's chromium package, or set APPKIT_CHROMIUM): the GraphiQL page is not tested in a browser")
	}
	e := newGQLEnv(t, "sqlite::memory:", host.Config{})
	frag := url.Values{"token": {gqlToken}, "run": {"1"}, "query": {`{ findProducts(orderBy: {name: DESC}) { name price } }`}}
	page := e.srv.URL + "/api/graphql/space/shop#" + frag.Encode()

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true))...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	// The first call starts the browser: no timeout on its context.
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitReady(chromedp.CSS(".graphiql-container"))); err != nil {
		t.Fatalf("the GraphiQL interface did not render: %v", err)
	}
	const resultPane = `document.querySelector('.result-window')`
	poll := chromedp.Poll[chromedp.Void](resultPane+` && `+resultPane+`.innerText.includes('"name"')`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(80*time.Second))
	if _, err := chromedp.Run(ctx, poll); err != nil {
		shown, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("the result of the query is not shown: %v\nthe page shows:\n%s", err, shown)
	}
	result, err := chromedp.Run(ctx, chromedp.Evaluate[string](resultPane+`.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	// The result pane shows the answer: the products in the order asked.
	text := strings.Join(strings.Fields(strings.ReplaceAll(result, "\u200b", "")), " ")
	plum, pear, apple := strings.Index(text, `"plum"`), strings.Index(text, `"pear"`), strings.Index(text, `"apple"`)
	if plum < 0 || pear < 0 || apple < 0 || !(plum < pear && pear < apple) || !strings.Contains(text, `"name": "plum", "price": 3 }`) {
		t.Fatalf("the result pane does not show the products by name, descending:\n%s", text)
	}
}
