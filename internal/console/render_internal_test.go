package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/store"
)

// serve shows a handler's error: a *pageError with its status and words,
// any other error with the status and message of apps.HTTPStatus, and one
// that maps to 500 as the internal error page, its cause logged (OnError)
// and never shown.
func TestServe(t *testing.T) {
	t.Parallel()
	internal := fmt.Errorf("console: read the session: %w", errors.New("cause-db-password-x"))
	for _, tc := range []struct {
		name string
		err  error
		// cancel cancels the request's context before the handler.
		cancel bool
		status int
		// want is in the body; logged is whether OnError got the error.
		want   string
		logged bool
	}{
		{"nil: the handler answered", nil, false, http.StatusAccepted, "", false},
		{"an internal error", internal, false, http.StatusInternalServerError, "Internal error", true},
		{"a page error", &pageError{Status: http.StatusConflict, Title: "Busy", Message: "Try <later>."}, false, http.StatusConflict, "Try &lt;later&gt;.", false},
		{"a page error wrapped", fmt.Errorf("console: %w", &pageError{Status: http.StatusNotFound, Title: "No such database", Message: "None."}), false, http.StatusNotFound, "None.", false},
		{"not found", fmt.Errorf("%w: no app %q", apps.ErrNotFound, "a1"), false, http.StatusNotFound, "Not found: no app &#34;a1&#34;", false},
		{"not found wrapped", fmt.Errorf("console: sync: %w", fmt.Errorf("%w: no sync %q", apps.ErrNotFound, "s1")), false, http.StatusNotFound, "no sync &#34;s1&#34;", false},
		{"invalid", fmt.Errorf("%w: bad schedule", apps.ErrInvalid), false, http.StatusBadRequest, "Invalid", false},
		{"an app's refusal", &apps.AppError{Status: http.StatusUnauthorized, Message: "bad token"}, false, http.StatusBadRequest, "The app answered", false},
		{"the request gone", internal, true, http.StatusServiceUnavailable, "cancelled or timed out", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logged []error
			c, err := New(Config{Auth: &auth.Service{}, Store: &store.Store{}, SessionCookie: "s",
				OnError: func(_ *http.Request, err error) { logged = append(logged, err) }})
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest(http.MethodGet, "/x", nil)
			if tc.cancel {
				ctx, cancel := context.WithCancel(r.Context())
				cancel()
				r = r.WithContext(ctx)
			}
			w := httptest.NewRecorder()
			c.serve(func(w http.ResponseWriter, _ *http.Request) error {
				if tc.err == nil {
					w.WriteHeader(http.StatusAccepted)
				}
				return tc.err
			})(w, r)
			body := w.Body.String()
			if w.Code != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("%d, want %d with %q\n%s", w.Code, tc.status, tc.want, body)
			}
			if strings.Contains(body, "cause-db-password-x") || strings.Contains(body, "read the session") {
				t.Errorf("the page shows the cause of an internal error:\n%s", body)
			}
			if tc.logged != (len(logged) == 1) || tc.logged && !errors.Is(logged[0], tc.err) {
				t.Errorf("logged %v, want %v", logged, tc.logged)
			}
			if tc.err != nil && w.Header().Get("Content-Security-Policy") == "" {
				t.Error("the error page has no Content-Security-Policy")
			}
		})
	}
}
