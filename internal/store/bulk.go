package store

import (
	"database/sql"
	"fmt"
	"strconv"

	"github.com/google/uuid"
)

// The bulk write path of the sync engine: many entities of one type per
// statement, with ids chosen by the caller (so that relations can point at
// entities that arrive later), public ids handed out in one counter update,
// and rich-text documents created for new entities. Values are already
// converted to column values (ScalarArg, RangeArgs) and are bound, never
// spliced.

// BulkRow is one entity of [Tx.BulkUpsert]: its platform/id and one value per
// field of the call, in order. A range field takes a [2]any (start, end); a
// to-one relation field the target's platform/id (its existence is not
// checked: see [Tx.DanglingRefs]) or nil.
type BulkRow struct {
	// ID is the entity's platform/id (a uuid).
	ID string
	// Values holds the column values, one per field of the call.
	Values []any
}

// bulkChunk bounds the rows of one statement (SQLite allows 32766 bound
// values; PostgreSQL 65535).
func bulkChunk(cols int) int {
	n := 30000 / (cols + 1)
	if n > 1000 {
		n = 1000
	}
	if n < 1 {
		n = 1
	}
	return n
}

// BulkUpsert creates or updates the rows in entities of the type: the given
// fields are written, other fields keep their values (a new entity gets its
// public id, creation date, and one empty document per rich-text field).
// Fields must be primitive fields or to-one relations stored on the type's
// table. It returns, per row, whether the entity was created. Rows must have
// distinct ids.
func (t *Tx) BulkUpsert(ty *Type, fields []*Field, rows []BulkRow) ([]bool, error) {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	existing, err := t.existingIDs(ty, ids)
	if err != nil {
		return nil, err
	}
	return t.BulkWrite(ty, fields, rows, existing)
}

// BulkWrite is BulkUpsert for a caller that already knows which of the rows
// exist (existing holds their ids): new rows are inserted, existing ones
// updated.
func (t *Tx) BulkWrite(ty *Type, fields []*Field, rows []BulkRow, existing map[string]bool) ([]bool, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var cols []string
	for _, f := range fields {
		switch {
		case f.Role == RolePrimitive && IsRange(f.Prim):
			s, e := f.RangeColumns()
			cols = append(cols, s, e)
		case f.Role == RolePrimitive, f.Role == RoleRelation && f.Storage == StoreColumn && !t.cat.IsRichText(f):
			cols = append(cols, f.Col)
		default:
			return nil, fmt.Errorf("store: bulk write of field %s (%s, %s) is not supported", f.Name, f.Role, f.Storage)
		}
	}
	for _, r := range rows {
		if len(r.Values) != len(fields) {
			return nil, fmt.Errorf("store: bulk row %s has %d values for %d fields", r.ID, len(r.Values), len(fields))
		}
	}
	created := make([]bool, len(rows))
	var newRows, oldRows []int
	for i, r := range rows {
		if existing[r.ID] {
			oldRows = append(oldRows, i)
		} else {
			created[i] = true
			newRows = append(newRows, i)
		}
	}
	var docFields []*Field
	for _, f := range ty.Fields {
		if f.Role == RoleRelation && f.Storage == StoreColumn && t.cat.IsRichText(f) {
			docFields = append(docFields, f)
		}
	}
	decimal := make([]bool, len(fields))
	for k, f := range fields {
		decimal[k] = f.Role == RolePrimitive && f.Prim == TDecimal
	}
	ms := t.now.UnixMilli()
	// values appends one row's column values.
	values := func(args []any, r BulkRow) []any {
		for k, v := range r.Values {
			rv, isRange := v.([2]any)
			text, isText := v.(string)
			switch {
			case isRange:
				args = append(args, rv[0], rv[1])
			case IsRange(fields[k].Prim) && fields[k].Role == RolePrimitive:
				args = append(args, nil, nil) // an empty range
			case decimal[k] && isText:
				args = append(args, t.s.drv.decimalArg(text))
			default:
				args = append(args, v)
			}
		}
		return args
	}
	// New entities: public ids, documents, then the engine's fastest insert.
	if len(newRows) > 0 {
		first, err := t.reservePublicIDs(ty.ID, len(newRows))
		if err != nil {
			return nil, err
		}
		docs := make([]string, 0, len(newRows)*len(docFields))
		for range len(newRows) * len(docFields) {
			docs = append(docs, NewEntityID())
		}
		if err := t.createDocuments(docs); err != nil {
			return nil, err
		}
		all := append([]string{"id", "public_id", "created", "modified"}, cols...)
		for _, f := range docFields {
			all = append(all, f.Col)
		}
		err = t.s.drv.insertRows(t, ty.Table, all, len(newRows), func(n int, args []any) []any {
			r := rows[newRows[n]]
			args = append(args, r.ID, strconv.FormatInt(first+int64(n), 10), ms, ms)
			args = values(args, r)
			for k := range docFields {
				args = append(args, docs[n*len(docFields)+k])
			}
			return args
		})
		if err != nil {
			return nil, fmt.Errorf("store: bulk insert into %s: %w", ty.Name, err)
		}
	}
	// Existing entities: an upsert that always updates.
	if len(oldRows) > 0 {
		all := append([]string{"id", "created", "modified"}, cols...)
		err := t.s.drv.upsertRows(t, ty.Table, all, len(oldRows), func(n int, args []any) []any {
			r := rows[oldRows[n]]
			args = append(args, r.ID, ms, ms)
			return values(args, r)
		})
		if err != nil {
			return nil, fmt.Errorf("store: bulk update of %s: %w", ty.Name, err)
		}
	}
	return created, nil
}

// existingIDs returns which of ids exist in the type's table.
func (t *Tx) existingIDs(ty *Type, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	err := t.queryKeys("SELECT id, id FROM "+ty.Table+" WHERE %s", "id", ids, func(k, _ string) { out[k] = true })
	if err != nil {
		return nil, fmt.Errorf("store: lookup ids of %s: %w", ty.Name, err)
	}
	return out, nil
}

// queryKeys runs a two-column query over keys: its %s takes the engine's
// test of expr against a list of keys (in chunks, where the engine bounds
// the placeholders of a statement). It calls row for each row whose
// columns are both set.
func (t *Tx) queryKeys(query, expr string, keys []string, row func(k, v string)) error {
	return t.queryEachKeys(query, expr, nil, keys, func(rows *sql.Rows) error {
		var k, v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		if k.Valid && v.Valid {
			row(k.String, v.String)
		}
		return nil
	})
}

// queryEachKeys runs a query over keys in chunks, as queryKeys does, with
// lead bound before the keys (for the placeholders ahead of the %s), and
// calls scan for each row.
func (t *Tx) queryEachKeys(query, expr string, lead []any, keys []string, scan func(*sql.Rows) error) error {
	per := t.s.drv.keysPerQuery()
	for lo := 0; lo < len(keys); lo += per {
		hi := min(lo+per, len(keys))
		cond, keyArgs := t.s.drv.keysIn(expr, keys[lo:hi])
		args := append(append(make([]any, 0, len(lead)+len(keyArgs)), lead...), keyArgs...)
		if err := t.queryRows(fmt.Sprintf(query, cond), args, scan); err != nil {
			return err
		}
	}
	return nil
}

// queryRows runs a query (placeholders ?) and calls scan for each row. A
// text the transaction runs a second time runs as t.stmt's statement (on
// SQLite prepared once for the rest of the transaction: a sync's lookups
// repeat one text for every page, which SQLite would parse each time); the
// first time it runs as it is, so that a transaction that runs it once
// (most of the command API's) pays no prepared statement's bookkeeping.
func (t *Tx) queryRows(query string, args []any, scan func(*sql.Rows) error) error {
	var st statement = unprepared{t.tx, t.s.dialect.Rebind(query)}
	if t.queried[query] {
		var err error
		if st, err = t.stmt(query); err != nil {
			return err
		}
	} else {
		if t.queried == nil {
			t.queried = map[string]bool{}
		}
		t.queried[query] = true
	}
	rows, err := st.QueryContext(t.ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// reservePublicIDs hands out n consecutive public ids and returns the first.
// The first reservation of a type in the transaction moves its counter row
// by n in one statement.
func (t *Tx) reservePublicIDs(typeID string, n int) (int64, error) {
	if _, ok := t.counters[typeID]; ok || n < 1 {
		first, err := t.nextPublicID(typeID)
		if err != nil {
			return 0, err
		}
		f, _ := strconv.ParseInt(first, 10, 64)
		t.counters[typeID] += int64(n - 1)
		return f, nil
	}
	st, err := t.stmt("UPDATE catalog_counters SET next = next + ? WHERE type_id = ? RETURNING next")
	if err != nil {
		return 0, err
	}
	var last int64
	if err := st.QueryRowContext(t.ctx, int64(n), typeID).Scan(&last); err != nil {
		return 0, fmt.Errorf("store: public id counter: %w", err)
	}
	if t.counters == nil {
		t.counters = map[string]int64{}
	}
	t.counters[typeID] = last
	t.storeCounter(typeID, last)
	return last - int64(n) + 1, nil
}

// createDocuments inserts empty rich-text document entities with these ids.
func (t *Tx) createDocuments(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	dt := t.cat.Type(DocumentType)
	sf := dt.Field(DocumentSecret)
	first, err := t.reservePublicIDs(dt.ID, len(ids))
	if err != nil {
		return err
	}
	ms := t.now.UnixMilli()
	cols := []string{"id", "public_id", "created", "modified", sf.Col}
	err = t.s.drv.insertRows(t, dt.Table, cols, len(ids), func(n int, args []any) []any {
		return append(args, ids[n], strconv.FormatInt(first+int64(n), 10), ms, ms, newSecret())
	})
	if err != nil {
		return fmt.Errorf("store: create documents: %w", err)
	}
	return nil
}

// DocumentSecrets returns the document secret of a rich-text field for each
// of the entities (entities without a document are left out).
func (t *Tx) DocumentSecrets(ty *Type, f *Field, ids []string) (map[string]string, error) {
	if !t.cat.IsRichText(f) || f.Storage != StoreColumn {
		return nil, fmt.Errorf("store: field %s is not a rich-text field", f.Name)
	}
	dt := t.cat.Type(DocumentType)
	sf := dt.Field(DocumentSecret)
	out := make(map[string]string, len(ids))
	err := t.queryKeys("SELECT x.id, d."+sf.Col+" FROM "+ty.Table+" x JOIN "+dt.Table+" d ON d.id = x."+f.Col+" WHERE %s", "x.id", ids,
		func(k, v string) { out[k] = v })
	if err != nil {
		return nil, fmt.Errorf("store: document secrets: %w", err)
	}
	return out, nil
}

// PutDocuments writes document contents (markdown by secret) inside the
// transaction, into the table the host's documents service reads
// (host_documents: secret, content, updated_at), so that a page of entities
// and their documents commit together. Secrets are stored in lower case; a
// content with a NUL character is refused (entity.error/invalid-value).
func (t *Tx) PutDocuments(contents map[string]string) error {
	ms := t.now.UnixMilli()
	for secret, md := range contents {
		u, err := uuid.Parse(secret)
		if err != nil || len(secret) != 36 {
			return Errorf(NameInvalidValue, nil, "document secret %q is not a uuid", secret)
		}
		secret = u.String() // secrets are stored in lower case
		if _, err := t.exec("INSERT INTO host_documents (secret, content, updated_at) VALUES (?, ?, ?) "+
			"ON CONFLICT (secret) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at", secret, md, ms); err != nil {
			return fmt.Errorf("store: write document: %w", err)
		}
	}
	return nil
}

// SetLinks replaces the targets of a collection field stored in a link table
// for each holder entity in links (holder id -> target ids).
func (t *Tx) SetLinks(f *Field, links map[string][]string) error {
	if f.Role != RoleRelation || f.Storage != StoreLink {
		return fmt.Errorf("store: field %s is not stored in a link table", f.Name)
	}
	self, other := f.LinkSide, "b"
	if self == "b" {
		other = "a"
	}
	for holder, targets := range links {
		if _, err := t.exec("DELETE FROM "+f.Link+" WHERE "+self+" = ?", holder); err != nil {
			return err
		}
		for _, target := range targets {
			if _, err := t.exec("INSERT INTO "+f.Link+" ("+self+", "+other+") VALUES (?, ?) ON CONFLICT DO NOTHING", holder, target); err != nil {
				return err
			}
		}
	}
	return nil
}

// Dangling is a reference to an entity that does not exist.
type Dangling struct {
	// ID is the platform/id of the entity holding the reference.
	ID string
	// Target is the platform/id it points at.
	Target string
}

// ClearDanglingRefs removes the references of a relation field (to-one
// column or link table) that point at entities that do not exist, and
// returns them (at most limit; all are cleared).
func (t *Tx) ClearDanglingRefs(f *Field, limit int) ([]Dangling, error) {
	ty := t.cat.Holder(f)
	target := t.cat.Target(f)
	if ty == nil || target == nil {
		return nil, fmt.Errorf("store: field %s is not a relation", f.Name)
	}
	var probe, q, del string
	switch f.Storage {
	case StoreColumn:
		probe = "SELECT DISTINCT " + f.Col + " AS t FROM " + ty.Table + " WHERE " + f.Col + " IS NOT NULL"
		q = "SELECT x.id, x." + f.Col + " FROM " + ty.Table + " x WHERE x." + f.Col + " IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " + target.Table + " y WHERE y.id = x." + f.Col + ")"
		del = "UPDATE " + ty.Table + " SET " + f.Col + " = NULL WHERE " + f.Col + " IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " + target.Table + " y WHERE y.id = " + ty.Table + "." + f.Col + ")"
	case StoreLink:
		other := "b"
		if f.LinkSide == "b" {
			other = "a"
		}
		probe = "SELECT DISTINCT " + other + " AS t FROM " + f.Link
		q = "SELECT l." + f.LinkSide + ", l." + other + " FROM " + f.Link + " l WHERE NOT EXISTS (SELECT 1 FROM " + target.Table + " y WHERE y.id = l." + other + ")"
		del = "DELETE FROM " + f.Link + " WHERE NOT EXISTS (SELECT 1 FROM " + target.Table + " y WHERE y.id = " + f.Link + "." + other + ")"
	default:
		return nil, nil
	}
	// First whether any target is missing at all, over the distinct
	// targets (read from the field's index): a run mostly leaves none, and
	// testing each reference probed the target's table once per entity.
	var missing int
	err := t.tx.QueryRowContext(t.ctx, "SELECT COUNT(*) FROM (SELECT 1 FROM ("+probe+") d WHERE NOT EXISTS (SELECT 1 FROM "+target.Table+" y WHERE y.id = d.t) LIMIT 1) m").Scan(&missing)
	if err != nil {
		return nil, fmt.Errorf("store: dangling references: %w", err)
	}
	if missing == 0 {
		return nil, nil
	}
	rows, err := t.tx.QueryContext(t.ctx, q+" LIMIT "+strconv.Itoa(limit))
	if err != nil {
		return nil, fmt.Errorf("store: dangling references: %w", err)
	}
	var out []Dangling
	for rows.Next() {
		var d Dangling
		if err := rows.Scan(&d.ID, &d.Target); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: dangling references: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("store: dangling references: %w", err)
	}
	if len(out) > 0 {
		if err := t.ddl(del); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// IDsWhereBelow returns the ids of the type's entities whose int field f is
// below v (or empty): the entities a full synchronization did not deliver,
// when f holds the run that last wrote each entity and v is the run the
// synchronization began in (it may span runs).
func (t *Tx) IDsWhereBelow(ty *Type, f *Field, v int64) ([]string, error) {
	if f.Role != RolePrimitive || f.Prim != TInt {
		return nil, fmt.Errorf("store: field %s is not an int field", f.Name)
	}
	rows, err := t.tx.QueryContext(t.ctx, t.s.dialect.Rebind("SELECT id FROM "+ty.Table+" WHERE "+f.Col+" IS NULL OR "+f.Col+" < ?"), v)
	if err != nil {
		return nil, fmt.Errorf("store: stale entities of %s: %w", ty.Name, err)
	}
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: stale entities of %s: %w", ty.Name, err)
		}
		out = append(out, id)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("store: stale entities of %s: %w", ty.Name, err)
	}
	return out, nil
}

// TextValues returns the value of the text field f for each of the entities
// that have one.
func (t *Tx) TextValues(ty *Type, f *Field, ids []string) (map[string]string, error) {
	if f.Role != RolePrimitive || f.Prim != TText {
		return nil, fmt.Errorf("store: field %s is not a text field", f.Name)
	}
	out := make(map[string]string, len(ids))
	err := t.queryKeys("SELECT id, "+f.Col+" FROM "+ty.Table+" WHERE "+f.Col+" IS NOT NULL AND %s", "id", ids, func(k, v string) { out[k] = v })
	if err != nil {
		return nil, fmt.Errorf("store: lookup: %w", err)
	}
	return out, nil
}

// IDsByValue finds entities of the type by the value of a primitive field:
// it returns, for each value that some entity holds, the id of one of them
// (values are compared as text).
func (t *Tx) IDsByValue(ty *Type, f *Field, values []string) (map[string]string, error) {
	if f.Role != RolePrimitive || IsRange(f.Prim) {
		return nil, fmt.Errorf("store: field %s cannot be looked up by value", f.Name)
	}
	out := make(map[string]string, len(values))
	err := t.queryKeys("SELECT CAST("+f.Col+" AS TEXT), id FROM "+ty.Table+" WHERE %s", "CAST("+f.Col+" AS TEXT)", values, func(k, v string) { out[k] = v })
	if err != nil {
		return nil, fmt.Errorf("store: lookup: %w", err)
	}
	return out, nil
}

// EnsureEnumOptions creates the options (id -> name) of an enum type that do
// not exist yet; existing options keep their names.
func (t *Tx) EnsureEnumOptions(enum *Type, options map[string]string) error {
	if enum.Kind != KindEnum {
		return fmt.Errorf("store: type %s is not an enum", enum.Name)
	}
	ids := make([]string, 0, len(options))
	for id := range options {
		ids = append(ids, id)
	}
	existing, err := t.existingIDs(enum, ids)
	if err != nil {
		return err
	}
	nameF, rankF := enum.Field("enum/name"), enum.Field("platform/rank")
	var rows []BulkRow
	for _, id := range sortedStrings(ids) {
		if !existing[id] {
			rows = append(rows, BulkRow{ID: id, Values: []any{options[id], nil}})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	var maxRank int64
	if err := t.tx.QueryRowContext(t.ctx, "SELECT COALESCE(MAX("+rankF.Col+"), 0) FROM "+enum.Table).Scan(&maxRank); err != nil {
		return fmt.Errorf("store: enum rank: %w", err)
	}
	for i := range rows {
		maxRank++
		rows[i].Values[1] = maxRank
	}
	_, err = t.BulkUpsert(enum, []*Field{nameF, rankF}, rows)
	return err
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// SyncState returns the sync engine's saved state under key (nil when none).
func (t *Tx) SyncState(key string) ([]byte, error) {
	rows, err := t.tx.QueryContext(t.ctx, t.s.dialect.Rebind("SELECT doc FROM sync_state WHERE key = ?"), key)
	if err != nil {
		return nil, fmt.Errorf("store: read sync state: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	var doc string
	if err := rows.Scan(&doc); err != nil {
		return nil, fmt.Errorf("store: read sync state: %w", err)
	}
	return []byte(doc), nil
}

// SaveSyncState stores the sync engine's state under key, in the
// transaction (so that a page of data and the position after it commit
// together).
func (t *Tx) SaveSyncState(key string, doc []byte) error {
	_, err := t.exec("INSERT INTO sync_state (key, doc, updated_at) VALUES (?, ?, ?) "+
		"ON CONFLICT (key) DO UPDATE SET doc = excluded.doc, updated_at = excluded.updated_at", key, string(doc), t.now.UnixMilli())
	return err
}
