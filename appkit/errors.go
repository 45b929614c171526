package appkit

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Error is a failure with the HTTP status and message that the service gets.
// Handlers may return one directly, wrap one, or use the helpers
// [BadRequest], [InvalidAccount], [TryLater] and [NewError]. Any other error
// returned by a handler answers 500 with the error's text as message, so write
// errors that make sense to the user who reads them in the workspace.
type Error struct {
	// Status is the HTTP status of the answer.
	Status int
	// Message is sent as the body's message.
	Message string
	// TryLater marks a failure that may succeed later: the service retries
	// the same request (for data: the same page) later.
	TryLater bool
	// RetryAfter, when positive, is sent as the Retry-After header.
	RetryAfter time.Duration
	// Err is the underlying cause, kept for errors.Is/As and logs.
	Err error
}

// Error returns the message.
func (e *Error) Error() string {
	if e.Message == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// NewError returns an error answered with the given status and message.
func NewError(status int, format string, args ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// BadRequest returns a 400 error, for input the app cannot work with.
func BadRequest(format string, args ...any) *Error {
	return NewError(http.StatusBadRequest, format, args...)
}

// InvalidAccount returns a 401 error: the account's credentials are refused.
func InvalidAccount(format string, args ...any) *Error {
	return NewError(http.StatusUnauthorized, format, args...)
}

// TryLater marks err as temporary: the answer is 503 with
// {"message": err.Error(), "tryLater": true}, and the service retries the same
// request later. Use it for an upstream rate limit or outage.
//
// 503 Service Unavailable was chosen over 429: the app itself is not being
// called too often; what it depends on is unavailable for now.
func TryLater(err error) error {
	return TryLaterAfter(err, 0)
}

// TryLaterAfter is [TryLater] with a Retry-After hint.
func TryLaterAfter(err error, after time.Duration) error {
	if err == nil {
		err = errors.New("temporarily unavailable")
	}
	return &Error{Status: http.StatusServiceUnavailable, Message: err.Error(), TryLater: true, RetryAfter: after, Err: err}
}

// errNotDeclared answers routes of features the app does not declare.
var errNotDeclared = &Error{Status: http.StatusNotFound, Message: "not found: this app does not serve this endpoint"}
