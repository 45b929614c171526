package host_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

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
// the page's address, and shows the result.
func TestGraphiQLInChromium(t *testing.T) {
	t.Parallel()
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium binary found (install Debian's chromium package, or set APPKIT_CHROMIUM): the GraphiQL page is not tested in a browser")
	}
	e := newGQLEnv(t, "sqlite::memory:", host.Config{})
	frag := url.Values{"token": {gqlToken}, "run": {"1"}, "query": {`{ findProducts(orderBy: {name: DESC}) { name price } }`}}
	page := e.srv.URL + "/api/graphql/space/shop#" + frag.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--user-data-dir="+dir,
		"--virtual-time-budget=20000", "--dump-dom", page)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	dom := string(out)
	if os.Getenv("APPKIT_DUMP_DOM") != "" {
		os.WriteFile(os.Getenv("APPKIT_DUMP_DOM"), out, 0o644)
	}
	if !strings.Contains(dom, "graphiql-container") {
		t.Fatalf("the GraphiQL interface did not render:\n%.2000s", dom)
	}
	// The text of the page, as a reader sees it.
	text := strings.Join(strings.Fields(strings.ReplaceAll(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(dom, ""), "&nbsp;", " ")), " ")
	// The result pane shows the answer: the products in the order asked.
	plum, pear, apple := strings.Index(dom, "plum"), strings.Index(dom, "pear"), strings.Index(dom, "apple")
	if !strings.Contains(dom, "findProducts") || plum < 0 || pear < 0 || apple < 0 || strings.LastIndex(dom, "plum") > strings.LastIndex(dom, "apple") ||
		!strings.Contains(text, `"name": "plum", "price": 3 }`) {
		t.Fatalf("the result of the query is not shown:\n%s", dom)
	}
}
