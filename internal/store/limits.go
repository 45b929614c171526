package store

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
)

// MaxTypeColumns bounds the columns of one type's table on both engines:
// the four built-in columns, one per primitive field (two per range field)
// and one per to-one relation or single-select or rich-text field kept on
// the type's table. Collections and the reverse side of a to-one pair take
// none. SQLite stops at 2,000 columns and PostgreSQL at 1,600 (columns once
// dropped still count there), so the same limit holds everywhere, and a
// schema built on one engine can be built on the other. A field past the
// limit is refused with schema.error/too-many-fields; on PostgreSQL so is a
// field that would take the table, dropped columns included, past 1,600.
const MaxTypeColumns = 1000

// postgresMaxColumns is PostgreSQL's limit of columns per table, dropped
// ones included.
const postgresMaxColumns = 1600

// columns counts the columns of ty's table as the catalog knows them.
func (ty *Type) columns() int {
	n := 0
	for _, f := range ty.Fields {
		switch {
		case f.Role == RolePrimitive && IsRange(f.Prim):
			n += 2
		case f.Role == RolePrimitive:
			n++
		case f.Role == RoleRelation && f.Storage == StoreColumn:
			n++
		case f.Role != RoleRelation:
			n++ // built-in columns
		}
	}
	return n
}

// roomForColumns refuses, with NameTooManyFields, a field that would add
// need columns to ty's table past the limits.
func (t *Tx) roomForColumns(ty *Type, field string, need int) error {
	have := ty.columns()
	if have+need > MaxTypeColumns {
		return Errorf(NameTooManyFields, map[string]any{"type": ty.Name, "field": field, "columns": have, "max": MaxTypeColumns},
			"type %s has %d columns; field %s would take it past %d (a range field takes two)", ty.Name, have, field, MaxTypeColumns)
	}
	attrs, limit, err := t.s.drv.usedColumns(t, ty.Table)
	if err != nil {
		return fmt.Errorf("store: count columns of %s: %w", ty.Name, err)
	}
	if limit > 0 && attrs+need > limit {
		return Errorf(NameTooManyFields, map[string]any{"type": ty.Name, "field": field, "columns": attrs, "max": limit},
			"type %s has used %d of the database's %d columns per table (deleted fields still count); field %s does not fit", ty.Name, attrs, limit, field)
	}
	return nil
}

// checkText refuses text the engines do not store alike: PostgreSQL
// refuses a NUL character and invalid UTF-8 that SQLite would keep.
func checkText(name, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return invalid(name, "text must not contain a NUL character (U+0000)")
	}
	if !utf8.ValidString(s) {
		return invalid(name, "text must be valid UTF-8")
	}
	return nil
}

// CheckText reports, as entity.error/invalid-value naming the field, a string
// the store refuses in a text value: one with a NUL character (U+0000) or
// invalid UTF-8. Callers binding strings of their own (query parameters)
// use it to refuse them alike on both engines.
func CheckText(name, s string) error { return checkText(name, s) }

// checkArgs is the last guard before a statement runs: a string argument
// that no value check refused (bulk writes take converted values) must not
// reach the database with a NUL or invalid UTF-8.
func checkArgs(args []any) error {
	for _, a := range args {
		if s, ok := a.(string); ok {
			if err := checkText("value", s); err != nil {
				return err
			}
		}
	}
	return nil
}

// clientError names the database errors a client's data causes (on
// PostgreSQL: bytes the encoding refuses, a row too large for a page) and
// passes other errors on.
func clientError(err error) error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err
	}
	switch pg.Code {
	case "22021": // character_not_in_repertoire
		return Errorf(NameInvalidValue, nil, "a text value holds a character the database cannot store (NUL or invalid UTF-8)")
	case "54000": // program_limit_exceeded: row is too big
		if strings.Contains(pg.Message, "row is too big") {
			return Errorf(NameInvalidValue, nil, "the entity's values are too large for one row; store less in its fields")
		}
	}
	return err
}
