package sqlsync

import (
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/appkitgo/appkit/appkit"
)

// MaxCellBytes bounds one text value; a longer one is cut (at a character
// boundary) and ends with "…".
const MaxCellBytes = 16 << 10

// kind is how a column's values are sent.
type kind int

const (
	kText kind = iota
	kID
	kInteger
	kNumber
	kBool
	kDay
	kTime
)

// resultColumn is a column of a query's result as the database describes
// it: its name and its type's name (PostgreSQL's as pgx reports them,
// SQLite's as declared, empty for an expression).
type resultColumn struct {
	name, dbType string
}

// column is one result column: its field id and kind.
type column struct {
	id   string
	kind kind
}

var columnName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// kindOf maps a database type name (PostgreSQL's as pgx reports them,
// SQLite's as declared) to a kind; anything unknown is text.
func kindOf(dbType string) kind {
	t := strings.ToUpper(strings.TrimSpace(dbType))
	if i := strings.IndexByte(t, '('); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	switch t {
	case "INT", "INTEGER", "INT2", "INT4", "INT8", "SMALLINT", "BIGINT", "TINYINT", "MEDIUMINT", "SERIAL", "BIGSERIAL":
		return kInteger
	case "REAL", "FLOAT", "FLOAT4", "FLOAT8", "DOUBLE", "DOUBLE PRECISION", "NUMERIC", "DECIMAL":
		return kNumber
	case "BOOL", "BOOLEAN":
		return kBool
	case "DATE":
		return kDay
	case "TIMESTAMP", "TIMESTAMPTZ", "DATETIME", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP WITHOUT TIME ZONE":
		return kTime
	}
	return kText
}

// inferColumns turns result columns into the type's schema: a column's
// name is its field id (so it must be a plain identifier: rename others
// with AS), "id" is the identity and "name" the item's title, both
// required, and the database type gives the field's kind.
func inferColumns(cts []resultColumn) ([]appkit.Field, []column, error) {
	var fields []appkit.Field
	var cols []column
	seen := map[string]bool{}
	for i, ct := range cts {
		id := ct.name
		switch {
		case !columnName.MatchString(id):
			return nil, nil, appkit.BadRequest("query: column %d is named %q: give it a plain name with AS (letters, digits and _, not starting with a digit)", i+1, id)
		case strings.HasPrefix(id, "__"):
			return nil, nil, appkit.BadRequest("query: column %q: names starting with __ are reserved", id)
		case seen[id]:
			return nil, nil, appkit.BadRequest("query: two columns are named %q: rename one with AS", id)
		}
		seen[id] = true
		k := kindOf(ct.dbType)
		name := words(id)
		var f appkit.Field
		switch {
		case id == "id":
			k, f = kID, appkit.ID()
		case k == kInteger:
			f = appkit.Integer(id, name)
		case k == kNumber:
			f = appkit.Number(id, name)
		case k == kBool:
			f = appkit.Bool(id, name)
		case k == kDay:
			f = appkit.DayField(id, name)
		case k == kTime:
			f = appkit.DateTimeField(id, name)
		default:
			k, f = kText, appkit.Text(id, name)
		}
		fields = append(fields, f.At(i+1).ReadOnly())
		cols = append(cols, column{id: id, kind: k})
	}
	if !seen["id"] {
		return nil, nil, appkit.BadRequest("query: no column is named id: select the rows' identity AS id")
	}
	if !seen["name"] {
		return nil, nil, appkit.BadRequest("query: no column is named name: select the rows' title AS name")
	}
	return fields, cols, nil
}

// words turns a column name into a display name: "due_date" → "Due date".
func words(id string) string {
	s := strings.ToLower(strings.Trim(strings.ReplaceAll(id, "_", " "), " "))
	if s == "" {
		return id
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// item converts one scanned row into an item: each value in its column's
// wire form, NULLs left out. A NULL or empty id is refused.
func item(cols []column, vals []any, row int) (appkit.Item, error) {
	it := make(appkit.Item, len(cols))
	for i, c := range cols {
		v := vals[i]
		if v == nil {
			if c.kind == kID {
				return nil, appkit.BadRequest("query: row %d has a NULL id", row)
			}
			continue
		}
		w, err := convert(c.kind, v)
		if err != nil {
			return nil, appkit.BadRequest("query: row %d, column %s: %v", row, c.id, err)
		}
		if c.kind == kID && w == "" {
			return nil, appkit.BadRequest("query: row %d has an empty id", row)
		}
		if w != nil {
			it[c.id] = w
		}
	}
	return it, nil
}

// convert returns v (as database/sql scans it into an any: int64,
// float64, bool, []byte, string, time.Time) in the wire form of kind k;
// nil for a value that has none (a NaN).
func convert(k kind, v any) (any, error) {
	if b, ok := v.([]byte); ok {
		if !utf8.Valid(b) {
			if k == kText || k == kID {
				return clip(`\x` + hex.EncodeToString(b)), nil
			}
			return nil, fmt.Errorf("binary data is not a %s", kindName(k))
		}
		v = string(b)
	}
	switch k {
	case kText, kID:
		switch x := v.(type) {
		case string:
			return clip(x), nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		case bool:
			return strconv.FormatBool(x), nil
		case time.Time:
			return x.Format(time.RFC3339Nano), nil
		}
		return clip(fmt.Sprint(v)), nil
	case kInteger, kNumber:
		var f float64
		switch x := v.(type) {
		case int64:
			if k == kInteger {
				return x, nil
			}
			return float64(x), nil
		case float64:
			f = x
		case bool:
			if x {
				f = 1
			}
		case string:
			p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a number", clip(x))
			}
			f = p
		default:
			return nil, fmt.Errorf("a %T is not a number", v)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nil
		}
		if k == kInteger {
			if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return nil, fmt.Errorf("%v is not a whole number", f)
			}
			return int64(f), nil
		}
		return f, nil
	case kBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			return x != 0, nil
		case float64:
			return x != 0, nil
		case string:
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "t", "true", "1", "yes", "y", "on":
				return true, nil
			case "f", "false", "0", "no", "n", "off":
				return false, nil
			}
			return nil, fmt.Errorf("%q is not a yes/no value", clip(x))
		}
		return nil, fmt.Errorf("a %T is not a yes/no value", v)
	case kDay, kTime:
		t, err := timeOf(v)
		if err != nil {
			return nil, err
		}
		if k == kDay {
			return appkit.DayOf(t), nil
		}
		return t.UTC(), nil
	}
	return nil, fmt.Errorf("unknown kind %d", k)
}

// timeLayouts are the text forms of dates and times both databases use.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", time.DateOnly}

func timeOf(v any) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x, nil
	case string:
		for _, l := range timeLayouts {
			if t, err := time.Parse(l, strings.TrimSpace(x)); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("%q is not a date", clip(x))
	case int64:
		return time.Unix(x, 0).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("a %T is not a date", v)
}

func kindName(k kind) string {
	return [...]string{"text", "id", "whole number", "number", "yes/no value", "day", "date-time"}[k]
}

// clip cuts s to MaxCellBytes at a character boundary.
func clip(s string) string {
	if len(s) <= MaxCellBytes {
		return s
	}
	cut := MaxCellBytes - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
