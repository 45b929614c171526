package console_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
)

// Signing in from a link whose return address hides a tab
// (/?next=/%09/HOST/x) leaves the browser on the console: Chromium drops
// the tab before resolving an address, so a check that does not would
// send the user who has just typed a password to HOST.
func TestSignInReturnAddressInChromium(t *testing.T) {
	bin := chromiumPath()
	if bin == "" {
		t.Skip("no chromium binary found (install Debian's chromium package, or set APPKIT_CHROMIUM): the return address is not tested in a browser")
	}
	var visits atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		visits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>elsewhere</title><p id="evil">another site</p>`))
	}))
	t.Cleanup(evil.Close)
	evilHost := strings.TrimPrefix(evil.URL, "http://")

	e := newEnv(t, "sqlite::memory:")
	s := startChromium(t, bin, e.srv.URL, t.TempDir())
	for _, next := range []string{"/\t/" + evilHost + "/x", "/\\" + evilHost + "/x", "\t//" + evilHost + "/x"} {
		s.do("open the sign-in link "+url.QueryEscape(next),
			chromedp.Navigate(e.srv.URL+"/?next="+url.QueryEscape(next)), chromedp.WaitVisible(chromedp.ID("email")))
		s.do("sign in",
			chromedp.SendKeys(chromedp.ID("email"), adminEmail),
			chromedp.SendKeys(chromedp.ID("password"), adminPass),
			chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`#app-url, #evil`)))
		at := run(s, "the address", chromedp.Evaluate[string](`location.href`))
		if !strings.HasPrefix(at, e.srv.URL+"/") || visits.Load() != 0 {
			t.Fatalf("next=%q: signing in led to %s (%d visits to the other site)", next, at, visits.Load())
		}
		s.do("sign out", chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)), chromedp.WaitVisible(chromedp.ID("email")))
	}
}
