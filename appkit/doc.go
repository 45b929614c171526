// Package appkit serves the custom-app protocol of the workspace service: a
// developer declares an app as plain Go values and gets every endpoint served
// with validation, the error contract, logging and graceful shutdown. The
// protocol itself is described in the repository's docs/protocol.md.
//
// # The model in one screen
//
// An [App] is a declaration: a descriptor (ID, Name, Version, ...), one or
// more [Auth] (how the user sets up an account: [NoAuth], [TokenAuth],
// [BasicAuth], custom fields declared as typed handles with [Form],
// [OAuth1Auth], [OAuth2Auth]), and what the app does:
//
//   - [Sync] makes it a synchronization app: [Type]s whose items are Go
//     structs (the struct is the schema, see "Struct types") or [Item] maps
//     with a schema of [Field]s; a [DataHandler] per type built with [Pages]
//     or [All]; [Filter]s declared as typed handles; optionally webhooks and a
//     resource handler.
//   - [Action]s make it an external-action app: each has typed arguments
//     (handles listed with [ArgList]) and a Run function.
//
// [App.Handler] checks the declaration once (every problem is reported, with
// its place) and returns an http.Handler that serves GET /, POST /validate,
// GET /logo and, for what is declared, the /api/v1/synchronizer/...,
// /api/v1/automations/action/execute and /oauth{1,2}/v1/... endpoints. A route
// whose feature is not declared answers 404 {message}. [ListenAndServe] adds
// timeouts, a body-size limit and graceful shutdown on SIGINT/SIGTERM;
// [ServeListener] does the same on a listener the caller opened, so that a
// test can run the app's main logic on a port it already holds. [ListenAddr]
// reads the address from HOST (default: every interface) and PORT (default
// 8080), refusing a value that is not a port number or not a host. An app
// listening on a loopback address answers only requests addressed to it
// there (the Host header), against DNS rebinding.
//
// Every app answers GET /healthz (200 "ok" while it serves; the images'
// health check asks it). [App.Observe] gives it metrics (requests by
// endpoint and status, items by type, errors by kind) served apart from its
// port, and traces that continue the caller's W3C traceparent; the
// appkit/telemetry package sets it up from a main's environment
// (METRICS_ADDR, OTEL_*).
//
// # Handles: every declared name written once
//
// Filters, account fields and action arguments are typed handles: declared
// once, listed in the declaration, and read with Get in handlers, so no
// handler names them by a string again:
//
//	key := appkit.SecretAccountField("key", "API key", "Settings → API")
//	to := appkit.TextArg("to", "Recipient")
//	...Auth{Fields: appkit.Form(key), ...}, Action{Args: appkit.ArgList(to), ...}
//	k, _ := key.Get(req.Account)
//	who, ok := to.Get(req.Args)
//
// [TokenAuthToken], [BasicAuthUsername] and [BasicAuthPassword] are the
// handles of the authentications appkit declares.
//
// # Struct types
//
// A type declared from a struct states each fact once: the struct's exported
// fields are the schema, and its pages carry []T (or []*T). A field's Go
// type gives its kind, and appkit sends each value in the form the service
// reads:
//
//	string                  text (the field with id "id": id)
//	bool                    text, subType boolean, sent as "true" or "false"
//	int, int8 … uint64      number, subType integer (an integer id is sent as a string)
//	float32, float64        number
//	time.Time               date (a date-time), ISO 8601 with milliseconds (zero: null)
//	Day                     date, subType day, YYYY-MM-DD (zero: null)
//	[]string                array[text]
//	*T of any of these      the same; nil leaves the key out of the item
//
// A time.Time tagged day is sent as its day when it is midnight in its
// location; with a time of day it is sent as it is, a date-time that the
// page checks report (use Day for days).
//
// The `appkit` struct tag refines it: the field id first (default: the Go
// name with its leading capitals lowered, "DueDate" → "dueDate", "URL" →
// "url"; "-" skips the field), then comma-separated options:
//
//	name=Due date        the display name (default: the Go name in words, "Due date")
//	desc=...             the description
//	md, html, url, email, file, files, single-select, multi-select,
//	workflow, date-range, date-time-range
//	                     the subType
//	options=a|b|c        options of a select or workflow field
//	ref=project          a relation to type "project": many-to-one on a
//	                     string, many-to-many on a []string
//	inverse=Tasks        the relation's name on the target side (default:
//	                     the declaring type's name)
//	match=email          the target field matched (default: id)
//	order=3              the display order (default: the field's position)
//	readonly, hidden     the schema flags of the same names
//	omitempty            a zero value leaves the key out (in a delta page:
//	                     "unchanged")
//	format=Money         the number format (Money, Percent or Number), with
//	precision=2, unit=h  its precision and unit
//
// Commas cannot appear inside an option's value. An unknown option is a
// declaration error that names the nearest valid one ("markdown": did you
// mean "md"?). A type whose schema is
// only known at run time uses [Item] maps with Fields (or FieldsFunc, per
// request); map values are converted the same way from their Go types, and
// with a static schema by their field's kind. Map schemas are built with
// [ID], [Text], [DateTimeField], [DayField], ...: a day and a date-time
// never share a name. [DecodeItem] reads a wire item back into its struct.
//
// # Pages, delta and removals
//
// A [Page] carries items and the typed cursor of the next page (any struct:
// appkit sends it as nextPageConfig and decodes it back). A type that can
// answer changes only declares Delta once; its handler then answers a delta
// page (Page.Delta) when it can express the change and a full page when it
// cannot. Delta items are sent with __syncAction SET and may be partial;
// removals are ids in Page.Removed. [DataRequest.Since] gives the instant
// to look for changes from (LastSynchronizedAt less Sync.DeltaMargin, a
// declared safety margin), and [Filters.Any] whether a filter narrows the
// selection (a handler then answers full, which removes what left it).
// appkit refuses to send a page that
// breaks these rules (a delta page of a type without Delta, removals in a
// full page, an item carrying __syncAction): the answer is 500 naming the
// handler's mistake, and the log says the same. Items that do not fit their
// schema (an unknown key, a value of the wrong shape, a missing id) are sent
// as they are and logged once per type and rule; appkittest fails a test on
// them.
//
// # Filters
//
// Filters are typed handles: [TextFilter], [NumberFilter], [BoolFilter],
// [DayFilter] (a datebox, read as a [Day]), [DateRangeFilter] (the
// date-range grammar, read as a daterange.Range), [ListFilter] and
// [MultiDropdownFilter] (each with its own datalist function) and
// [HighlightTextFilter]. Declare them once, list them in Sync.Filters and
// read them with Get:
//
//	status := appkit.MultiDropdownFilter("status", "Status", statusOptions).Optional()
//	...
//	wanted, ok := status.Get(req.Filter)
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
//	missing required action argument      400 naming it
//	unknown authentication id             401
//	timeout (deadline, network)           503 {"message", "tryLater": true}
//	upstream unreachable (refused, DNS)   503 {"message", "tryLater": true}
//	malformed JSON, failed validation     400 naming the field
//	body over the size limit              413
//	undeclared feature                    404
//	*Error                                its Status
//	a page breaking the protocol          500 naming the handler's mistake
//	any other error                       500 with the error's text
//	a panic                               500 "internal error", stack in the log only
//
// Successful filter/validate and webhook delete answer 204 No Content.
//
// # Logging
//
// One zerolog line per request: method, path, status, duration, request id
// (X-Request-Id, generated when absent) and the type or action where
// relevant. Request bodies are never logged. Secret account values
// (password fields, [AuthField.Secret], OAuth tokens) are masked in every
// error message and log line: a value that contains a secret of at least
// four characters is replaced whole by ***, and so is a quoted value equal
// to a shorter one.
//
// The handler's context carries the request's logger (zerolog.Ctx), with
// the request id: what a handler logs through it, and the debug line that
// appkit/upstream writes per upstream call, lands in the app's log next to
// the request's own line. Set [App.Logger] to a debug-level logger to see
// the upstream calls.
//
// One key per idea, in every line appkit and appkit/upstream write (the
// LogKey constants):
//
//	key          holds
//	request_id   the request's id
//	method       an HTTP method
//	host         the host (and port) of an upstream call
//	path         a URL path, never the query (it may hold keys)
//	status       an HTTP status code
//	duration     how long a request or call took
//	attempt      the attempt's number (from 1) of a retried call
//	type         a type id (a data request's requestedType)
//	action       an action id
//	error        an error's text, secrets masked
//	panic        a recovered panic's value (with stack)
//	rule         the protocol rule an item broke (with violation)
//	probe        the conformance check that sent the request (X-Appkit-Probe)
//
// A request of the conformance suite (appkit conform, the checks of appkit
// dev) carries X-Appkit-Probe with the id of what it checks, and many are
// meant to be refused (wrong credentials, an unknown type): its line is
// logged at info level with the probe key, not as a warning, when it is
// answered 4xx (5xx stays an error). The header only changes that level;
// any client may send it.
//
// # Upstream calls reported to the host
//
// When the host asks (the request header X-Appkit-Upstream: calls, or
// calls, bodies), the calls the handler makes with appkit/upstream are
// collected and reported on the answer, in the X-Appkit-Upstream header:
// each attempt's method, URL (secrets and secret-named query parameters
// masked), status, duration, answer size and error, and the request and
// answer bodies cut at 2 KiB (secret-named JSON fields and the account's
// secrets masked) when bodies were asked. At most 50 calls are kept, the
// others counted; the header stays under 3 KiB, so that a reverse proxy's
// default buffer for an answer's header holds it, or 32 KiB with bodies
// (bodies are left out first, then the last calls, counted). Without the
// request header nothing is collected. docs/sdk.md says how to see them.
//
// # Testing
//
// Package appkit/appkittest drives an app in process as the service does and
// fails a test on any answer that breaks the protocol, with the same rules
// as the conformance suite.
package appkit
