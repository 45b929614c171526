package query

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/appkitgo/appkit/internal/store"
)

// Run executes the plan and shapes the rows into result objects keyed by the
// selected names. A result that would hold more than MaxRows objects (rows
// plus collection items) or encode to more than MaxBytes bytes of JSON is
// refused with NameTooLarge: before the query runs when CountSQL is set,
// otherwise as soon as a row crosses the bound.
func (p *Plan) Run(ctx context.Context, db store.Querier) ([]map[string]any, error) {
	rows, _, err := p.RunSized(ctx, db)
	return rows, err
}

// RunSized is Run that also returns the size of the result encoded as JSON
// (EncodedSize of the rows), measured while the rows were read.
func (p *Plan) RunSized(ctx context.Context, db store.Querier) ([]map[string]any, int, error) {
	rows, b, err := p.run(ctx, db)
	if err != nil {
		return nil, 0, err
	}
	return rows, b.bytes, nil
}

func (p *Plan) run(ctx context.Context, db store.Querier) ([]map[string]any, *bounds, error) {
	// A slot is for taking one of the pool's connections: a query in a
	// transaction runs on the connection the transaction holds, and waiting
	// for a slot while holding it could wait on the queries that wait for
	// that connection.
	if _, inTx := db.(*sql.Tx); !inTx {
		release, err := enter(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer release()
	}
	b := &bounds{maxRows: p.MaxRows, maxBytes: p.MaxBytes}
	if b.maxRows <= 0 {
		b.maxRows = MaxResultRows
	}
	if b.maxBytes <= 0 {
		b.maxBytes = MaxResultBytes
	}
	for i := 0; i <= len(p.steps); i++ {
		s := countStep{sql: p.CountSQL, args: p.CountArgs}
		if i < len(p.steps) {
			s = p.steps[i]
		}
		if s.sql == "" {
			continue
		}
		n, err := count(ctx, db, s.sql, s.args)
		if err != nil {
			return nil, nil, err
		}
		if n > int64(b.maxRows) {
			return nil, nil, b.rowsErr()
		}
	}
	rows, err := db.QueryContext(ctx, p.SQL, p.Args...)
	if err != nil {
		return nil, nil, fmt.Errorf("query: run: %w", err)
	}
	defer rows.Close()
	vals := make([]any, p.ncols)
	ptrs := make([]any, p.ncols)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	out := []map[string]any{}
	b.bytes = 2 // the enclosing brackets
	for rows.Next() {
		for i := range vals {
			vals[i] = nil
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, fmt.Errorf("query: scan: %w", err)
		}
		if err := b.addRows(1); err != nil {
			return nil, nil, err
		}
		pos := 0
		m, err := decodeColumns(p.shapes, vals, &pos, b)
		if err != nil {
			return nil, nil, err
		}
		n := EncodedSize(m)
		if len(out) > 0 {
			n++ // the comma
		}
		if err := b.addBytes(n); err != nil {
			return nil, nil, err
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("query: rows: %w", err)
	}
	return out, b, nil
}

// count runs CountSQL.
func count(ctx context.Context, db store.Querier, sql string, args []any) (int64, error) {
	rows, err := db.QueryContext(ctx, sql, args...)
	if err != nil {
		return 0, fmt.Errorf("query: count: %w", err)
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, fmt.Errorf("query: count: scan: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("query: count: %w", err)
	}
	return n, nil
}

// bounds tracks a result against its limits while it is read.
type bounds struct {
	maxRows, maxBytes int
	rows, bytes       int
}

func (b *bounds) rowsErr() error {
	return store.Errorf(NameTooLarge, map[string]any{"max-rows": b.maxRows},
		"the result holds more than %d rows and collection items; narrow the query or page through it with q/limit and q/offset", b.maxRows)
}

func (b *bounds) bytesErr() error {
	return store.Errorf(NameTooLarge, map[string]any{"max-bytes": b.maxBytes},
		"the result is larger than %d bytes; select fewer fields or page through it with q/limit and q/offset", b.maxBytes)
}

// addRows counts n more objects of the result.
func (b *bounds) addRows(n int) error {
	b.rows += n
	if b.rows > b.maxRows {
		return b.rowsErr()
	}
	return nil
}

// addBytes counts n more bytes of the result.
func (b *bounds) addBytes(n int) error {
	b.bytes += n
	if b.bytes > b.maxBytes {
		return b.bytesErr()
	}
	return nil
}

// fits refuses a collection's JSON read from the database before it is
// decoded when it alone would take the result past its byte bound.
func (b *bounds) fits(raw int) error {
	if b.bytes+raw > b.maxBytes {
		return b.bytesErr()
	}
	return nil
}

func decodeColumns(shapes []shape, vals []any, pos *int, b *bounds) (map[string]any, error) {
	m := make(map[string]any, len(shapes))
	for _, sh := range shapes {
		switch sh.kind {
		case shScalar:
			m[sh.key] = store.OutScalar(sh.prim, vals[*pos])
			*pos++
		case shRange:
			m[sh.key] = store.OutRange(sh.prim, vals[*pos], vals[*pos+1])
			*pos += 2
		case shRef:
			m[sh.key] = ref(vals[*pos])
			*pos++
		case shObject:
			isNull := vals[*pos] == nil
			*pos++
			sub, err := decodeColumns(sh.sub, vals, pos, b)
			if err != nil {
				return nil, err
			}
			if isNull {
				m[sh.key] = nil
			} else {
				m[sh.key] = sub
			}
		case shCollection:
			arr, err := decodeArray(sh.sub, vals[*pos], b)
			if err != nil {
				return nil, err
			}
			m[sh.key] = arr
			*pos++
		case shAggregate:
			m[sh.key] = aggValue(sh.prim, vals[*pos])
			*pos++
		}
	}
	return m, nil
}

func ref(v any) any {
	if v == nil {
		return nil
	}
	return map[string]any{"platform/id": store.OutScalar(store.TText, v)}
}

// aggValue is an aggregate's value: an average ("float") as a float64, any
// other as store.OutScalar makes a value of its primitive.
func aggValue(prim string, v any) any {
	if prim != "float" {
		return store.OutScalar(prim, v)
	}
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case json.Number:
		f, _ := x.Float64()
		return f
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return v
}

func decodeArray(shapes []shape, v any, b *bounds) ([]any, error) {
	var raw []byte
	switch x := v.(type) {
	case nil:
		return []any{}, nil
	case string:
		raw = []byte(x)
	case []byte:
		raw = x
	default:
		return nil, fmt.Errorf("query: collection column has type %T", v)
	}
	if err := b.fits(len(raw)); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var items []map[string]any
	if err := dec.Decode(&items); err != nil {
		return nil, fmt.Errorf("query: decode collection: %w", err)
	}
	if err := b.addRows(len(items)); err != nil {
		return nil, err
	}
	out := make([]any, 0, len(items))
	for _, it := range items {
		m, err := decodeObject(shapes, it, b)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func decodeObject(shapes []shape, obj map[string]any, b *bounds) (map[string]any, error) {
	m := make(map[string]any, len(shapes))
	for _, sh := range shapes {
		v := obj[sh.jkey]
		switch sh.kind {
		case shScalar:
			m[sh.key] = jsonScalar(sh.prim, v)
		case shRange:
			m[sh.key] = store.OutRange(sh.prim, v, obj[sh.jkey+"e"])
		case shRef:
			m[sh.key] = ref(v)
		case shObject:
			if v == nil {
				m[sh.key] = nil
				continue
			}
			sub, err := decodeNested(sh.sub, v, "object", b)
			if err != nil {
				return nil, err
			}
			m[sh.key] = sub
		case shCollection:
			arr, ok := v.([]any)
			if !ok && v != nil {
				return nil, fmt.Errorf("query: nested collection has type %T", v)
			}
			if err := b.addRows(len(arr)); err != nil {
				return nil, err
			}
			out := make([]any, 0, len(arr))
			for _, e := range arr {
				sub, err := decodeNested(sh.sub, e, "item", b)
				if err != nil {
					return nil, err
				}
				out = append(out, sub)
			}
			m[sh.key] = out
		case shAggregate:
			m[sh.key] = aggValue(sh.prim, v)
		}
	}
	return m, nil
}

// decodeNested decodes v, a nested object or collection item (what), with
// shapes.
func decodeNested(shapes []shape, v any, what string, b *bounds) (map[string]any, error) {
	o, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("query: nested %s has type %T", what, v)
	}
	return decodeObject(shapes, o, b)
}

// jsonScalar converts a value decoded from a JSON aggregate.
func jsonScalar(prim string, v any) any {
	if prim == store.TJSON {
		if s, ok := v.(string); ok {
			return json.RawMessage(s)
		}
		if v == nil {
			return nil
		}
		b, _ := json.Marshal(v)
		return json.RawMessage(b)
	}
	return store.OutScalar(prim, v)
}

// Exec compiles q against the store's current catalog and runs it (the
// GraphQL executor's entry point; the command API compiles itself so that
// reads inside a batch see the batch's schema).
//
// It reads through store.View: should another process have changed the
// catalog so that the query fails, it is compiled and run again once with the
// new catalog.
func Exec(ctx context.Context, st *store.Store, q *Query, params map[string]any) ([]map[string]any, error) {
	var rows []map[string]any
	err := st.View(ctx, func(cat *store.Catalog) error {
		plan, err := Compile(cat, st.Dialect(), q, params)
		if err != nil {
			return err
		}
		rows, err = plan.Run(ctx, st.DB())
		return err
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}
