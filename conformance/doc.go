// Package conformance checks an app of the custom-app protocol, at a URL or
// in process, the way the workspace service will call it, and reports each
// rule it enforces as passed, failed or skipped.
//
// It is for app developers in any language who want to know, before
// deploying, whether the service will work with their app; appkit apps can
// keep the suite in their own tests with [Test].
//
//	rep, err := conformance.Run(ctx, conformance.Config{
//		URL:     "http://localhost:8080",
//		Account: map[string]any{"token": "demo"},
//	})
//	if err != nil { ... }            // the run could not start
//	_ = rep.WriteText(os.Stdout)     // or WriteJSON, WriteJUnit
//	if !rep.OK() { os.Exit(1) }
//
// # What a run does
//
// In order: GET / (the descriptor: required keys and types, sources,
// authentications and their fields, actions), GET /logo, /validate with the
// given account (without one, an empty account for an authentication that
// takes no values, picked as appkit sync picks it), with garbage values and
// with an unknown authentication id, the OAuth authorize steps; then, for a
// synchronization app, config and its filters, every datalist (dependent
// lists after the lists they depend on, with dependsOn), filter/validate
// with the given filter and with a provoked invalid one, the schema of every
// type, and data for every type paged to the end three times: twice in full
// (ids unique within a run, the same ids in both: warnings) and once with
// lastSynchronizedAt. A repeated cursor, or a page repeating the ids of an
// earlier page, fails at once and ends the type's walk there, as the sync
// stops the type. Values the host converts are warned about, naming the
// conversion. Client
// mistakes (malformed bodies, missing fields, unknown types) are expected
// to be refused with an error status (warnings: the service never makes
// them). Webhooks are installed and deleted again when the config
// announces them; actions are executed only in ways that must be refused
// (an unknown action, no arguments), so nothing runs for real.
//
// Over every answer, the suite checks content types (JSON answers are
// application/json), error bodies (a JSON {message}), per-endpoint latency
// against a slow-answer bound, and that each request is answered within a
// per-request timeout: a request that never answers fails transport.answers
// and the run goes on.
//
// # Bounds
//
// A run is bounded so that no app, however hostile, holds it: each request
// by [Config.Timeout] (10 s) and [Config.MaxBody] (32 MiB), one type's run
// of pages by [Config.MaxPages] (1,000) and [Config.RunTimeout] (2 min), the
// types synchronized by [Config.MaxTypes] (the first 50; the others are
// named in a skipped result), tryLater retries by 3 (after Retry-After, at
// most 10 s each), and the whole run by [Config.TotalTimeout] (10 min).
// When the run's context is cancelled or TotalTimeout passes, the run stops
// at once: [Run] returns the results recorded until then (Report.Stopped
// says why) with an error matching [ErrStopped]; a request cut by the stop
// counts against nothing. [Config.Progress] follows a run as it goes.
//
// # Checks and results
//
// Every check has a stable id ([Checks] lists them), cites the section of
// docs/protocol.md that states its rule, and has a level ([Severity]): a
// [Failure] only where a sentence of the protocol requires what it checks
// (a must, a required field, a stated status), cited in [Check.Source]; a
// [Warning] for appkit's own choices (an unknown authentication id refused
// with 401, a malformed body refused, ids unique) and for what the service
// is known to tolerate (item keys outside the schema, a boolean sent as
// JSON). Warnings never make a run fail, so an app written from the
// protocol alone, in any language, passes. A check runs once per subject
// (an endpoint, a type, an authentication, an action); each property is
// checked by one check only, so one broken rule fails one check id: a wrong
// status fails the check that provoked it, a wrong error body fails
// errors.message-body, a wrong content type transport.content-type.
//
// A 404 or 405 from an optional endpoint (logo, filter/validate, datalist,
// webhooks) says that the app does not serve it: its checks are skipped
// and its plain-text body needs no {message}. Requests that the service
// never sends (malformed bodies, unknown types, ids, fields and actions,
// values of the wrong type) may be refused in any way: whether they are
// answered, with a {message}, is errors.mistake-answers' (a warning), not
// transport.answers' or errors.message-body's.
//
// # The checks, their levels and sources
//
// Every check, sorted by id, with its level, what it checks (the rule, and
// the section of docs/protocol.md that states it) and its source: for a
// failure, what the protocol requires; for a warning, whose choice or
// tolerance it is.
//
//   - accounts.oauth-authorize (failure): OAuth authorize answers a
//     redirect_uri (carrying the state for OAuth 2)
//     (docs/protocol.md#oauth).
//     Source: OAuth: authorize answers {redirect_uri} where the user is
//     sent; OAuth 2's must include the state; OAuth 1's comes with token
//     and secret.
//   - accounts.reject-garbage (failure): an account with garbage values is
//     refused with 401 (docs/protocol.md#accounts-and-validate).
//     Source: Accounts and validate: an invalid account is answered 401
//     with {message} (an error with tryLater, a failure that may pass
//     later, skips the check).
//   - accounts.reject-unknown-auth (warning): an unknown authentication id
//     is refused with 401 (docs/protocol.md#accounts-and-validate).
//     Source: appkit's choice: the service sends only authentication ids
//     the app declares; the protocol says nothing of another.
//   - accounts.validate (failure): the given account validates: 200 {name}
//     (docs/protocol.md#accounts-and-validate).
//     Source: Accounts and validate: a valid account is answered 200 with
//     {name} (an error with tryLater, a failure that may pass later, skips
//     the check).
//   - actions.missing-args (warning): executing an action without its
//     arguments is refused with an error status
//     (docs/protocol.md#external-actions).
//     Source: appkit's choice: the protocol cannot mark an argument
//     optional, so an action may run without arguments (and then runs for
//     real).
//   - actions.unknown-action (warning): executing an unknown action is
//     refused with an error status (docs/protocol.md#external-actions).
//     Source: appkit's choice: the service executes only declared actions.
//   - data.cursor-repeats (failure): a run never sends the same
//     nextPageConfig twice (docs/protocol.md#paging).
//     Source: Paging: nextPageConfig must differ from page to page. The
//     sync stops the type at once on a cursor sent before in the run, so
//     the items after it would never come; the suite stops walking the type
//     there too.
//   - data.delta (failure): with lastSynchronizedAt, synchronizationType
//     and __syncAction values are valid
//     (docs/protocol.md#delta-synchronization).
//     Source: Delta synchronization: synchronizationType is full or delta;
//     every item of a delta page carries __syncAction, SET or REMOVE.
//   - data.delta-declared (warning): only a type whose schema declares
//     __syncAction answers delta pages
//     (docs/protocol.md#delta-synchronization).
//     Source: The service's tolerance: __syncAction is declared when delta
//     synchronization with removals is supported; the host applies delta
//     pages anyway.
//   - data.deterministic (warning): two full runs give the same ids
//     (docs/protocol.md#items).
//     Source: appkit's check: an app's data may change between two runs;
//     the protocol requires nothing of it.
//   - data.ids-unique (warning): ids are unique across the pages of a run
//     (docs/protocol.md#items).
//     Source: appkit's choice: ids identify items, but the protocol does
//     not forbid sending one twice; the host keeps the later item.
//   - data.items-extra-keys (warning): items carry only keys of the schema
//     (docs/protocol.md#items).
//     Source: The service's tolerance: keys outside the schema are ignored.
//   - data.items-match-schema (failure): items match the schema: id
//     present, values of the declared types (docs/protocol.md#items).
//     Source: Items: objects keyed by the schema's field ids, with the id
//     field (a string) set, each value of its field's declared type.
//   - data.items-wire-form (warning): values in the form the protocol
//     states; others are converted, named (docs/protocol.md#items).
//     Source: The service's tolerance: it converts values it accepts in
//     other forms (a JSON boolean in a boolean text field, locale, RFC 1123
//     and Date.toString dates, epoch milliseconds, an array of strings in a
//     text or Markdown field, a numeric string in a number field), and the
//     host converts them alike; the result names the conversion.
//   - data.page (failure): data pages: 200, an items array,
//     synchronizationType full or delta, object cursors
//     (docs/protocol.md#paging).
//     Source: Data and paging: the answer has items (an array); pagination,
//     when sent, has hasNext (a boolean) and nextPageConfig (an object);
//     synchronizationType is full or delta.
//   - data.page-repeats (failure): a page never repeats the ids of an
//     earlier page of the run (docs/protocol.md#paging).
//     Source: Paging: the service follows nextPageConfig page after page
//     until hasNext is false, each page moving on. A page of two or more
//     items whose ids are exactly those of an earlier page says the paging
//     went back: the sync stops the type at once, so the items after it
//     would never come; the suite stops walking the type there too.
//   - data.paging-ends (failure): paging ends: hasNext turns false within
//     the suite's bounds (docs/protocol.md#paging).
//     Source: Paging: the service follows nextPageConfig until hasNext is
//     false, so a run must end; the suite takes Config.MaxPages pages or
//     Config.RunTimeout for never.
//   - data.sync-type-mixed (warning): a run's pages are all full or all
//     delta, and REMOVE comes only in delta pages
//     (docs/protocol.md#delta-synchronization).
//     Source: The service's tolerance: the protocol does not forbid mixing;
//     the host treats a type as delta once one page is.
//   - descriptor.actions (failure): actions: action, name, args with id,
//     name and type text or textArea (docs/protocol.md#external-actions).
//     Source: External actions: an action has action, name and args; an
//     argument has id, name and a type that is text or textArea.
//   - descriptor.answer (failure): GET / answers 200 with a JSON object
//     (docs/protocol.md#the-descriptor).
//     Source: Endpoints required of every app: GET / answers the app
//     descriptor, a JSON object (the service's own tests expect 200 and
//     JSON).
//   - descriptor.arg-type-spelling (warning): action argument types are
//     spelled as the protocol spells them (textArea, not textarea)
//     (docs/protocol.md#external-actions).
//     Source: appkit's choice: an argument's type is matched
//     case-insensitively (textarea is read as textArea), since the two
//     types differ by more than case; the protocol spells them text and
//     textArea.
//   - descriptor.auth-fields (failure): authentication fields: id, name,
//     description, a known type, link value, highlightText editorMode
//     (docs/protocol.md#authentication).
//     Source: Authentication fields: id, name, type (one of the protocol's
//     field types) and description are required; link needs its value,
//     highlightText an editorMode json or sql.
//   - descriptor.authentication (failure): authentications: at least one,
//     each with id and name, one per OAuth version, none without fields
//     (docs/protocol.md#authentication).
//     Source: Authentication and limits: at least one authentication is
//     required, each with an id and a name; at most one per OAuth version;
//     the none authentication has no fields.
//   - descriptor.id-and-type (warning): the descriptor carries id and type
//     strings (docs/protocol.md#the-descriptor).
//     Source: The service's samples carry id and type, but they are not
//     among the descriptor's required keys.
//   - descriptor.required (failure): the descriptor has every required key
//     with its type (docs/protocol.md#the-descriptor).
//     Source: The descriptor: every key is required; name, website, version
//     and description are strings, authentication and sources arrays,
//     responsibleFor an object of booleans, actions an array.
//   - descriptor.responsible-for (warning): responsibleFor matches what the
//     app serves (docs/protocol.md#the-descriptor).
//     Source: appkit's choice: the protocol says what responsibleFor means
//     but ties it to no endpoint; the host tolerates dataSynchronization
//     not true. A refused config fails sync.config.
//   - descriptor.sources (failure): sources is an empty array
//     (docs/protocol.md#the-descriptor).
//     Source: The descriptor: sources is always an empty array.
//   - descriptor.unique-ids (warning): ids of authentications, their
//     fields, actions and arguments are unique
//     (docs/protocol.md#authentication).
//     Source: appkit's choice: these ids are keys (of the account, of
//     args), so a repeated one hides another; the protocol does not say so,
//     and the host keeps the first.
//   - errors.client-status (warning): a client's mistake is answered 4xx,
//     not 5xx (docs/protocol.md#errors).
//     Source: appkit's choice: the protocol names no status for a client's
//     mistake.
//   - errors.malformed-body (warning): a malformed JSON body is refused
//     with an error status (docs/protocol.md#errors).
//     Source: appkit's choice: the service never sends a malformed body, so
//     the protocol says nothing of one.
//   - errors.message-body (failure): error answers to the service's
//     requests carry a JSON {message} (docs/protocol.md#errors).
//     Source: Errors: any endpoint answers a failure with an error status
//     and a JSON body {message}; tryLater, when sent, is a boolean.
//     Requests the service never sends are errors.mistake-answers'; a 404
//     or 405 of an optional endpoint the app does not serve is no failure.
//   - errors.missing-field (warning): a body without a required field is
//     refused with an error status (docs/protocol.md#errors).
//     Source: appkit's choice: the service always sends the keys an
//     endpoint takes (an app may ignore id or requestedType).
//   - errors.mistake-answers (warning): requests the service never sends
//     are answered, and refused with a JSON {message}
//     (docs/protocol.md#errors).
//     Source: appkit's choice: the service never sends a malformed body, an
//     unknown type, id, field or action, or a value of the wrong type, so
//     how an app refuses one (a framework's own error page) breaks no rule.
//   - errors.unknown-type (warning): data for an unknown type is refused
//     with an error status (docs/protocol.md#errors).
//     Source: appkit's choice: the service asks for data only of types of
//     the config answer.
//   - schema.field-types (failure): fields have a name, a known type and
//     subType (docs/protocol.md#schema).
//     Source: Schema: a field has a name (required) and a type among id,
//     text, number, date and array[text]; a subType among those listed
//     (with the service's date-time-range, single-select, multi-select,
//     workflow and day); description, readonly and ignore of their types;
//     its id is its key.
//   - schema.id-and-name (failure): every type has an id field of type id
//     and a name field (docs/protocol.md#schema).
//     Source: Schema: every type must contain an id field of type id and a
//     name field.
//   - schema.relation-once (failure): a relation between two types is
//     declared once (docs/protocol.md#relations).
//     Source: Relations: a relation between two types is declared once
//     only; declaring it on both sides duplicates it.
//   - schema.relations (failure): relations: cardinality, name, an existing
//     target type and field (docs/protocol.md#relations).
//     Source: Relations: cardinality is many-to-one or many-to-many, name
//     is a string, targetType the id of a type of the app, targetFieldId a
//     field of that type.
//   - schema.types (failure): the schema has an entry for every requested
//     type (docs/protocol.md#schema).
//     Source: Schema: the answer has an entry for every requested type, an
//     object of field descriptions by field id.
//   - schema.unknown-type (warning): the schema of an unknown type is
//     refused (docs/protocol.md#schema).
//     Source: appkit's choice: the service asks only for types of the
//     config answer.
//   - sync.config (failure): config answers types [{id, name}], filters and
//     webhooks of their types (docs/protocol.md#config).
//     Source: Config: types is an array of type descriptors {id, name}
//     (strings); filters, when sent, an array; webhooks, when sent,
//     {enabled: boolean}.
//   - sync.datalist (failure): a datalist answers {items: [{title, value}]}
//     (docs/protocol.md#datalists).
//     Source: Datalists: the answer is {items: [{title, value}]}.
//   - sync.datalist-depends-on (failure): a dependent datalist answers with
//     dependsOn (docs/protocol.md#datalists).
//     Source: Datalists: a list whose filter has datalist_requires gets
//     their values in dependsOn and answers {items: [{title, value}]}.
//   - sync.datalist-field (warning): a datalist honours field: an unknown
//     field is refused (docs/protocol.md#datalists).
//     Source: appkit's choice: the service asks only for the lists of
//     filters declared with datalist.
//   - sync.filter-invalid (warning): filter/validate refuses a filter value
//     of the wrong type (docs/protocol.md#filter-validation).
//     Source: appkit's choice: the service sends only values its form
//     produced; the protocol leaves what is invalid to the app.
//   - sync.filter-invalid-status (failure): a filter refused by
//     filter/validate is answered 400 (docs/protocol.md#filter-validation).
//     Source: Filter validation and errors: an invalid filter is answered
//     400 with {message}.
//   - sync.filter-validate (failure): filter/validate accepts a valid
//     filter with 200 or 204 (docs/protocol.md#filter-validation).
//     Source: Filter validation (optional): a valid filter is answered 200
//     or 204.
//   - sync.filters (failure): filters: id, title, a known type, editorMode,
//     datalist_requires naming filters (docs/protocol.md#filters).
//     Source: Filters: id, title and type (a field type other than
//     password) are required; highlightText needs editorMode json or sql;
//     datalist_requires is an array of filter ids; datalist, optional and
//     secured are booleans.
//   - sync.unique-ids (warning): type and filter ids are non-empty and
//     unique, a sync app offers a type, no datalist depends on itself
//     (docs/protocol.md#config).
//     Source: appkit's choice: type and filter ids key the schema and the
//     filter object, but the protocol does not require them non-empty or
//     unique, nor a type at all.
//   - transport.answers (failure): every request is answered within the
//     per-request timeout (docs/protocol.md#timeouts-and-limits).
//     Source: Endpoints: each request the service sends is answered, with
//     the answer the protocol gives or an error; the suite waits
//     Config.Timeout for it.
//   - transport.content-type (failure): answers of /, /validate, config,
//     schema and data have content type application/json
//     (docs/protocol.md#transport).
//     Source: Endpoints: the service's tests expect a JSON content type
//     from /, /validate, config, schema and data.
//   - transport.content-type-other (warning): the other JSON answers have
//     content type application/json (docs/protocol.md#transport).
//     Source: Bodies and answers are JSON, but the protocol names the
//     content type only for /, /validate, config, schema and data; the host
//     also reads text/plain or no type as JSON.
//   - transport.logo (failure): /logo answers image/svg+xml, 204 or 302 (an
//     error status means no logo) (docs/protocol.md#logo).
//     Source: Logo (optional): 200 with image/svg+xml, 204 without a logo,
//     or 302 to the logo; without a logo or on an error the default logo is
//     used.
//   - transport.slow (warning): answers come within the slow-answer bound
//     (docs/protocol.md#timeouts-and-limits).
//     Source: The protocol sets no time limits; the bound is the suite's.
//   - webhooks.delete (failure): webhook delete answers 200 or 204, or an
//     error status (docs/protocol.md#webhooks).
//     Source: Webhooks: delete answers 200 or 204 when deleted, otherwise
//     an error status with {message}.
//   - webhooks.install (failure): webhook install answers an object with an
//     id (docs/protocol.md#webhooks).
//     Source: Webhooks: install answers an object with a required id and
//     optional events (an array of strings).
//   - webhooks.refused (warning): the webhook is installed and deleted
//     again, not refused (docs/protocol.md#webhooks).
//     Source: appkit's check: the protocol lets install and delete fail
//     with an error status (the suite's target address is not reachable).
//   - webhooks.transform (failure): webhook transform answers {data: {type:
//     [items]}} with __syncAction (docs/protocol.md#webhooks).
//     Source: Webhooks: transform answers {data: {<type id>: [items]}},
//     every item with an id and __syncAction.
//   - webhooks.verify (failure): webhook verify answers {id} or an error
//     (docs/protocol.md#webhooks).
//     Source: Webhooks: verify answers {id} of the webhook for a valid
//     event, an error status with {message} otherwise.
package conformance
