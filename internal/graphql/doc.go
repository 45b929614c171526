// Package graphql serves the per-space GraphQL API of the workspace host:
// a schema generated per space from the store's catalog, and an executor
// that compiles a whole operation into the host's query model
// (internal/query) instead of resolving field by field.
//
// # Spaces and names
//
// A space is the <app> part of the names of domain types (tracker/task is a
// database of the space tracker). Each database becomes an object type named
// after the last part of its store name in PascalCase (Task), and its
// plural display name (the type's ui/label meta, else the object name
// pluralized by the common English rules) names the find query and the
// mutation group: findTasks and tasks. Fields are named in camelCase after
// their ui/label (else the last part of their store name). Names are
// transliterated to ASCII (go-unidecode: "Задачи" → Zadachi), split into
// words at every character that is not a letter or digit and at case
// changes, and joined; a name that would start with a digit gets "_", an
// empty one a generic word. Clashes are settled in catalog order by
// appending 2, 3, ...: the first claimant keeps its name, so names stay
// stable while the catalog keeps its order. Field names id, publicId,
// createdAt, modifiedAt, comments, limit, offset, orderBy and data are
// reserved (the built-in fields and the arguments beside filters). Fields
// hidden by ui/hidden? (the sync engine's bookkeeping) and relations to
// types outside the space are left out.
//
// The schema of a space is rebuilt when the catalog's version changes, on
// the first request that sees the new version: types and fields created,
// renamed or deleted show up without a restart.
package graphql
