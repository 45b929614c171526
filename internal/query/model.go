// Package query is the host's one query model and its compiler: the command
// API (platform.entity/query) and the GraphQL API both decode into a Query,
// and Compile turns a Query plus the catalog into exactly one SQL statement for
// the store's dialect (and, when collections nest in collections, one
// counting statement run before it; see Limits), with every value a bound
// parameter and every name checked against the catalog.
//
// # Compilation
//
// To-one paths (entity, single-select and rich-text fields) become LEFT JOINs,
// one per distinct path. Collection sub-selects become correlated sub-queries
// aggregating to JSON (json_group_array/json_object on SQLite,
// json_agg/json_build_object on PostgreSQL) with generated keys, and
// aggregates become correlated grouped sub-queries, so a query is one
// statement and never one query per row.
//
// # Semantics
//
//   - Default order: creation date ascending, then platform/id ascending.
//     Every order ends with platform/id ascending as a tie-breaker, so paging
//     with q/offset is stable.
//   - Ascending order puts empty values first, descending last, on both engines.
//   - Default limit when q/limit is omitted: DefaultLimit (1000). NoLimit
//     returns every row. A collection sub-select returns all its items.
//   - "=" with an empty (null) value matches empty fields; "!=" with a value
//     also matches empty fields (empty is different from any value);
//     q/not-contains and q/not-in match empty fields too; "<", "<=", ">", ">="
//     never match empty fields.
//   - q/contains is a case-insensitive substring test (ASCII case folding on
//     SQLite), with no wildcards.
//   - A path ending at an entity or single-select field compares its
//     platform/id; the value may be a uuid string or {"platform/id": ...}.
//   - A path through a collection field means "some item matches"
//     (EXISTS); negative operators through a collection mean "no item matches
//     the positive form".
//   - Parameters are named exactly as written, a trailing "?" included
//     ("$done?" is one name, as in Clojure-style predicate names); a missing
//     parameter is query.error/unknown-param, never silently dropped.
//   - Decimals compare numerically (NUMERIC on PostgreSQL, REAL casts on SQLite).
//   - For GraphQL, beyond the command syntax: literal values (Value.Literal),
//     OpIsNull/OpIsNotNull (on a collection: empty / not empty), OpSome and
//     OpNone (an item of a collection matches a whole sub-filter), and
//     collections with their own filter, order and limit (a limited
//     collection numbers its rows with ROW_NUMBER in a derived table).
//
// # Limits
//
// One query's result holds at most MaxResultRows (100,000) objects, counting
// its rows and every item of every collection sub-select at every depth
// (to-one objects are part of their row), and its JSON encoding is at most
// MaxResultBytes (32 MiB). A query that would cross either bound is refused
// with query.error/too-large, whose data names the bound ("max-rows" or
// "max-bytes"); nothing of its result is returned. Callers may lower both
// bounds per plan (Plan.MaxRows, Plan.MaxBytes); the command API lowers the
// byte bound to what is left of a request's answer.
//
// A collection nested inside another collection's items (directly or
// through to-one objects) multiplies the result, and the database would
// build all of it before the first row arrives; such a query first runs a
// counting statement (Plan.CountSQL, the same filters, order, limits and
// offsets, aggregating counts instead of JSON) and is refused before the
// result is built when the count is over the bound. Other queries are
// counted while their rows are read: a row, or a collection's JSON as read
// from the database, that takes the result past a bound stops the query
// there. The counting runs one level of collections at a time (the rows and
// the outermost collections' items, then one level more, ...) and stops at
// the first level past the bound, so refusing a result that multiplies
// costs at most its depth times the bound, never the product of the
// collections' sizes. Compilation also bounds the values one query binds
// (MaxArgs).
//
// Compile refuses, before anything runs, select lists nested deeper than
// MaxSelectDepth (8 below the top list) and filter conditions reaching
// further than MaxPathFields (8 fields: a path's fields plus those of the
// q/some and q/none paths it sits in). Both APIs decode into a Query, so
// these are the command API's and GraphQL's bounds alike.
//
// Conditions through collections compile to sub-queries independent of the
// row tested ("id IN (SELECT owner FROM items WHERE ...)"), which the
// database evaluates once per statement: a correlated EXISTS would cost the
// product of the collections' sizes. A limited collection picks and numbers
// its items first and builds the objects of the picked ones only.
//
// MaxAnswerBytes (32 MiB) is the bound of one whole answer of either API;
// the command API and GraphQL measure their answers against it.
//
// # Admission
//
// A Gate bounds how many queries one client runs at once: Plan.Run waits
// for a slot of the client its context was admitted for (Gate.Admit; the
// host admits each request under its token's user, DefaultQueriesPerClient
// slots of 2, fewer than the smallest pool's connections), so one client's
// slow queries wait behind each other and other clients still get a
// connection. A context not admitted runs without a slot.
package query

// DefaultLimit is the number of entities returned when a query sets no limit.
const DefaultLimit = 1000

// Query is one read of entities of a type.
type Query struct {
	From   string
	Select []Select
	Where  *Filter
	Order  []Order
	// Limit is the page size; 0 with NoLimit false means DefaultLimit.
	Limit   int
	NoLimit bool
	Offset  int
}

// SelectKind tells what a Select item reads.
type SelectKind int

// Select kinds.
const (
	// SelectField reads a primitive field (or an entity field as {platform/id}).
	SelectField SelectKind = iota
	// SelectObject reads a to-one field as an object of Sub, or null.
	SelectObject
	// SelectCollection reads a collection field as an array of objects of Sub.
	SelectCollection
	// SelectAggregate reads an aggregate over a collection's target field.
	SelectAggregate
)

// Aggregate functions.
const (
	AggCount = "count"
	AggSum   = "sum"
	AggAvg   = "avg"
	AggMin   = "min"
	AggMax   = "max"
)

// Select is one item of a select list.
type Select struct {
	Kind SelectKind
	// Key is the result key (the field name, or the alias of an aggregate).
	Key string
	// Field is the field read (for aggregates: the collection field).
	Field string
	// Sub is the select list of an object or collection.
	Sub []Select
	// Where, Order and Limit optionally narrow a collection (all items when
	// Limit is 0). The command API only allows q/no-limit; GraphQL inner
	// lists take a limit.
	Where *Filter
	Order []Order
	Limit int
	// Agg and AggField are the aggregate function and the target field.
	Agg      string
	AggField string
}

// Op is a filter operator.
type Op string

// Filter operators.
const (
	OpEq          Op = "="
	OpNe          Op = "!="
	OpLt          Op = "<"
	OpLe          Op = "<="
	OpGt          Op = ">"
	OpGe          Op = ">="
	OpContains    Op = "q/contains"
	OpNotContains Op = "q/not-contains"
	OpIn          Op = "q/in"
	OpNotIn       Op = "q/not-in"
	OpAnd         Op = "q/and"
	OpOr          Op = "q/or"
	// OpIsNull and OpIsNotNull take no value (used by GraphQL isNull).
	OpIsNull    Op = "q/null"
	OpIsNotNull Op = "q/not-null"
	// OpSome and OpNone test the items of the collection at Path (reached
	// through to-one fields) against the filter Sub[0], evaluated on the
	// item: some item matches, or no item matches (GraphQL inner-list
	// contains / notContains).
	OpSome Op = "q/some"
	OpNone Op = "q/none"
)

// Part selects which part of a range field a path reads.
type Part int

// Range parts.
const (
	PartWhole Part = iota
	PartStart
	PartEnd
)

// Path is a list of field names following relations from the queried type.
type Path struct {
	Fields []string
	Part   Part
}

// Value is the right-hand side of a comparison: a named parameter or a literal.
type Value struct {
	Param   string // name without "$"; used when IsParam
	IsParam bool
	Literal any
}

// Filter is a filter expression: a comparison (Path, Value) or a
// combination (Op is OpAnd or OpOr with Sub).
type Filter struct {
	Op    Op
	Path  Path
	Value Value
	Sub   []*Filter
}

// Order is one sort key.
type Order struct {
	Path Path
	Desc bool
}
