package apps

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/calllog"
)

// The service's client reads at most maxAnswerHeader bytes of an answer's
// header: an app that answers a larger one fails the call (it is not read
// into memory), one that fits is read, and the service goes on calling
// other apps.
func TestAnswerHeaderBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		header int
		ok     bool
	}{
		{"a report of the largest size read", calllog.MaxHeaderRead, true},
		{"200 KiB", 200 << 10, false},
		{"just beyond the bound", maxAnswerHeader, false},
	} {
		app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Padding", strings.Repeat("p", tc.header))
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(fakeDescriptor("token")))
		}))
		resp, err := guardedClient(DefaultNetworks).Get(app.URL)
		if err == nil {
			resp.Body.Close()
		}
		app.Close()
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want success %v", tc.name, err, tc.ok)
		}
	}
}

// Through the service: an app with a huge header is refused at
// registration, and the service registers the next app.
func TestHugeAnswerHeaderRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _ := testService(t, "sqlite::memory:", nil)
	huge := newFakeApp(t, "token", map[string]http.HandlerFunc{
		"GET /": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Padding", strings.Repeat("p", 200<<10))
			answer(200, fakeDescriptor("token"))(w, r)
		},
	})
	if _, err := svc.Registry.RegisterApp(ctx, huge.url); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("an app answering a 200 KiB header: %v, want ErrUnreachable", err)
	}
	if _, err := svc.Registry.RegisterApp(ctx, newFakeApp(t, "token", nil).url); err != nil {
		t.Fatalf("the next app: %v", err)
	}
}
