package conformance_test

import (
	"net/http"
	"regexp"
	"sync"
	"testing"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/conformance/internal/minimalapp"
)

// Every request of the suite says it is a probe (X-Appkit-Probe), with the
// stage of checks that sends it, so that an app's log can tell the
// refusals it provokes from real failures.
func TestEveryRequestIsMarkedAsAProbe(t *testing.T) {
	t.Parallel()
	valid := regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	var mu sync.Mutex
	seen := map[string]int{}
	unmarked := 0
	app := minimalapp.New()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get("X-Appkit-Probe")
		mu.Lock()
		if valid.MatchString(v) {
			seen[v]++
		} else {
			unmarked++
		}
		mu.Unlock()
		app.ServeHTTP(w, r)
	})
	conformance.Test(t, conformance.Config{Handler: h, Account: map[string]any{"token": minimalapp.Token}})
	mu.Lock()
	defer mu.Unlock()
	if unmarked > 0 {
		t.Errorf("%d requests without a valid X-Appkit-Probe", unmarked)
	}
	for _, stage := range []string{"descriptor", "accounts", "sync", "errors"} {
		if seen[stage] == 0 {
			t.Errorf("no request marked %q: %v", stage, seen)
		}
	}
}
