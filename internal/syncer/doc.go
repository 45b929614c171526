// Package syncer is the workspace host's synchronization engine: it drives a
// synchronization app the way the workspace service does and writes what the
// app delivers into the host's store.
//
// [Run] is the one entry point of a run, used by `appkit sync`, `appkit host
// --demo` and the apps service's scheduler (internal/apps); [ApplyChanges]
// writes the changes of a webhook event between runs with the same mapping
// and delta rules, and [Describe] reads a descriptor as a run does. One run:
//
//  1. registration: GET / is read and checked (an app the service could not
//     use is refused with the reason; what the service tolerates is accepted
//     with a warning) and GET /logo fetched;
//  2. account: the chosen authentication's fields are sent to /validate; the
//     fields it answers (refreshed tokens, ids) are merged into the stored
//     account, which is validated again before every run;
//  3. config, then schema of the selected types (always with a filter
//     object), the filter checked through filter/validate, list filters
//     checked against their datalist, date filters parsed with the
//     date-range grammar;
//  4. schema → store: a namespace named after the app ("tracker/task" is the
//     app's type "task"), one type per app type, fields mapped by their type
//     and subType (see mapField), relations as pairs of fields; later
//     schemas add, rename and retire fields without dropping values;
//  5. data: each selected type page by page, the app's nextPageConfig sent
//     back as pagination, one operationId for the run, lastSynchronizedAt
//     = the start of the last successful run. Each page and the position
//     after it commit in one transaction, so a run that stops (an app that
//     keeps failing, a killed process) resumes from the saved page;
//  6. end of run: entities of "full" types that the run did not deliver are
//     removed, references to entities that never arrived are cleared and
//     reported, and the run is recorded as the last successful one.
//
// Entities get fresh time-ordered platform/ids (UUIDv7: inserts append to
// the primary-key index) and are found by their app ids, kept in a hidden
// field that is a unique key of the type. A relation can be written before
// its target arrives, whatever the order of pages and types: the target's
// id is set aside (store.Tx.ReserveIDs) and the item takes it when it
// comes; one that never comes is cleared at the end of the run and
// reported. [EntityIDs] finds the entities of app ids.
//
// # Spaces
//
// The engine keeps one state per space (the app's position, mapping, last
// run and selection) and writes into that space's types only. A run goes
// into the app's own space unless Options.Space names another ([ValidSpace]):
// several synchronizations of one app (two accounts, two filters) each
// use a space of their own, so that each owns its state and its entities:
// a full run removes only what its space held and did not get now, and
// relations resolve within the space that delivered them. [ApplyChanges]
// takes the space the same way.
//
// # Failures
//
// Calls that may pass later (tryLater whatever the status, 429, 5xx,
// timeouts) are retried with exponential backoff and full jitter
// (Retry-After honoured within the bound).
//
// Each type is a unit of work (attempt.go): a type whose pages fail (an
// app that kept failing past the retry bound, a malformed page, a cursor
// or a page that repeats, a bound of the run) or whose schema the app
// refuses fails alone, with its reason in its TypeReport; the other types
// complete, and Run returns the complete Report with an error wrapping
// ErrPartial. Only completed types remove what they did not deliver. The
// next Run resumes a failed type where it failed (a type failing at the
// same page in three runs in a row, or whose paging looped, starts over),
// and its removal at the end counts what its whole attempt delivered. A
// run in which every type failed where it can resume stays in progress:
// the next Run resumes it with the same operationId, and its error wraps
// ErrPaused when every failure may pass later (the app's last *AppError
// too: its RetryAfter says when the app asked to be called again). A run
// stopped as a whole (canceled, out of time, a store error) removes
// nothing and is resumed the same way.
//
// Every delivered item is kept: a value that does not fit its field is
// converted as the service converts it (internal/pagerules, shared with
// the conformance suite) or left out, and counted per field in
// TypeReport.Values. Items that cannot be stored at all (not an object, no
// usable id) are skipped and reported in TypeReport.Problems, as are ids
// sent twice (the last wins) and relations to items that never arrive
// (left empty). A type that delivered items and stored none fails.
//
// # Limits
//
// One app may slow the host by its own share only, so the engine bounds
// what an app can make it do. A schema over a limit is refused before
// anything is written, with an error wrapping ErrLimit that names it:
// MaxTypes (200 types in one run), MaxFieldsPerType (500), MaxFields (5,000
// over the selected types) and MaxOptions (1,000 declared options of a
// select). The schema is mapped in steps of at most 32 changes, each its
// own write transaction, so that other writes (and the scheduler's lease
// renewals) go on between them; every change is idempotent, and a mapping
// stopped midway is completed by the next run.
//
// An answer is read through Options.MaxBody, counted decompressed
// (DefaultMaxBody, 64 MiB): a gzip bomb stops at the bound. Answers other
// than data pages (config, schema...), decoded whole, stop at MaxAnswer
// (16 MiB). A data page is
// decoded as it arrives, an item at a time, each converted at once into
// the values of the mapped fields; the rest of the item is dropped. A page
// costs about twice its size in memory while it is written, in batches of
// 2,000 rows.
//
// A run is bounded too: a nextPageConfig already sent in the run for the
// type (a cursor that cycles) or a page of several items whose ids are
// those of an earlier page fails the type with ErrLoop; a nextPageConfig
// over MaxCursor (64 KiB), Options.MaxPages (DefaultMaxPages, 100,000
// pages of a type, resumed runs included) and Options.MaxEmptyPages
// (DefaultMaxEmptyPages, 1,000 pages in a row without items that still say
// hasNext) fail it with ErrLimit. Such a type removes nothing and starts
// afresh at the next run. Past
// Options.MaxRunTime (DefaultMaxRunTime, 6 hours, per call of Run) the run
// stops with ErrLimit and is kept, to be resumed. Canceling the context of
// Run stops the run at once, in the middle of a call to the app, with an
// error wrapping ErrCanceled and the context's cause: nothing is removed,
// what was committed stays, and the next Run resumes it.
//
// # Speed
//
// go run ./internal/syncer/bench synchronizes N items (10 fields and a
// relation) from an appkit app over loopback into a fresh store (SQLite or
// PostgreSQL) and fills more tables of the same store with the same rows:
// raw (the same columns, indexes and kind of keys, filled with multi-row
// INSERTs), on PostgreSQL copy (the same table filled with one COPY), and
// the engine's floor (sequential keys, no secondary index, filled the
// fastest way). Each line gives items/s, the ratios to raw, copy and the
// floor, and the peak RSS; the figures and the commands are in
// docs/performance.md.
//
// Memory stays flat: one page is written at a time while the next one is
// fetched and decoded (a pipeline of two steps: a page and the position
// after it still commit together), and a batch of pages is committed every
// 20,000 items or second.
package syncer
