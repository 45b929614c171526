// Package upstream is the HTTP client of an app's upstream API, bound to
// the account of the request being served: authentication from the
// account, typed JSON in and out, size and time limits, retries, a rate
// limit per account, paging, and every failure mapped onto the protocol's
// answers, so that a handler returns the error as it gets it.
//
//	var api = &upstream.Client{BaseURL: "https://desk.example/api", Auth: upstream.Bearer("token")}
//
//	func customers(ctx context.Context, req *appkit.DataRequest) ([]Customer, error) {
//		return upstream.Get[[]Customer](ctx, api.For(req.Account), "/customers", nil)
//	}
//
// A type whose items come from one list endpoint needs the endpoint, a
// pager and a mapping function ([Items], or [List] for filters, delta and
// removals); its cursor goes through nextPageConfig and back by itself.
// Outside a data handler (a datalist's options, say), [All] walks every
// page of a list through its pager and returns the items, bounded by a
// maximum count. [Pager.PageSize] asks for a page size, on cursor pagers
// too.
//
// # Authentication
//
// [Bearer], [TokenHeader] (any scheme, or a custom header), [Basic],
// [QueryKey], [OAuth2] and [OAuth1] read the credentials from the account
// values; [ByAuth] picks one by the account's authentication id.
// [BearerFrom], [TokenHeaderFrom], [BasicFrom] and [QueryKeyFrom] take the
// typed handle of the account field (appkit.TokenAuthToken) instead of its
// id.
// Credentials go only to the origin (scheme, host, port) of BaseURL: a
// redirect to another origin is refused with an error ([ErrRedirect]), and
// so are a Link header's next URL and a nextPageConfig that point
// elsewhere.
//
// With OAuth 2, a 401 triggers one token refresh through the flow's
// Validate (concurrent refreshes of one refresh token are one provider
// call) and the request is sent again once. The new access token is used
// by this Client's later calls for the same stored account; the flow
// remembers the new tokens for a minute, during which the service's next
// /validate with the consumed refresh token gets them and stores them.
// A refresh that the provider refuses is an invalid account; one that
// fails for a while (provider down) is tryLater.
//
// # What the service gets
//
// Every error of [Session.Do], [Get], [Send], [Fetch] and the [List]
// handlers is already mapped; the upstream's own error stays reachable
// with errors.As (*[StatusError], *[CallError]) and errors.Is (the
// sentinels):
//
//	upstream answer                          the app answers the service
//	401                                      401 {message}: invalid account (ErrUnauthorized)
//	403 without rate-limit headers           401 {message}: invalid account (ErrUnauthorized)
//	429; 403 with X-RateLimit-Remaining: 0,  503 {message, tryLater: true}, Retry-After: the
//	  a Retry-After or an IETF remaining 0     upstream's wait, capped at MaxWait (ErrRateLimited)
//	5xx, timeout, network error              retried (idempotent calls only) with exponential
//	                                           backoff and jitter, then 503 tryLater (ErrUnavailable)
//	404                                      500 {message} naming the method, host and path (ErrNotFound)
//	other 4xx                                500 {message} with the upstream's message
//	not JSON, over MaxBody, bad Link header, 500 {message} naming the call (ErrBadAnswer)
//	  a repeating cursor
//	redirect to another origin               500 {message} (ErrRedirect)
//	the app's own rate limit past the         503 tryLater (ErrRateLimited)
//	  handler's deadline
//	the handler's request cancelled          503 tryLater
//
// The wait of a rate-limited answer comes from Retry-After (seconds or a
// date), the IETF RateLimit headers (RateLimit: ...;t=N, or RateLimit-Reset)
// or X-RateLimit-Reset (a Unix time), in that order; without any it is
// DefaultRateLimitWait; it is never more than MaxWait (DefaultMaxWait: a
// Retry-After of a year is 15 minutes). A 5xx answer's Retry-After
// lengthens the backoff before the next retry (capped the same way). A
// retry that would not end before the handler's deadline is not made.
//
// # Limits
//
// Each attempt has Timeout (DefaultTimeout) inside the context's deadline;
// an answer is read up to MaxBody (DefaultMaxBody); DefaultRetries retries
// with waits of ½–1 s, 1–2 s, ... capped at 8 s; at most 10 redirects;
// a Link header up to 16 KiB; a cursor up to 8 KiB; MaxPages pages per
// list; per-account state (rate limiters, refreshed tokens) for at most
// 10,000 accounts per Client. A failed decode leaves the caller's value
// untouched.
//
// # Logging and secrets
//
// Each attempt logs one debug line (method, host, path, status, duration,
// attempt) on Client.Logger or the context's zerolog logger (in an appkit
// handler, the app's logger with the request id): never the query, a
// header or a body. The keys are appkit's LogKey constants. The
// account's credentials are masked as *** in every error message and log
// line: the value of Bearer, TokenHeader and QueryKey, Basic's password
// and the base64 of "user:password" its header carries (and of the
// password alone), OAuth tokens, a refreshed token; each also as it is
// spelled in a query string, in a URL path and in a JSON string. The
// Basic user name is not a secret and is shown; a value shorter than 4
// bytes is masked only where it is a whole value (quoted, a query value),
// not inside other words (it would mask too much of the message).
//
// # Calls reported to the host
//
// When the host asks for them (appkit's middleware then puts a collector
// in the handler's context), each attempt made with the handler's context
// is also reported to the host with the answer: method, URL (the path
// masked as in the debug line, and the query, which the debug line leaves
// out, with the values of secret-named parameters as *** and the
// credentials masked), status, duration, answer size and error (masked as
// above); and, when the host asks for bodies, the request and answer
// bodies, their secret-named JSON fields and the credentials masked before
// they are cut at 2 KiB (a cut body never ends with the start of a
// credential). Without the host's request, nothing is collected. appkit's
// package doc says what the answer carries and its bounds.
package upstream
