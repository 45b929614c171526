package commands

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// Nesting limits for hostile input (MaxBatchDepth is with the other limits).
const (
	maxFilterDepth = 32
	maxSelectDepth = query.MaxSelectDepth
)

type command struct {
	Name string
	Args map[string]any
}

func decodeJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

func decodeCommand(raw json.RawMessage) (command, error) {
	var m map[string]any
	if err := decodeJSON(raw, &m); err != nil || m == nil {
		return command{}, store.Errorf(NameMalformed, nil, "a command must be an object with command and args")
	}
	return commandFromMap(m)
}

func commandFromMap(m map[string]any) (command, error) {
	name, ok := m["command"].(string)
	if !ok || name == "" {
		return command{}, store.Errorf(NameMalformed, nil, "a command must have a string field \"command\"")
	}
	c := command{Name: name}
	switch a := m["args"].(type) {
	case nil:
		c.Args = map[string]any{}
	case map[string]any:
		c.Args = a
	default:
		return command{}, store.Errorf(NameInvalidArgs, map[string]any{"command": name}, "args of %s must be an object", name)
	}
	return c, nil
}

func argErr(cmd, format string, args ...any) error {
	return store.Errorf(NameInvalidArgs, map[string]any{"command": cmd}, cmd+": "+format, args...)
}

func argString(c command, key string, required bool) (string, error) {
	v, ok := c.Args[key]
	if !ok || v == nil {
		if required {
			return "", argErr(c.Name, "missing %s", key)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", argErr(c.Name, "%s must be a string", key)
	}
	return s, nil
}

func argBool(c command, key string) (bool, error) {
	v, ok := c.Args[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, argErr(c.Name, "%s must be a boolean", key)
	}
	return b, nil
}

func argObject(c command, key string, required bool) (map[string]any, error) {
	v, ok := c.Args[key]
	if !ok || v == nil {
		if required {
			return nil, argErr(c.Name, "missing %s", key)
		}
		return map[string]any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, argErr(c.Name, "%s must be an object", key)
	}
	return m, nil
}

func argArray(c command, key string) ([]any, error) {
	v, ok := c.Args[key]
	if !ok || v == nil {
		return nil, argErr(c.Name, "missing %s", key)
	}
	a, ok := v.([]any)
	if !ok {
		return nil, argErr(c.Name, "%s must be an array", key)
	}
	if len(a) > MaxCommands {
		return nil, store.Errorf(NameTooLarge, map[string]any{"max": MaxCommands}, "%s: at most %d items", c.Name, MaxCommands)
	}
	return a, nil
}

// argReader reads several arguments of one command with the functions
// above, keeping the first error: a command reads all it needs, then checks
// err once. After an error every read returns the zero value.
type argReader struct {
	c   command
	err error
}

func (r *argReader) str(key string, required bool) string {
	if r.err != nil {
		return ""
	}
	s, err := argString(r.c, key, required)
	r.err = err
	return s
}

func (r *argReader) boolean(key string) bool {
	if r.err != nil {
		return false
	}
	b, err := argBool(r.c, key)
	r.err = err
	return b
}

func (r *argReader) object(key string, required bool) map[string]any {
	if r.err != nil {
		return nil
	}
	m, err := argObject(r.c, key, required)
	r.err = err
	return m
}

func (r *argReader) array(key string) []any {
	if r.err != nil {
		return nil
	}
	a, err := argArray(r.c, key)
	r.err = err
	return a
}

func fieldSpec(c command, m map[string]any, holder string) (store.FieldSpec, error) {
	fs := store.FieldSpec{Holder: holder}
	var ok bool
	if fs.Name, ok = m["platform/name"].(string); !ok {
		return fs, argErr(c.Name, "a field needs a string platform/name")
	}
	if fs.Type, ok = m["platform/type"].(string); !ok {
		return fs, argErr(c.Name, "field %s needs a string platform/type", fs.Name)
	}
	if v, ok := m["platform/id"]; ok && v != nil {
		if fs.ID, ok = v.(string); !ok {
			return fs, argErr(c.Name, "field %s: platform/id must be a string", fs.Name)
		}
	}
	if h, ok := m["platform/holder-type"].(string); ok && holder == "" {
		fs.Holder = h
	}
	switch meta := m["platform/meta"].(type) {
	case nil:
		fs.Meta = map[string]any{}
	case map[string]any:
		fs.Meta = normalizeJSON(meta).(map[string]any)
	default:
		return fs, argErr(c.Name, "field %s: platform/meta must be an object", fs.Name)
	}
	return fs, nil
}

// normalizeJSON turns json.Number into int64 or float64 so meta round-trips
// through the catalog document unchanged.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeJSON(e)
		}
		return out
	}
	return v
}

// decodeQuery turns the command API's query object into the query model.
func decodeQuery(v any) (*query.Query, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, qerr("query must be an object")
	}
	q := &query.Query{}
	for k := range m {
		switch k {
		case "q/from", "q/select", "q/where", "q/order-by", "q/limit", "q/offset":
		default:
			return nil, qerr("unknown query key %q", k)
		}
	}
	from, ok := m["q/from"].(string)
	if !ok || from == "" {
		return nil, qerr("q/from must be a type name")
	}
	q.From = from
	sel, err := decodeSelectList(m["q/select"], 0)
	if err != nil {
		return nil, err
	}
	if len(sel) == 0 {
		return nil, qerr("q/select must be a non-empty array")
	}
	q.Select = sel
	if q.Where, q.Order, err = decodeWhereOrder(m); err != nil {
		return nil, err
	}
	if l, ok := m["q/limit"]; ok && l != nil {
		if s, ok := l.(string); ok && s == "q/no-limit" {
			q.NoLimit = true
		} else {
			n, ok := store.ToInt(l)
			if !ok || n < 0 || n > 1<<31 {
				return nil, qerr("q/limit must be a non-negative integer or \"q/no-limit\"")
			}
			q.Limit = int(n)
			if n == 0 {
				q.Limit = -1 // an explicit zero returns nothing
			}
		}
	}
	if o, ok := m["q/offset"]; ok && o != nil {
		n, ok := store.ToInt(o)
		if !ok || n < 0 || n > 1<<31 {
			return nil, qerr("q/offset must be a non-negative integer")
		}
		q.Offset = int(n)
	}
	return q, nil
}

func qerr(format string, args ...any) error {
	return store.Errorf(store.NameQueryInvalid, nil, format, args...)
}

func decodeSelectList(v any, depth int) ([]query.Select, error) {
	if depth > maxSelectDepth {
		return nil, qerr("select nested deeper than %d", maxSelectDepth)
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, qerr("a select list must be an array")
	}
	var out []query.Select
	for _, it := range arr {
		switch x := it.(type) {
		case string:
			out = append(out, query.Select{Kind: query.SelectField, Key: x, Field: x})
		case map[string]any:
			if len(x) == 0 {
				return nil, qerr("empty select object")
			}
			for _, k := range sortedKeys(x) {
				s, err := decodeSelectObject(k, x[k], depth)
				if err != nil {
					return nil, err
				}
				out = append(out, s)
			}
		default:
			return nil, qerr("a select item must be a field name or an object")
		}
	}
	return out, nil
}

var aggs = map[string]string{"q/count": query.AggCount, "q/sum": query.AggSum, "q/avg": query.AggAvg, "q/min": query.AggMin, "q/max": query.AggMax}

func decodeSelectObject(k string, v any, depth int) (query.Select, error) {
	switch x := v.(type) {
	case []any:
		if len(x) == 2 {
			if name, ok := x[0].(string); ok && strings.HasPrefix(name, "q/") {
				agg, ok := aggs[name]
				if !ok {
					return query.Select{}, qerr("unknown aggregate %q", name)
				}
				p, ok := x[1].([]any)
				if !ok || len(p) != 2 {
					return query.Select{}, qerr("aggregate %s needs [<collection field>, <target field>]", k)
				}
				coll, ok1 := p[0].(string)
				field, ok2 := p[1].(string)
				if !ok1 || !ok2 {
					return query.Select{}, qerr("aggregate %s needs [<collection field>, <target field>]", k)
				}
				return query.Select{Kind: query.SelectAggregate, Key: k, Field: coll, Agg: agg, AggField: field}, nil
			}
		}
		sub, err := decodeSelectList(x, depth+1)
		if err != nil {
			return query.Select{}, err
		}
		if len(sub) == 0 {
			return query.Select{}, qerr("sub-select of %s is empty", k)
		}
		return query.Select{Kind: query.SelectObject, Key: k, Field: k, Sub: sub}, nil
	case map[string]any:
		s := query.Select{Kind: query.SelectCollection, Key: k, Field: k}
		for key := range x {
			switch key {
			case "q/select", "q/limit", "q/where", "q/order-by":
			default:
				return s, qerr("unknown key %q in the collection sub-query of %s", key, k)
			}
		}
		sub, err := decodeSelectList(x["q/select"], depth+1)
		if err != nil {
			return s, err
		}
		if len(sub) == 0 {
			return s, qerr("sub-select of %s is empty", k)
		}
		s.Sub = sub
		if l, ok := x["q/limit"]; ok && l != "q/no-limit" {
			return s, qerr("only q/no-limit is supported as q/limit of a collection sub-query (%s)", k)
		}
		if s.Where, s.Order, err = decodeWhereOrder(x); err != nil {
			return s, err
		}
		return s, nil
	}
	return query.Select{}, qerr("select object %s: want an array of fields, an aggregate or a sub-query", k)
}

func decodePath(v any) (query.Path, error) {
	switch x := v.(type) {
	case string:
		return query.Path{Fields: []string{x}}, nil
	case []any:
		if len(x) == 2 {
			if s, ok := x[0].(string); ok && (s == "q/start" || s == "q/end") {
				inner, err := decodePath(x[1])
				if err != nil {
					return inner, err
				}
				if inner.Part != query.PartWhole {
					return inner, qerr("nested %s", s)
				}
				inner.Part = query.PartStart
				if s == "q/end" {
					inner.Part = query.PartEnd
				}
				return inner, nil
			}
		}
		if len(x) == 0 || len(x) > query.MaxPathFields {
			return query.Path{}, qerr("a path has 1 to %d field names", query.MaxPathFields)
		}
		p := query.Path{}
		for _, e := range x {
			s, ok := e.(string)
			if !ok || s == "" {
				return query.Path{}, qerr("a path is an array of field names")
			}
			p.Fields = append(p.Fields, s)
		}
		return p, nil
	}
	return query.Path{}, qerr("a path is an array of field names")
}

// decodeWhereOrder decodes the q/where and q/order-by of a query or of a
// collection sub-query, each optional.
func decodeWhereOrder(m map[string]any) (where *query.Filter, order []query.Order, err error) {
	if w, ok := m["q/where"]; ok && w != nil {
		if where, err = decodeFilter(w, 0); err != nil {
			return nil, nil, err
		}
	}
	if o, ok := m["q/order-by"]; ok && o != nil {
		if order, err = decodeOrder(o); err != nil {
			return nil, nil, err
		}
	}
	return where, order, nil
}

func decodeFilter(v any, depth int) (*query.Filter, error) {
	if depth > maxFilterDepth {
		return nil, qerr("filter nested deeper than %d", maxFilterDepth)
	}
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, qerr("a filter is an array [operator, ...]")
	}
	op, ok := arr[0].(string)
	if !ok {
		return nil, qerr("a filter starts with its operator")
	}
	switch query.Op(op) {
	case query.OpAnd, query.OpOr:
		f := &query.Filter{Op: query.Op(op)}
		if len(arr) < 2 {
			return nil, qerr("%s needs at least one clause", op)
		}
		for _, s := range arr[1:] {
			sf, err := decodeFilter(s, depth+1)
			if err != nil {
				return nil, err
			}
			f.Sub = append(f.Sub, sf)
		}
		return f, nil
	case query.OpEq, query.OpNe, query.OpLt, query.OpLe, query.OpGt, query.OpGe,
		query.OpContains, query.OpNotContains, query.OpIn, query.OpNotIn:
		if len(arr) != 3 {
			return nil, qerr("%s takes a path and a $parameter", op)
		}
		p, err := decodePath(arr[1])
		if err != nil {
			return nil, err
		}
		name, ok := arr[2].(string)
		if !ok || !strings.HasPrefix(name, "$") || len(name) < 2 {
			return nil, qerr("the value of %s must be a $parameter name", op)
		}
		return &query.Filter{Op: query.Op(op), Path: p, Value: query.Value{IsParam: true, Param: name[1:]}}, nil
	}
	return nil, qerr("unknown filter operator %q", op)
}

func decodeOrder(v any) ([]query.Order, error) {
	// The object form {"<field>": "q/asc"} is accepted with one key (a JSON
	// object has no key order, so several keys would be ambiguous).
	if m, ok := v.(map[string]any); ok {
		if len(m) != 1 {
			return nil, qerr("q/order-by as an object takes exactly one field; use [[path, dir], ...] for several")
		}
		for k, dir := range m {
			v = []any{[]any{[]any{k}, dir}}
		}
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, qerr("q/order-by must be an array of [path, q/asc|q/desc]")
	}
	if len(arr) > 16 {
		return nil, qerr("at most 16 sort keys")
	}
	var out []query.Order
	for _, it := range arr {
		pair, ok := it.([]any)
		if !ok || len(pair) != 2 {
			return nil, qerr("a sort key is [path, q/asc|q/desc]")
		}
		p, err := decodePath(pair[0])
		if err != nil {
			return nil, err
		}
		dir, _ := pair[1].(string)
		switch dir {
		case "q/asc":
			out = append(out, query.Order{Path: p})
		case "q/desc":
			out = append(out, query.Order{Path: p, Desc: true})
		default:
			return nil, qerr("sort direction must be q/asc or q/desc, got %v", pair[1])
		}
	}
	return out, nil
}

func decodeParams(v any) (map[string]any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, qerr("params must be an object")
	}
	out := make(map[string]any, len(m))
	for k, val := range m {
		out[strings.TrimPrefix(k, "$")] = val
	}
	return out, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
