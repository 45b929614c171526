package store

import (
	"database/sql"
	"fmt"
	"sort"
)

// Entities known by another key than their platform/id: the sync engine
// finds the entities of an app's items by the app's ids (a key field) and sets ids aside for relation targets that have not arrived yet,
// so that every entity it creates can take a fresh time-ordered id (see
// NewEntityID) instead of one derived from the app's id, which would land
// anywhere in the primary-key index.

// reservedTable holds the ids set aside by [Tx.ReserveIDs].
const reservedTable = "host_reserved_ids"

// KeyField makes the primitive field named field of type typeName a key of
// the type: its values are unique among the type's entities (empty ones
// aside) and indexed, so that [Tx.MatchByValue] on it reads a few index
// pages instead of the table, and the engine's planner knows that a value
// matches one entity at most (PostgreSQL, which has no statistics of a
// table filled in the same transaction, otherwise takes a lookup of a
// thousand values for a scan of the whole table). It is a schema change
// (the field is then Key), a no-op for a key, and fails if two entities
// hold the same value; dropping the field drops its index.
func (t *Tx) KeyField(typeName, field string) error {
	ty := t.cat.Type(typeName)
	if ty == nil {
		return Errorf(NameTypeNotFound, map[string]any{"type": typeName}, "type %s not found", typeName)
	}
	f := ty.Field(field)
	if f == nil || f.Role != RolePrimitive || IsRange(f.Prim) || t.cat.Holder(f) != ty {
		return fmt.Errorf("store: field %s of %s cannot be a key", field, typeName)
	}
	if f.Key {
		return nil
	}
	if err := t.mutable(); err != nil {
		return err
	}
	ty = t.cat.Type(typeName)
	f = ty.Field(field)
	if err := t.ddl(fmt.Sprintf("CREATE UNIQUE INDEX %s_%s ON %s (%s)", ty.Table, f.Col, ty.Table, f.Col)); err != nil {
		return err
	}
	f.Key = true
	return nil
}

// Match is an entity found by [Tx.MatchByValue]: its platform/id and the
// values of the fields asked for, in order (nil where empty; integers as
// int64, texts as string).
type Match struct {
	// ID is the entity's platform/id.
	ID string
	// Values holds the fields' values.
	Values []any
}

// MatchByValue finds the entities of ty whose text field key holds one of
// values, and reads fields of them: value -> match, for the values some
// entity holds (when several do, one of them). Values are compared exactly,
// so the index of a key (KeyField) is used.
func (t *Tx) MatchByValue(ty *Type, key *Field, values []string, fields ...*Field) (map[string]Match, error) {
	found, _, err := t.match(ty, key, values, fields, false)
	return found, err
}

// MatchOrTakeReserved is MatchByValue, and for the values with no entity
// the ids set aside for them in the scope named after ty ([Tx.ReserveIDs]),
// whose reservations it ends: the ids the entities of those values are to
// be created with. Entities and reservations are read in one statement,
// after a test of whether the scope has any reservation at all. (A
// synchronization asks it for every page.)
func (t *Tx) MatchOrTakeReserved(ty *Type, key *Field, values []string, fields ...*Field) (found map[string]Match, reserved map[string]string, err error) {
	found, reserved, err = t.match(ty, key, values, fields, true)
	if err != nil || len(reserved) == 0 {
		return found, reserved, err
	}
	taken := make([]string, 0, len(reserved))
	for k := range reserved {
		taken = append(taken, k)
	}
	if err := t.endReservations(ty.Name, taken); err != nil {
		return nil, nil, err
	}
	return found, reserved, nil
}

// match runs MatchByValue's lookup, with the reservations of the scope
// named after ty when withReserved (a value may have an entity and a
// reservation only if a concurrent writer made both: the entity wins).
func (t *Tx) match(ty *Type, key *Field, values []string, fields []*Field, withReserved bool) (map[string]Match, map[string]string, error) {
	if key.Role != RolePrimitive || key.Prim != TText || t.cat.Holder(key) != ty {
		return nil, nil, fmt.Errorf("store: field %s of %s cannot be matched by value", key.Name, ty.Name)
	}
	cols, nulls := key.Col+", id", ""
	for _, f := range fields {
		if f.Role != RolePrimitive || IsRange(f.Prim) || t.cat.Holder(f) != ty {
			return nil, nil, fmt.Errorf("store: field %s of %s cannot be read with a match", f.Name, ty.Name)
		}
		cols += ", " + f.Col
		nulls += ", NULL"
	}
	found := make(map[string]Match, len(values))
	var reserved map[string]string
	if withReserved {
		reserved = map[string]string{}
		// The keys are looked for among the reservations only when the
		// scope has any: a synchronization's pages mostly find none, and
		// probing for each key cost about a twentieth of a sync into
		// SQLite. (A reservation another writer commits between the two
		// statements is missed as one committed just after the lookup is.)
		var err error
		if withReserved, err = t.hasReservations(ty.Name); err != nil {
			return nil, nil, fmt.Errorf("store: match %s by %s: %w", ty.Name, key.Name, err)
		}
	}
	scan := func(rows *sql.Rows) error {
		var k, id string
		var isReserved int64
		vals := make([]any, len(fields))
		dest := make([]any, 0, 3+len(fields))
		dest = append(dest, &k, &id)
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if withReserved {
			dest = append(dest, &isReserved)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if isReserved == 1 {
			reserved[k] = id
			return nil
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		found[k] = Match{ID: id, Values: vals}
		return nil
	}
	per := t.s.drv.keysPerQuery()
	for lo := 0; lo < len(values); lo += per {
		chunk := values[lo:min(lo+per, len(values))]
		cond, args := t.s.drv.keysIn(key.Col, chunk)
		q := "SELECT " + cols + " FROM " + ty.Table + " WHERE " + cond
		if withReserved {
			rcond, rargs := t.s.drv.keysIn("key", chunk)
			q = "SELECT " + cols + ", 0 FROM " + ty.Table + " WHERE " + cond +
				" UNION ALL SELECT key, id" + nulls + ", 1 FROM " + reservedTable + " WHERE scope = ? AND " + rcond
			args = append(append(args, ty.Name), rargs...)
		}
		if err := t.queryRows(q, args, scan); err != nil {
			return nil, nil, fmt.Errorf("store: match %s by %s: %w", ty.Name, key.Name, err)
		}
	}
	for k := range reserved {
		if _, ok := found[k]; ok {
			delete(reserved, k)
		}
	}
	return found, reserved, nil
}

// hasReservations reports whether scope holds any reservation.
func (t *Tx) hasReservations(scope string) (bool, error) {
	has := false
	err := t.queryRows("SELECT 1 FROM "+reservedTable+" WHERE scope = ? LIMIT 1", []any{scope}, func(*sql.Rows) error {
		has = true
		return nil
	})
	return has, err
}

// ReserveIDs returns the entity ids set aside for keys in scope, setting
// aside a fresh time-ordered id (NewEntityID) for each key that has none:
// what a relation points at before its target exists. The reservation holds
// until [Tx.MatchOrTakeReserved] takes it, when the target is created with that
// id.
func (t *Tx) ReserveIDs(scope string, keys []string) (map[string]string, error) {
	out, err := t.reservedIDs(scope, keys)
	if err != nil {
		return nil, err
	}
	var fresh []string
	for _, k := range sortedStrings(keys) {
		if _, ok := out[k]; !ok {
			fresh = append(fresh, k)
			out[k] = NewEntityID()
		}
	}
	if len(fresh) == 0 {
		return out, nil
	}
	// A concurrent writer may set aside an id for the same key first: its
	// id wins, read back below.
	err = execMultiRow(t, reservedTable, []string{"scope", "key", "id"}, len(fresh), func(n int, args []any) []any {
		return append(args, scope, fresh[n], out[fresh[n]])
	}, "INSERT", " ON CONFLICT (scope, key) DO NOTHING")
	if err != nil {
		return nil, fmt.Errorf("store: reserve ids in %s: %w", scope, err)
	}
	won, err := t.reservedIDs(scope, fresh)
	if err != nil {
		return nil, err
	}
	for k, id := range won {
		out[k] = id
	}
	return out, nil
}

// endReservations deletes the reservations of keys in scope.
func (t *Tx) endReservations(scope string, keys []string) error {
	sort.Strings(keys)
	per := t.s.drv.keysPerQuery()
	for lo := 0; lo < len(keys); lo += per {
		cond, args := t.s.drv.keysIn("key", keys[lo:min(lo+per, len(keys))])
		q := t.s.dialect.Rebind("DELETE FROM " + reservedTable + " WHERE scope = ? AND " + cond)
		if _, err := t.tx.ExecContext(t.ctx, q, append([]any{scope}, args...)...); err != nil {
			return fmt.Errorf("store: take reserved ids in %s: %w", scope, err)
		}
	}
	return nil
}

// dropReservedIDs ends every reservation of scope (dropping a type ends
// those of the scope named after it).
func (t *Tx) dropReservedIDs(scope string) error {
	q := t.s.dialect.Rebind("DELETE FROM " + reservedTable + " WHERE scope = ?")
	if _, err := t.tx.ExecContext(t.ctx, q, scope); err != nil {
		return fmt.Errorf("store: drop reserved ids of %s: %w", scope, err)
	}
	return nil
}

// reservedIDs reads the reservations of keys in scope.
func (t *Tx) reservedIDs(scope string, keys []string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	err := t.queryEachKeys("SELECT key, id FROM "+reservedTable+" WHERE scope = ? AND %s", "key", []any{scope}, keys, func(rows *sql.Rows) error {
		var k, id string
		if err := rows.Scan(&k, &id); err != nil {
			return err
		}
		out[k] = id
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: read reserved ids in %s: %w", scope, err)
	}
	return out, nil
}
