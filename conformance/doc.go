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
// given account, with garbage values and with an unknown authentication id,
// the OAuth authorize steps; then, for a synchronization app, config and its
// filters, every datalist (dependent lists after the lists they depend on,
// with dependsOn), filter/validate with the given filter and with a
// provoked invalid one, the schema of every type, and data for every type
// paged to the end three times: twice in full (ids unique within a run, the
// same ids in both) and once with lastSynchronizedAt. Client mistakes
// (malformed bodies, missing fields, unknown types) must be refused with an
// error status. Webhooks are installed and deleted again when the config
// announces them; actions are executed only in ways that must be refused
// (an unknown action, no arguments), so nothing runs for real.
//
// Over every answer, the suite checks content types (JSON answers are
// application/json), error bodies (a JSON {message}), per-endpoint latency
// against a slow-answer bound, and that each request is answered within a
// per-request timeout: a request that never answers fails transport.answers
// and the run goes on.
//
// # Checks and results
//
// Every check has a stable id ([Checks] lists them), cites the section of
// docs/protocol.md that states its rule, and has a severity: a [Failure] is
// what breaks the service or a rule the protocol states; a [Warning] is what
// the service tolerates (item keys outside the schema, 5xx for a client's
// mistake, a schema answered for an unknown type, slow answers). Warnings
// never make a run fail. A check runs once per subject (an endpoint, a type,
// an authentication, an action); each property is checked by one check only,
// so one broken rule fails one check id: a wrong status fails the check that
// provoked it, a wrong error body fails errors.message-body, a wrong content
// type transport.content-type.
package conformance
