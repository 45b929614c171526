// Package commands is the workspace host's command API: POST /api/commands
// as the workspace service answers it, over internal/store (writes and
// schema) and internal/query (reads).
//
// The body is a JSON array of commands {command, args}; the answer is a JSON
// array with one {success, result} per command, in order. Each top-level
// command runs in its own transaction. platform.command/batch runs its
// commands (which may include platform.schema/batch) in one transaction: its
// result is the array of per-command {success, result}, and when one command
// fails nothing is applied and the batch fails with that command's error,
// its position in data.index. Schema DDL runs inside the same transaction.
//
// Commands: platform.schema/query, platform.schema/batch (schema.type/create,
// rename, delete; schema.field/create, rename, delete, set-meta;
// schema.enum/create), platform.command/batch, platform.app/install-mixins,
// platform.entity/query, create, update, add-collection-items,
// remove-collection-items and platform.entity/delete ({type, entity:
// {platform/id}}, result "ok").
//
// Choices the service's documentation leaves open: a type created without the
// built-in fields (platform/id, public-id, creation- and modification-date)
// gets them; platform/public-id is a per-type counter written as a string
// ("1", "2", ...); creation and modification dates may be set explicitly on
// create (imports), platform/public-id never. platform.app/install-mixins
// records mixins in the type's app/mixins meta, and platform/rank-mixin adds
// a platform/rank field. Query semantics (default order and limit, empty
// values, parameters) are documented in package query.
//
// # Limits
//
//   - Body: at most MaxBodyBytes (32 MiB); beyond, HTTP 413 with
//     request.error/too-large.
//   - Commands: at most MaxCommands (10,000) per request, counting every
//     command at every depth: each top-level command, each command inside a
//     platform.command/batch or platform.schema/batch, and the batches
//     themselves (a request holding one batch of 9,999 commands holds
//     10,000). A request over the cap is refused as a whole with
//     request.error/too-large (data "max") before any of its commands runs.
//   - Nesting: a platform.command/batch nests at most MaxBatchDepth (4)
//     deep, the top-level batch included; a deeper one fails with
//     request.error/invalid-args (data "max-depth"), its enclosing batch
//     with it, and nothing of it is applied. What a refused batch holds is
//     not counted against the cap.
//   - Answer: at most MaxAnswerBytes (query.MaxAnswerBytes, 32 MiB, the
//     bound GraphQL's answers share), measured as the JSON of the
//     answer while results are produced (a query stops as soon as its rows
//     would not fit in what is left). The command whose result would cross
//     the bound fails with request.error/too-large (data "max-bytes"); a
//     write or a batch is rolled back with it, and every later command of
//     the request fails the same way without running. Commands before it
//     keep their results.
//   - One query's result: at most 100,000 rows and collection items and
//     32 MiB (query.error/too-large; package query says how it is counted).
//   - Query syntax: filters nest at most 32 deep, select lists 8 deep
//     (query.MaxSelectDepth), paths hold at most 8 fields
//     (query.MaxPathFields), at most 16 sort keys, 10,000 values in a q/in
//     list and 30,000 bound values per query. Package query says how a
//     result whose collections nest is counted before it runs.
//   - Store queries: the host admits each request under its token's user
//     through a query.Gate shared with GraphQL; one user runs at most
//     query.DefaultQueriesPerClient (2) queries at once, more wait.
//
// # Errors
//
// A failed command answers {"success": false, "result": {"name", "message",
// "data"}}. The names are stable:
//
//	request.error/malformed          body is not a JSON array of command objects (HTTP 400 for the body)
//	request.error/too-large          body over MaxBodyBytes (HTTP 413), over MaxCommands commands, or an answer over MaxAnswerBytes
//	request.error/unknown-command    no such command (or a schema command outside platform.schema/batch)
//	request.error/invalid-args       args missing or of the wrong JSON type
//	request.error/cancelled          the client went away or the request timed out
//	entity.error/schema-type-not-found  unknown type (queries, entity and schema commands)
//	entity.error/field-not-found     unknown field
//	entity.error/invalid-value       a value of the wrong shape for the field type
//	entity.error/entity-not-found    no entity with that platform/id (also a related entity)
//	entity.error/entity-exists       create with a platform/id that exists
//	entity.error/required-value-missing  a required field left empty
//	entity.error/readonly-field      a field the store assigns (platform/public-id)
//	schema.error/type-exists, schema.error/field-exists, schema.error/invalid-name
//	schema.error/invalid-command     a schema argument the store cannot accept
//	schema.error/type-has-entities   type delete without delete-entities? while entities exist
//	schema.error/type-has-related-fields  type delete without delete-related-fields? while other types relate to it
//	schema.error/field-has-values    field delete without delete-values? while values exist
//	schema.error/builtin-protected   built-in types and fields cannot be changed
//	schema.error/too-many-fields     a type would pass the store's column limit (store.MaxTypeColumns)
//	schema.error/concurrent-change   another host process changed the schema (PostgreSQL); retry
//	query.error/invalid              a query that does not fit the query language or the schema
//	query.error/unknown-param        a $parameter missing from params
//	query.error/invalid-param        a parameter value of the wrong shape for the compared field
//	query.error/too-large            a query result over 100,000 rows and collection items or 32 MiB
//	platform.error/internal          anything else; the message is generic and carries no SQL or values
//
// # Benchmarks
//
// BenchmarkQuery compares a filtered, relation-crossing, ordered, limited
// query through the command API with the equivalent hand-written SQL on the
// same database (metric "ratio", target at most 1.5); BenchmarkCreate
// compares entity creation through command batches with raw INSERTs (metric
// "ratio" = command rate / raw rate, target at least 0.5). Sizes:
// APPKIT_BENCH_ROWS (default 1,000,000 for the query benchmark, 100,000 for
// creation; -short uses 50,000 and 10,000).
//
// Measured (2 cores, AMD EPYC, -benchtime 10x, SQLite file in WAL mode and a
// local PostgreSQL), query over 1,000,000 tasks and 1,000 projects:
//
//	BenchmarkQuery/sqlite    api 5.3 ms  SQL 4.9 ms  ratio 1.10
//	BenchmarkQuery/postgres  api 2.6 ms  SQL 2.2 ms  ratio 1.17
//	BenchmarkCreate/sqlite   12,369 entities/s vs raw 16,247  ratio 0.76
//	BenchmarkCreate/postgres  5,158 entities/s vs raw  6,509  ratio 0.79
//
// Memory stays flat: rows are shaped one at a time from the cursor,
// command batches hold only their own results, and every answer is bounded
// (see Limits).
package commands
