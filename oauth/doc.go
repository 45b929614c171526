// Package oauth implements the OAuth 1 and OAuth 2 flows of the custom-app
// protocol: what an app answers on /oauth1/v1/authorize,
// /oauth1/v1/access_token, /oauth2/v1/authorize, /oauth2/v1/access_token,
// the token refresh through /validate, and authenticated HTTP clients for an
// account. The appkit
// package mounts these as HTTP endpoints; this package knows nothing of HTTP
// routing and does not import appkit.
//
// # OAuth 2
//
// [OAuth2] drives the authorization-code grant with golang.org/x/oauth2:
// [OAuth2.Authorize] builds the provider's URL (client id, callback as
// redirect_uri, scopes, the service's state unchanged, PKCE S256 challenge,
// extra AuthParams); [OAuth2.Exchange] trades the code for the account data
// (access_token, refresh_token, token_type, expires_on/expire_on, scope, plus
// what the optional Account callback returns); [OAuth2.Validate] answers
// /validate and refreshes a token that expires within RefreshMargin, once for
// concurrent validations of one account; [OAuth2.Client] returns a client
// that sends the account's token. Presets ([GitHub], [GitLab], [Google],
// [Microsoft]) fill in the endpoints of common providers.
//
// Expiries are written as RFC 3339 in UTC with whole seconds. The
// access_token steps name the expiry expires_on and /validate names it
// expire_on; every answer carries both with the same value, so whichever key the
// service stores and sends back is current. On reading, expire_on wins, then
// expires_on; [ParseExpiry] accepts RFC 3339 with or without fraction or
// zone (no zone = UTC), a space for the "T", a bare date, or Unix seconds or
// milliseconds. An account without an expiry is never refreshed: its token is
// valid until the provider refuses it. An unreadable expiry with a refresh
// token triggers a refresh (the answer then carries a readable one). A
// refresh answer without expires_in carries expire_on and expires_on as ""
// so that the service drops the stale expiry (read back, "" is "not known")
// instead of sending it again, which would refresh on every validation.
//
// [OAuth2.Authorize] refuses an empty state ([ErrMissingState]): the
// returned URL must carry the service's state, which ties the callback to
// its flow. [OAuth2.Exchange] requires the
// callback_uri and checks it as Authorize does ([ErrBadCallback]).
//
// # Carrying the PKCE verifier
//
// The access_token request carries only the callback_uri and the code, not
// the state, so a verifier cannot be looked up by state, and a random
// verifier kept in memory could not be told apart from the verifiers of
// other users' flows through the same callback. The verifier is therefore
// derived: HMAC-SHA256(key, client_id, callback_uri), base64url (43
// characters). Both requests carry the callback, the key never leaves the app,
// and nothing is stored, so any replica can finish a flow that another
// started as long as they share the key: PKCEKey if set, else a key derived
// from the client secret (shared by all replicas already), else a random key
// per process (one replica only, and only when PKCESingleProcess says so:
// otherwise [OAuth2.Check] refuses PKCE without PKCEKey and client secret,
// since exchanges reaching another replica or a restarted process would
// fail at the provider).
//
// Plainly: the verifier is fixed per client and callback URI, not fresh per
// transaction as RFC 7636 intends and RFC 9700 (OAuth 2.0 Security BCP)
// recommends; every flow through one callback URI sends the same challenge.
// What remains: a code intercepted on its way back (RFC 7636's threat: a
// malicious app on the device, a leaked log or Referer) cannot be redeemed
// by anyone without the app's key, since the verifier is never sent before
// the token request and cannot be computed from the challenge; and
// providers that require PKCE work. What is lost: PKCE's per-transaction
// binding, so it is no defence against code injection or CSRF (an attacker
// who gets a victim's session to redeem the attacker's code through the
// same callback passes the PKCE check); the service's state check, which
// this package requires ([ErrMissingState]), is that defence. An
// observed verifier (in a compromised token request) stays valid for every
// later flow until PKCEKey (or the client secret) changes.
//
// # Refresh through /validate
//
// [OAuth2.Validate] keeps a small table of refreshes in flight, keyed by a
// hash of the refresh token: concurrent validations share one provider call,
// which runs detached from any single caller's cancellation (bounded by the
// timeout). A successful result is also remembered for 60 seconds (never
// past the new token's expiry), so a retry that still carries the consumed
// refresh token gets the same new tokens instead of a refusal by a provider
// that rotates refresh tokens. The window is a deliberate trade-off and
// kept short: it exists for the retry of a validation whose answer was lost,
// but during it a token revoked at the provider is still handed out, and a
// replayed old refresh token is answered from memory, so the provider's
// refresh-token-reuse detection does not see it. Several replicas do not
// share this table; the service validating one account through several
// replicas at once could refresh more than once.
//
// Once the provider granted new tokens, the old refresh token is consumed:
// a failing Account callback then does not fail the validation (the tokens
// would be lost and the account dead); the answer carries the new tokens
// with the stored name (or the provider's host) and is remembered like any
// other result.
//
// The effective refresh margin is RefreshMargin, except when the tokens a
// refresh obtained live less than twice the margin: then it is half their
// lifetime (the last one observed by this OAuth2 value), so a provider
// issuing, say, two-minute tokens with a five-minute margin is not asked
// for a refresh on every validation.
//
// [OAuth2.Client] never refreshes: a refresh outside /validate would not
// reach the service's storage, and a rotated refresh token would be lost.
//
// The clients of [OAuth2.Client] and [OAuth1.Client] send the account's
// credentials only to the origin (scheme and host with port) of the request
// made: a redirect to another origin is followed without the Authorization
// header (the configured HTTPClient's CheckRedirect, when set, decides
// whether to follow at all; its Jar is used too).
//
// # OAuth 1
//
// [OAuth1] drives RFC 5849 with github.com/dghubble/oauth1 (HMAC-SHA1,
// HMAC-SHA256 or RSA-SHA1 signatures): [OAuth1.Authorize] obtains a request
// token with the service's callback (its state query parameter passes through
// untouched) and returns the authorization URL with the request token and
// secret; [OAuth1.Exchange] trades them and the verifier for access_token and
// access_secret, plus expires_on/expire_on and session_handle when the
// provider answers the session extension's oauth_expires_in and
// oauth_session_handle, plus user_id and screen_name when given. Other
// parameters of the provider's answer are dropped (a whitelist: a provider
// parameter must not overwrite a key the service keeps, such as "auth").
// The session handle is kept for reference only: the session refresh is not
// implemented, so [OAuth1.Validate] answers [ErrTokenExpired] once the
// stored expiry has passed and the user connects again. With RSA-SHA1 the
// token secret is not used, and Validate and Client accept an account
// without access_secret.
//
// # Errors and secrets
//
// Every outgoing call has a timeout (Timeout, default [DefaultTimeout]) and
// follows the caller's context; OAuth 1 answers are read up to 64 KiB and
// OAuth 2 answers up to 1 MiB. A failing provider call returns a
// *[ProviderError]: the step, the provider's status, error code and
// description, cut short and scrubbed of the client secret, codes, verifiers
// and tokens of the call, so its message can be shown to the user (appkit
// answers 401 {message}) and logged. errors.Is(err, [ErrProviderUnreachable])
// tells an unreachable or silent provider; [ProviderError.Temporary] also
// covers 429 and 5xx answers. An error body that is not an RFC 6749 error
// is reduced (an HTML page is "an HTML page"). [IsTemporary] tells every
// failure that says nothing about the account (provider or network down,
// timeouts, 429, 5xx, a timed-out or unconnectable Account callback):
// appkit answers those on /validate with tryLater instead of 401.
package oauth
