package apps

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// retryable is a failed call to the app outside AppError.
type retryable struct{}

func (retryable) Error() string   { return "the app's answer broke off" }
func (retryable) Retryable() bool { return true }

// One mapping from the service's errors to the host's answers, for the
// API and the console alike.
func TestHTTPStatus(t *testing.T) {
	t.Parallel()
	live := context.Background()
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want int
	}{
		{"not found", live, fmt.Errorf("%w: no app x", ErrNotFound), 404},
		{"invalid", live, fmt.Errorf("%w: bad", ErrInvalid), 400},
		{"conflict", live, fmt.Errorf("%w: in use", ErrConflict), 409},
		{"no app at a registration", live, errNoApp, 502},
		{"the app refused (400)", live, &AppError{Path: "/x", Status: 400, Message: "bad argument"}, 400},
		{"the app refused (401)", live, &AppError{Path: "/x", Status: 401, Message: "expired"}, 400},
		{"the app refused (404)", live, &AppError{Path: "/x", Status: 404, Message: "no such thing"}, 400},
		{"try later (flag)", live, &AppError{Path: "/x", Status: 500, Message: "busy", TryLater: true}, 503},
		{"try later (429)", live, &AppError{Path: "/x", Status: 429, Message: "slow down"}, 503},
		{"try later (503)", live, &AppError{Path: "/x", Status: 503, Message: "down"}, 503},
		{"the app failed (500)", live, &AppError{Path: "/x", Status: 500, Message: "boom"}, 502},
		{"a malformed answer", live, &AppError{Path: "/x", Status: 200, Message: "malformed JSON answer"}, 502},
		{"no answer (down, outside the networks, slow)", live, &AppError{Path: "/x", Message: "connection refused"}, 502},
		{"an app error wrapped", live, fmt.Errorf("run: %w", &AppError{Path: "/x", Message: "connection refused"}), 502},
		{"the request ended", gone, errors.New("context canceled"), 503},
		{"another failed call", live, retryable{}, 502},
		{"internal", live, errors.New("disk full"), 500},
	} {
		status, msg := HTTPStatus(tc.ctx, tc.err)
		if status != tc.want || msg == "" || status == 500 && msg != "internal error" {
			t.Errorf("%s: %d %q, want %d", tc.name, status, msg, tc.want)
		}
	}
}
