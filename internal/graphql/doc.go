// Package graphql serves the per-space GraphQL API of the workspace host:
// a schema generated per space from the store's catalog, and an executor
// that compiles each find of an operation into one query of the host's
// query model (internal/query), so one find is one SQL statement however
// many one-to-one objects and inner lists it selects, instead of one
// resolver call per field. Parsing and validation are
// github.com/vektah/gqlparser/v2's; execution, introspection and the
// answer's encoding are this package's.
//
// # Spaces and names
//
// A space is the <app> part of the names of domain types (tracker/task is a
// database of the space tracker). Each database becomes an object type named
// after the last part of its store name in PascalCase (Task), and its
// display name (the type's ui/label meta, else the object name) names the
// find query and the mutation group, pluralized by the common English rules
// when it is ASCII: findTasks and tasks. Fields are named in camelCase after
// their ui/label (else the last part of their store name). Names are
// transliterated to ASCII (go-unidecode: "Задачи" → Zadachi), split into
// words at every character that is not a letter or digit and at case
// changes, and joined; a name that would start with a digit gets "_", an
// empty one a generic word. Clashes are settled in catalog order by
// appending 2, 3, ...: the first claimant keeps its name, so names stay
// stable while the catalog keeps its order. Field names id, publicId,
// createdAt, modifiedAt, comments, files, assignees, limit, offset, orderBy
// and data are reserved (built-in fields, and arguments beside the filter
// fields). Fields hidden by ui/hidden? (the sync engine's bookkeeping) and
// relations to types outside the space are left out.
//
// The schema of a space is rebuilt when the catalog's version changes, at
// the first request that sees the new version: types and fields created,
// renamed or deleted show up without a restart. Service.SDL prints it.
//
// Field types: int and rank are Int; decimal is Float (answered with the
// stored decimal's exact digits); bool is Boolean; text, e-mail, emoji, uuid,
// date (YYYY-MM-DD) and date-time (ISO 8601, UTC) are String; a JSON value
// is String holding its JSON text; ranges are DateRange {start, end};
// single selects are Option {id, name, rank}; entity fields are the target's
// object; collections are lists with their own filter arguments, orderBy and
// limit (all items without limit); rich text is RichText {jsonString, text,
// md, html}. Int is 64-bit here (GraphQL's Int is 32-bit; values beyond it
// are answered as they are).
//
// # Queries
//
// find<Databases>(<field filters>, orderBy, limit = 100, offset = 0)
// answers a list, or null with an error in errors. Field filters are
// input objects of operators (is, isNot, contains, notContains, greater,
// greaterOrEquals, less, lessOrEquals, in, notIn, isNull; per scalar type as
// the schema shows); several fields and several operators combine with AND.
// A one-to-one field filters through the target's fields; a list field
// takes isEmpty, contains (every condition is met by some item),
// containsAny (some condition is met by some item), notContains (not
// contains) and notContainsAny (no condition is met by any item), each a
// list of filters on the items. orderBy is one object or a list of objects
// of field → ASC/DESC (one-to-one fields nest: project: {name: ASC});
// written keys keep their order, keys of one object given in a variable
// follow the type's field order (give a list to choose). Empty values sort
// first ascending, last descending; ties end by id.
//
// Choices where the protocol is silent: "is: null" matches empty values
// and "isNot: null" the others, other operators ignore null; isNot and notIn also match empty values;
// contains is a case-insensitive substring test; limit is at most 100,000
// (the query model's result bound applies beyond: 100,000 objects or 32 MiB
// per find, and the answer's bound to all finds together); an inner list's
// limit 0 answers no items.
//
// # Mutations
//
// Each top-level mutation field is a database group,
// <databases>(<field filters>, orderBy, limit, offset) { actions }, run in
// its own transaction: when an action fails, the group's changes are rolled
// back, the group answers null and errors names the action (path [group,
// action]); other groups keep their work. The filter selects the entities
// the actions act on (at most MaxSelected without limit: page through more
// with limit, offset and orderBy). It is evaluated when the first action
// needs it; create and createBatch make the created entities the ones the
// following actions act on, delete empties the set. Actions answer
// ActionResult {message, entities {id, type}} (type is the database's
// display name), except countOfEntities (Int) and listEntities (the
// entities, as find answers them).
//
// An action may appear once per group: a second occurrence with the same
// response key is refused before anything runs, naming the batch form
// (createBatch, add<Relation>ItemBatch); aliases make distinct actions.
//
// Relations in create, update and add<Relation>Item are given as selectors
// of the target (its field filters, orderBy, limit): a one-to-one field
// takes the first match (no match is an error), a list field all matches
// (update replaces the list). Rich text is written as markdown. Text
// templates of addComment, the rich-text actions, notifications and
// attachPdfUsingTemplate fill {{field}}, {{field.sub}} (through one-to-one
// fields) and {{me.email}} per entity; an unknown reference is an error.
//
// The API keeps in tables of its own what the store has no place for:
// comments, files, assignees, creators (entities created through create)
// and notifications (see tables.go); me { notifications } reads the
// viewer's. notifyUsers takes e-mail addresses (at most MaxRecipients).
// moveToFinalState exists on databases with the workflow mixin (see
// stateField). addFileFromUrl downloads over http or https only, refuses
// loopback, private, link-local and other special addresses (checked on
// the dialled address, after DNS and on every redirect, unless
// Config.AllowPrivateURLs), follows at most 5 redirects, and bounds size
// (DefaultMaxFileBytes) and time (DefaultFetchTimeout).
// attachPdfUsingTemplate renders the filled template with go-pdf/fpdf
// (Helvetica, Latin-1).
//
// # Errors and limits
//
// Answers are the standard {"errors": [{message, locations, path,
// extensions: {code}}], "data": ...}. Parse and validation failures, bad
// variables and limits answer errors without data; failures while
// executing set the failing field to null and add an error with its path.
// Codes: GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, BAD_USER_INPUT,
// QUERY_TOO_LARGE, QUERY_TOO_DEEP, QUERY_TOO_COMPLEX, ANSWER_TOO_LARGE,
// WRITE_TOO_LARGE, TIMEOUT, the store's
// error names (query.error/invalid-param, entity.error/..., ...) and
// INTERNAL_SERVER_ERROR (the cause goes to Config.OnError, never to the
// client).
//
// Limits per request: the body (DefaultMaxBody, 1 MiB), the query text
// (DefaultMaxQueryBytes, 64 KiB; DefaultMaxTokens tokens), the nesting of one
// argument's value (MaxInputDepth, 24: filters through relations become
// nested sub-queries), and the time (DefaultTimeout, 30 s). Rate limits are
// the host's (the command API's per token and per workspace).
//
// The parsed document is bounded before it is validated (checkDocument):
// GraphQL's validation compares the fields of a selection set in pairs (the
// rule OverlappingFieldsCanBeMerged), so its time, memory and errors grow
// with the square of what these bounds keep small. The nesting of
// selections (DefaultMaxDepth, 15); the fields and fragment spreads of all
// operations and of fragments no operation uses, fragments counted at each
// use (DefaultMaxComplexity, 5000; QUERY_TOO_COMPLEX); the fields of one
// response key in one selection set, fragments expanded and the
// sub-selections of one key merged as execution merges them (MaxSameKey,
// 16); and the fragment definitions (MaxFragments, 100). Validation then
// lists at most MaxValidationErrors (100) errors and one more saying the
// others are not listed.
//
// The query model bounds each find (package query): select lists nest at
// most query.MaxSelectDepth (8) below the find's own, a filter condition
// reaches at most query.MaxPathFields (8) fields through relations (the
// paths of nested contains counted), and one result holds at most 100,000
// objects and 32 MiB; all refused before the query runs.
//
// One answer's data is at most Config.MaxAnswerBytes (query.MaxAnswerBytes,
// 32 MiB, the command API's bound), measured as its JSON: a find stops
// reading rows past what is left, the field that would cross the bound is
// null with ANSWER_TOO_LARGE, later top-level fields do not run, and a
// mutation group whose answer would cross it is rolled back.
//
// Mutations write bounded texts (WRITE_TOO_LARGE, the group rolled back):
// a template is at most MaxTemplateBytes (64 KiB) with MaxTemplateRefs (100)
// references; a filled text, a comment, a notification and a rich-text
// document after an append or prepend at most MaxTextBytes (1 MiB), a PDF's
// text MaxPdfTextBytes (64 KiB); and everything one request writes in
// texts and files, every per-entity copy counted (a comment on 1,000
// entities counts 1,000 times; the filled texts held before they are
// written too), at most Config.MaxWriteBytes (MaxWriteBytes, 32 MiB, the
// command API's body bound). A mutation group without limit acts on at most
// Config.MaxSelected (MaxSelected, 10,000) entities.
//
// Each viewer's store queries take one of its slots of Config.Gate
// (query.DefaultQueriesPerClient, 2, unless the host admitted the request
// through its own gate, shared with the command API): a viewer's slow
// queries wait behind each other and never hold every connection of the
// store.
//
// # The IDE
//
// ServeIDE serves GraphiQL 3.9.0 (with React 18.3.1), whose built files are
// embedded gzip-compressed from their npm packages (MIT; see
// graphiql/LICENSES.txt) and served by ServeAsset, so it works with no
// internet access. The page holds no data; it sends the token from its
// address's fragment (#token=..., never sent to the server) or the
// Authorization header typed in its Headers tab; #query=... preloads a
// query and #run=1 runs it.
package graphql
