// Package oauth implements the OAuth 1 and OAuth 2 flows of the custom-app
// protocol (spec 002, "OAuth endpoints", "Authentication", "POST /validate"):
// what an app answers on /oauth1/v1/authorize, /oauth1/v1/access_token,
// /oauth2/v1/authorize, /oauth2/v1/access_token, the token refresh through
// /validate, and authenticated HTTP clients for an account. The appkit
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
// Expiries are written as RFC 3339 in UTC with whole seconds. The spec calls
// the access_token step's key expires_on and the /validate key expire_on;
// every answer carries both with the same value, so whichever key the
// service stores and sends back is current. On reading, expire_on wins, then
// expires_on; [ParseExpiry] accepts RFC 3339 with or without fraction or
// zone (no zone = UTC), a space for the "T", a bare date, or Unix seconds or
// milliseconds. An account without an expiry is never refreshed: its token is
// valid until the provider refuses it. An unreadable expiry with a refresh
// token triggers a refresh (the answer then carries a readable one).
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
// per process (one replica only). What this gives: a code stolen on its way
// back cannot be redeemed without the app's key (RFC 7636's threat), and
// providers that require PKCE work. What it does not give: the verifier is
// the same for every flow through one callback URI (per flow when the
// service's callback carries its own state, as OAuth 1 callbacks do), so it
// is not a per-flow CSRF defence; the service's state check is.
//
// # Refresh through /validate
//
// [OAuth2.Validate] keeps a small table of refreshes in flight, keyed by a
// hash of the refresh token: concurrent validations share one provider call,
// which runs detached from any single caller's cancellation (bounded by the
// timeout). A successful result is also remembered for a few minutes (never
// past the new token's expiry), so a retry that still carries the consumed
// refresh token gets the same new tokens instead of a refusal by a provider
// that rotates refresh tokens. Several replicas do not share this table; the
// service validating one account through several replicas at once could
// refresh more than once.
//
// [OAuth2.Client] never refreshes: a refresh outside /validate would not
// reach the service's storage, and a rotated refresh token would be lost.
//
// # OAuth 1
//
// [OAuth1] drives RFC 5849 with github.com/dghubble/oauth1 (HMAC-SHA1,
// HMAC-SHA256 or RSA-SHA1 signatures): [OAuth1.Authorize] obtains a request
// token with the service's callback (its state query parameter passes through
// untouched) and returns the authorization URL with the request token and
// secret; [OAuth1.Exchange] trades them and the verifier for access_token and
// access_secret, plus refresh_token and expires_on when the provider answers
// the session extension's oauth_session_handle and oauth_expires_in, plus the
// provider's other non-oauth_ parameters (user_id, screen_name).
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
// covers 429 and 5xx answers.
package oauth
