package store

// The SQL of the shared engine (github.com/jackc/pgx/v5) for the
// operations of [Dialect]. Decimals are NUMERIC, read back as text so that
// no digit is lost.

func (postgresDialect) OffsetWithoutLimit() string { return " OFFSET " }

func (postgresDialect) BigInt(expr string) string { return expr + "::bigint" }

func (postgresDialect) Float(expr string) string { return expr + "::float8" }

func (postgresDialect) JSONObject(members string) string {
	return "json_build_object(" + members + ")"
}

func (postgresDialect) JSONArrayAgg(expr, orderBy string) string {
	return "COALESCE(json_agg(" + expr + " ORDER BY " + orderBy + "), '[]'::json)"
}

func (postgresDialect) JSONValue(expr string) string { return expr }

func (postgresDialect) JSONText(expr string) string { return "(" + expr + ")::text" }

func (postgresDialect) DecimalColumn(col string) string { return col }

func (postgresDialect) CastDecimal(expr string) string { return "CAST(" + expr + " AS NUMERIC)" }

func (postgresDialect) DecimalAggregate(fn, col string) string {
	return fn + "(" + col + ")::text"
}

func (postgresDialect) DecimalZero() string { return "'0'" }

// AggregatesBool is false: PostgreSQL has no MIN or MAX of boolean.
func (postgresDialect) AggregatesBool() bool { return false }

func (postgresDialect) TextPosition(haystack, needle string) string {
	return "strpos(" + haystack + ", " + needle + ")"
}

func (postgresDialect) LockRows() string { return " FOR UPDATE" }

func (postgresDialect) ClaimRows() string { return " FOR UPDATE SKIP LOCKED" }

// SharedClockSQL reads clock_timestamp(): the time of the call, not of the
// transaction's start.
func (postgresDialect) SharedClockSQL() string {
	return "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
}

func (postgresDialect) BlobType() string { return "BYTEA" }
