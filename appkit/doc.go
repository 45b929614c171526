// Package appkit serves the custom-app protocol of the workspace service: a
// developer declares an app as plain Go values and gets every endpoint served
// with validation, the error contract, logging and graceful shutdown.
//
// # The model in one screen
//
// An [App] is a declaration: a descriptor (ID, Name, Version, ...), one or
// more [Auth] (how the user sets up an account), and what the app does:
//
//   - [Sync] makes it a synchronization app: [Type]s with a schema of
//     [Field]s (built with [ID], [Text], [Number], [Date], [Ref], ...), a
//     [DataHandler] per type built with [Pages], [Filter]s, and optionally a
//     datalist, webhooks and a resource handler.
//   - [Action]s make it an external-action app: each has typed arguments and
//     a Run function.
//
// [App.Handler] checks the declaration once (every problem is reported, with
// its place) and returns an http.Handler that serves GET /, POST /validate,
// GET /logo and, for what is declared, the /api/v1/synchronizer/...,
// /api/v1/automations/action/execute and /oauth{1,2}/v1/... endpoints. A route
// whose feature is not declared answers 404 {message}. [ListenAndServe] adds
// timeouts, a body-size limit and graceful shutdown on SIGINT/SIGTERM.
//
// Handlers receive typed requests: the [Account], the selected types, the
// filter values decoded against their declarations ([Filters]: a date filter
// arrives as a daterange.Range, a datebox as a time.Time), and for data the
// requested type, the run's operation id, lastSynchronizedAt as a time.Time
// and the page cursor as the handler's own Go type: [Pages] round-trips it
// through nextPageConfig. A page says whether it is [Full] or [Delta]; delta
// items carry __syncAction SET (added for you) or REMOVE ([Removed]).
//
// # Errors
//
// Handlers return errors; one error handler answers every failure with JSON
// {"message": ...} and a fitting status:
//
//	invalid account on /validate          401
//	OAuth provider down on /validate      503 {"message", "tryLater": true}
//	invalid filter on filter/validate     400
//	TryLater(err)                         503 {"message", "tryLater": true}
//	unknown type, action, datalist field  400 naming it
//	unknown authentication id            401
//	timeout (deadline, network)           503 {"message", "tryLater": true}
//	malformed JSON, failed validation     400 naming the field
//	body over the size limit              413
//	undeclared feature                    404
//	*Error                                its Status
//	any other error                       500 with the error's text
//	a panic                               500 "internal error", stack in the log only
//
// Successful filter/validate and webhook delete answer 204 No Content.
//
// # Logging
//
// One zerolog line per request: method, path, status, latency, request id
// (X-Request-Id, generated when absent) and requestedType or action where
// relevant. Request bodies are never logged; values of secret account fields
// (password fields, [AuthField.Secret], OAuth tokens) are masked in error
// messages that reach the log.
package appkit
