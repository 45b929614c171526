package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/appkitgo/appkit/internal/secretmask"
)

// Sentinel errors, matched with errors.Is. Their messages are safe to show
// to the service's user.
var (
	// ErrNoAccessToken: the account carries no access token.
	ErrNoAccessToken = errors.New("the account has no access token; connect the account again")
	// ErrNoAccessSecret: an OAuth 1 account carries no access secret.
	ErrNoAccessSecret = errors.New("the account has no access secret; connect the account again")
	// ErrTokenExpired: the access token expired and cannot be refreshed.
	ErrTokenExpired = errors.New("the access token expired and the account has no refresh token; connect the account again")
	// ErrMissingCode: the access_token step got no authorization code.
	ErrMissingCode = errors.New("the authorization code is missing")
	// ErrMissingVerifier: the OAuth 1 access_token step got no oauth_verifier
	// or no request token.
	ErrMissingVerifier = errors.New("the request token or the oauth_verifier is missing")
	// ErrMissingState: the OAuth 2 authorize step got no state.
	ErrMissingState = errors.New("the state is missing (the service must send one; it is carried in the redirect_uri)")
	// ErrBadCallback: the callback_uri is not an absolute http(s) URL.
	ErrBadCallback = errors.New("callback_uri must be an absolute http or https URL")
	// ErrProviderUnreachable matches (errors.Is) a [ProviderError] for a
	// provider that could not be reached or did not answer in time.
	ErrProviderUnreachable = errors.New("the provider is unreachable")
)

// ProviderError is what a failing provider said, or why it could not be
// asked. It never holds a client secret, a token, a code or a verifier: the
// description is taken from the provider's answer, cut to a short line and
// scrubbed of every secret of the call. Callers answer it as 401
// {message: err.Error()}; [ProviderError.Temporary] tells whether a retry
// later may succeed (unreachable provider, 429, 5xx).
type ProviderError struct {
	// Op is the step: "token exchange", "token refresh", "request token",
	// "access token", "account lookup".
	Op string
	// Version is "oauth" (v1) or "oauth2".
	Version string
	// Status is the provider's HTTP status; 0 when there was no answer.
	Status int
	// Code is the provider's error code (RFC 6749 "error", RFC 5849 problem
	// reporting "oauth_problem"), when it sent one.
	Code string
	// Description is the provider's explanation, scrubbed and shortened.
	Description string
	// Unreachable is set when the provider could not be reached or did not
	// answer within the timeout.
	Unreachable bool
	// TimedOut is set when the call ran out of time.
	TimedOut bool

	err error
}

// Error returns one line: the step, then what the provider said.
func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString(e.Version)
	b.WriteByte(' ')
	b.WriteString(e.Op)
	b.WriteString(": ")
	switch {
	case e.TimedOut:
		b.WriteString("the provider did not answer in time")
	case e.Unreachable:
		b.WriteString("the provider is unreachable")
	default:
		b.WriteString("the provider refused")
	}
	if e.Code != "" {
		b.WriteString(": ")
		b.WriteString(e.Code)
	}
	if e.Description != "" {
		b.WriteString(": ")
		b.WriteString(e.Description)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	return b.String()
}

// Unwrap returns the cause (a network or context error, already scrubbed
// from the message).
func (e *ProviderError) Unwrap() error { return e.err }

// Is matches [ErrProviderUnreachable] for an unreachable or silent provider.
func (e *ProviderError) Is(target error) bool {
	return target == ErrProviderUnreachable && (e.Unreachable || e.TimedOut)
}

// Temporary reports whether the same call may succeed later: the provider
// was unreachable, timed out, throttled (429) or failed (5xx).
func (e *ProviderError) Temporary() bool {
	return e.Unreachable || e.TimedOut || e.Status == 429 || e.Status >= 500
}

// IsTemporary reports whether err says nothing about the account but only
// that the provider or the network could not answer now, so that the same
// call may succeed later: a [ProviderError] whose Temporary is true
// (unreachable, timed out, 429, 5xx), [ErrProviderUnreachable], a context
// deadline, and a network failure (a net.Error, say a timeout or a refused
// connection) in a failing Account callback. A cancelled context is not
// temporary (the caller gave up). appkit answers a temporary /validate
// failure with tryLater instead of marking the account invalid.
func IsTemporary(err error) bool {
	if err == nil {
		return false
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.Temporary()
	}
	if errors.Is(err, ErrProviderUnreachable) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// maxDescription bounds the provider's text kept in an error.
const maxDescription = 300

// scrub makes a provider's text safe for an error message: every secret of
// the call is replaced (in every spelling: internal/secretmask), control characters become spaces, runs of spaces
// collapse, and the text is cut to maxDescription runes (the spaces between
// words count) followed by "…": at most maxDescription+1 runes in all.
func scrub(s string, secrets []string) string {
	if s == "" { // most providers' errors have no code or no description
		return ""
	}
	s = secretmask.NewWith(secretmask.Options{Mask: "[redacted]"}, secrets...).Mask(s)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "?")
	}
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			space = true
			continue
		}
		sep := space && b.Len() > 0
		need := 1
		if sep {
			need = 2 // the rune and the space before it must both fit
		}
		if n+need > maxDescription {
			b.WriteString("…")
			break
		}
		if sep {
			b.WriteByte(' ')
			n++
		}
		space = false
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// transportError turns a failure to get an answer into a ProviderError.
func transportError(ctx context.Context, version, op string, err error, timeout time.Duration, secrets []string) *ProviderError {
	pe := &ProviderError{Version: version, Op: op, Unreachable: true, err: err}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		pe.TimedOut = true
		pe.Unreachable = false
		pe.Description = fmt.Sprintf("no answer within %s", timeout)
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		pe.Description = "the request was cancelled"
	default:
		pe.Description = scrub(rootCause(err), secrets)
	}
	return pe
}

// rootCause is the innermost message of a url.Error (the operation and the
// URL are noise for the user) or the whole message.
func rootCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		var oe *net.OpError
		if errors.As(ue.Err, &oe) && oe.Err != nil {
			return oe.Op + ": " + oe.Err.Error()
		}
		return ue.Err.Error()
	}
	return err.Error()
}
