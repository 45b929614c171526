package upstream

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/appkitgo/appkit/appkit"
)

// Sentinels matched with errors.Is on the errors of this package.
var (
	// ErrNotFound: the upstream answered 404 for the resource.
	ErrNotFound = errors.New("upstream: not found")
	// ErrUnauthorized: the upstream refused the account's credentials (401,
	// or 403 without rate-limit headers).
	ErrUnauthorized = errors.New("upstream: credentials refused")
	// ErrRateLimited: the upstream said to slow down (429, or 403 with
	// rate-limit headers).
	ErrRateLimited = errors.New("upstream: rate limited")
	// ErrUnavailable: 5xx answers, timeouts or network failures, after the
	// retries.
	ErrUnavailable = errors.New("upstream: unavailable")
	// ErrBadAnswer: an answer that cannot be used (not JSON, over the size
	// limit, an unparsable Link header, a cursor that repeats).
	ErrBadAnswer = errors.New("upstream: unusable answer")
	// ErrRedirect: a redirect to another origin, refused so that no
	// credential leaves the upstream's host.
	ErrRedirect = errors.New("upstream: redirect to another origin refused")
)

// StatusError is an upstream answer with an error status. Its message names
// the method, the host and path (never the query, which may hold a key)
// and the status; Body is the beginning of the answer, with the account's
// secrets masked.
type StatusError struct {
	// Method and Resource ("host/path") of the call.
	Method, Resource string
	// Status is the upstream's HTTP status.
	Status int
	// Body is up to 512 bytes of the answer, secrets masked.
	Body string
	// Wait is the wait the upstream asked for (rate limits), capped.
	Wait time.Duration
	kind error
}

// Error names the call and the status.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: the upstream answered %d %s", e.Method, e.Resource, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Is matches the sentinel of the status's class (ErrNotFound, ...).
func (e *StatusError) Is(target error) bool { return e.kind != nil && target == e.kind }

// CallError is a call that failed before an answer could be used: a
// network failure, a timeout, a refused redirect, an answer that is not
// JSON or is too large. Err is the cause, with secrets masked in Error.
type CallError struct {
	// Method and Resource ("host/path") of the call.
	Method, Resource string
	// Err is the cause.
	Err  error
	msg  string
	kind error
}

// Error names the call and the cause.
func (e *CallError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Method, e.Resource, e.msg)
}

// Unwrap returns the cause.
func (e *CallError) Unwrap() error { return e.Err }

// Is matches the sentinel of the failure's class.
func (e *CallError) Is(target error) bool { return e.kind != nil && target == e.kind }

// protocolError maps a failed call onto what the service gets:
//
//	401, 403 without rate-limit headers   appkit.InvalidAccount: 401
//	429, 403 with rate-limit headers      appkit.TryLaterAfter: 503 tryLater, Retry-After
//	5xx, timeout, network (after retries) appkit.TryLater: 503 tryLater
//	404, other answers, bad answers       the error itself: 500 naming the call
//
// The upstream error stays reachable with errors.As and errors.Is.
func protocolError(err error) error {
	var se *StatusError
	switch {
	case errors.Is(err, ErrUnauthorized):
		return &appkit.Error{Status: http.StatusUnauthorized, Message: err.Error() + "; check the account's credentials, or connect the account again", Err: err}
	case errors.Is(err, ErrRateLimited):
		wait := time.Duration(0)
		if errors.As(err, &se) {
			wait = se.Wait
		}
		return appkit.TryLaterAfter(err, wait)
	case errors.Is(err, ErrUnavailable):
		return appkit.TryLater(err)
	}
	return err
}
