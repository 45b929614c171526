package store

// The SQL of the embedded engine (modernc.org/sqlite) for the operations
// of [Dialect]. Decimals are stored as text and compared as REAL; JSON
// values are text that json() marks as JSON.

func (sqliteDialect) OffsetWithoutLimit() string { return " LIMIT -1 OFFSET " }

func (sqliteDialect) BigInt(expr string) string { return expr }

func (sqliteDialect) Float(expr string) string { return expr }

func (sqliteDialect) JSONObject(members string) string { return "json_object(" + members + ")" }

func (sqliteDialect) JSONArrayAgg(expr, orderBy string) string {
	return "json_group_array(" + expr + " ORDER BY " + orderBy + ")"
}

func (sqliteDialect) JSONValue(expr string) string { return "json(" + expr + ")" }

func (sqliteDialect) JSONText(expr string) string { return expr }

func (sqliteDialect) DecimalColumn(col string) string { return "CAST(" + col + " AS REAL)" }

func (sqliteDialect) CastDecimal(expr string) string { return "CAST(" + expr + " AS REAL)" }

func (sqliteDialect) DecimalAggregate(fn, col string) string {
	return fn + "(CAST(" + col + " AS REAL))"
}

func (sqliteDialect) DecimalZero() string { return "0" }

func (sqliteDialect) AggregatesBool() bool { return true }

func (sqliteDialect) TextPosition(haystack, needle string) string {
	return "instr(" + haystack + ", " + needle + ")"
}

// LockRows is empty: write transactions are serialized.
func (sqliteDialect) LockRows() string { return "" }

// ClaimRows is empty: write transactions are serialized.
func (sqliteDialect) ClaimRows() string { return "" }

// SharedClockSQL is empty: one process owns a database file.
func (sqliteDialect) SharedClockSQL() string { return "" }

func (sqliteDialect) BlobType() string { return "BLOB" }
