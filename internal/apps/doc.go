// Package apps is the workspace host's apps service: the apps registered by
// URL, their accounts (secrets encrypted at rest), the synchronizations of
// an app with their types, filter and schedule, the run history, the
// scheduler that shares runs among host processes through leases in the
// database, webhooks, actions and the OAuth set-up of accounts.
//
// Everything drives the one synchronization engine, internal/syncer: a run is
// syncer.Run with the account decrypted for the run, and a webhook event's
// changes go through sync.ApplyChanges.
//
// # Tables
//
// The service keeps seven tables in the store's database (made by the
// store's migrations, the same statements on SQLite and PostgreSQL, times
// in Unix milliseconds):
// apps_apps (id, url, name, space, descriptor), apps_accounts (id, app,
// authentication, name, the sealed fields), apps_syncs (id, app, account,
// space, selection, schedule, the installed webhook, the run in progress,
// the lease and the cancel flag), apps_runs (the history: trigger, status, attempts, times, report,
// error, the exchanges with the app), apps_events (webhook events, keyed by
// an HMAC of their sync, webhook and payload under a key derived from
// Config.Key, so a replayed event is recorded once; events recorded before
// ids were keyed keep their plain SHA-256 ids, which are matched too while
// they are kept) and apps_oauth (pending OAuth set-ups, keyed by a hash of their
// state) and apps_actions (the action history: each run of an action with
// its rendered arguments, entity, the app's answer, duration and who ran
// it; the latest Config.KeepActionRuns per app). SQL uses bound values only.
//
// # Several syncs per app
//
// An app may have any number of syncs; each owns a space of the store (its
// types, entities and the engine's state, see syncer.Options.Space): the
// app's own space for the first, the app's space and a number ("tracker-2")
// for the next ones unless SyncSpec.Space names one. A full run removes only
// what its own space held; relations resolve within the space; webhook
// events apply to the sync's space. A space is never shared: one another
// sync owns or another app has as its own is refused (ErrConflict), and so
// is one holding data that no sync owns (types "<space>/<type>" or the
// engine's state "app:<space>", left by `appkit sync`, `appkit host
// --demo` or a removed sync or app) unless the caller adopts it
// (SyncSpec.Adopt, RegisterSpec.Adopt); registration checks the app's
// space the same way, when the app is new and when its space changes. A store made when an app had one sync
// (apps_syncs.app_id unique, no space) is migrated in place when the store
// opens (its migrations make and upgrade the service's tables): the
// uniqueness is dropped (on SQLite by copying the table into
// the current form) and the sync gets its app's space, where the engine
// already keeps its state and entities.
//
// # Secrets
//
// Account fields are one JSON object sealed with AES-256-GCM (a fresh
// nonce per write, the account id as additional data) under the key of
// Config.Key (or Config.KeyText, 32 bytes in base64 or hex; see
// [ParseKey]). The service reads no environment variable: `appkit host`
// reads APPKIT_SECRET_KEY, else the file named by APPKIT_SECRET_KEY_FILE,
// and passes the key in the Config. The API lists the keys of an account,
// never its values; exchanges kept in the run history (the latest
// KeepExchanges runs, 200 calls a run, the first 16 KiB of each body) have
// every secret value replaced by ***: the values of secret-named fields
// (token, secret, password, key, code, ...) by the field's name, in a body
// of any size, cut or not JSON (the body is scanned, not decoded), the
// account's secrets and every secret an answer brought wherever they
// appear, and the error text of a failed call too; nothing secret is
// logged. Webhook events are sealed the same way (their params and payload,
// each bound to the event's id) and opened only to be transformed; they are
// readable, secrets masked, in the exchanges of the webhook run that
// transformed them. Events stored in clear by an earlier version are still
// applied.
//
// # Configuration
//
// [New] takes a [Config]: [Config.WithDefaults] gives every unset setting
// its default (the Default* constants) and New validates the result in one
// place, refusing with an error that wraps [ErrConfig] and names every
// setting that is wrong (no store, no key or a key of the wrong size, a
// lease shorter than MinLeaseTTL, a negative poll, timeout, pause, worker
// or exchange count).
//
// # Scheduling and scale-out
//
// A sync is due when its next time has come, when "run now" asked for it,
// or when webhook events wait for it. Each host process polls for due syncs
// and leases one at a time in the database (SELECT ... FOR UPDATE SKIP
// LOCKED on PostgreSQL; a SQLite file belongs to one process, whose write
// transactions are serialized): the lease names the process and lasts
// LeaseTTL, measured with the database's clock (hosts whose clocks disagree
// agree on it), and the holder renews it every third of that. A process that
// stops renewing (killed, cut off) loses the lease when it expires; the next
// process to poll takes the sync over and continues the same run row, and
// the engine resumes the run from the last page committed, so nothing is
// lost or written twice. A holder whose renewal fails, or updates no row
// (another process took the sync over), stops its run and leaves the run
// and the lease to the new holder.
//
// A process works on up to Config.Workers syncs at once, at most
// Config.MaxRunsPerApp of one app (half of the workers by default), so an
// app whose syncs are slow delays only its own; of the due syncs, those of
// apps with no work in progress here are claimed first. One more worker
// only applies webhook events (the sync waiting longest first), so that
// runs never keep them waiting; the events of a sync whose run is in
// progress wait for it to end.
//
// # Cancelling
//
// [SyncService.CancelSync] cancels a sync's run in progress, queued or paused
// (status cancelled). A run that no process holds ends at once. A run that
// a process is running ends when that process learns of the cancel: at
// once when it is the same process, else at its next lease renewal (every
// LeaseTTL/3), which reads the cancel flag that CancelSync set in the
// sync's row (apps_syncs.cancel_run) and cancels the run's context; the
// engine stops at its next call or write. The holder then records the run
// cancelled (with the calls it made) and clears the flag before it releases the lease; a flag found
// by the next holder (the previous one died) ends the run the same way. The
// sync is due again at its next scheduled time. Deleting a sync that a
// process holds cancels its run and waits for the holder to stop (at most
// LeaseTTL and 5 s, then ErrConflict); changing its account, types or
// filter cancels the run and makes the sync due again at once. Config.Engine
// passes the engine's own bounds of a run through.
//
// # Networks
//
// The service calls apps only at addresses that Config.Networks allows
// (internal/netguard; DefaultNetworks: public, private and loopback),
// checked on the address dialled, after name resolution and on every
// redirect, for every call (registration, runs, webhooks, OAuth, actions).
// RegisterApp answers one error (wrapping ErrUnreachable) wherever no app
// answered GET / with a JSON object: nothing listening, an address outside
// the policy, a timeout, another status or content type all read the same,
// so that registration cannot scan the host's networks; the cause is
// logged.
//
// A run that pauses on errors that may pass (tryLater, 429, 5xx, timeouts)
// keeps its row and position and is resumed when the app asked (its
// Retry-After), else after PauseDelay; other failures
// end the run, and the sync is due again at its next scheduled time.
//
// Each type of a run runs on its own (see syncer.ErrPartial): a run in
// which some types failed and the others completed ends partial, its error
// naming each failed type with its reason (as its TypeReport's Status and
// Error do); the filter sent and the webhook are kept as after a success,
// the sync is due again at its next scheduled time, and that run retries
// the failed types. The report counts, per type and field, the values the
// engine converted or left empty (TypeReport.Values).
//
// # Webhooks
//
// When the app's config says webhooks.enabled, the first successful (or
// partial) run installs the webhook with the host's event URL (BaseURL +
// /api/apps/events/<sync id>) and stores the object the app answers; a
// later run whose types differ installs it again with the stored object;
// removing the sync deletes it at the app. An event posted to the URL is
// verified by the app with the bytes received, exactly (a signature covers
// them; a body that is not JSON goes as a JSON string), and verify must
// name the sync's webhook; it is recorded once
// (a replay within ReplayWindow is answered 200 and changes nothing), then
// transformed and applied with the delta rules under the sync's lease, in
// the transaction that marks it applied. Every webhook call gets the filter
// as the service sends it: install, as the run that just ended sent it to
// the data requests; transform and delete, as the last successful run sent
// it with each date statement evaluated again (its _min and _max) at the
// time of the call. Events the app cannot transform
// now stay pending, in order, and are tried again after PauseDelay; events
// it refuses (4xx) are marked refused. The history keeps KeepRuns runs per
// sync, with their exchanges for the latest KeepExchanges.
package apps
