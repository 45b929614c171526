package apps

import (
	"context"
	"errors"
	"net/http"
)

// HTTPStatus is how the host answers err, an error of the service met
// while serving a request whose context is ctx: the HTTP status, and the
// message for the client. The host's API (internal/host) and the web
// console (internal/console) both answer with it:
//
//   - ErrNotFound: 404; ErrInvalid: 400; ErrConflict: 409, with err's
//     message;
//   - ErrUnreachable (no app answered a registration): 502;
//   - an [AppError] (a call to the app failed): 400 when the app refused
//     the request with a 4xx of its own (but 429); 503 when it asked to be
//     called again later (tryLater, 429 or 503); 502 when it gave no
//     answer (unreachable, outside the networks the host may call, no
//     answer in time) or a failed one (another 5xx, a malformed or too
//     large answer); the message is "the app answered: " and the failure;
//   - the request's context ended: 503, "the request was cancelled or
//     timed out";
//   - another failed call to the app (a Retryable error): 502;
//   - anything else is internal: 500, "internal error" (the caller logs
//     err, whose message may say more than a client should read).
func HTTPStatus(ctx context.Context, err error) (status int, message string) {
	var ae *AppError
	var retry interface{ Retryable() bool }
	switch {
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound, err.Error()
	case errors.Is(err, ErrInvalid):
		return http.StatusBadRequest, err.Error()
	case errors.Is(err, ErrConflict):
		return http.StatusConflict, err.Error()
	case errors.Is(err, ErrUnreachable):
		return http.StatusBadGateway, err.Error()
	case errors.As(err, &ae):
		return ae.httpStatus(), "the app answered: " + ae.Error()
	case ctx.Err() != nil:
		return http.StatusServiceUnavailable, "the request was cancelled or timed out"
	case errors.As(err, &retry):
		return http.StatusBadGateway, err.Error()
	}
	return http.StatusInternalServerError, "internal error"
}

// httpStatus is the status that answers a failed call to the app (see
// [HTTPStatus]).
func (e *AppError) httpStatus() int {
	switch {
	case e.TryLater || e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable:
		return http.StatusServiceUnavailable
	case e.Status >= 400 && e.Status < 500:
		return http.StatusBadRequest
	}
	return http.StatusBadGateway
}
