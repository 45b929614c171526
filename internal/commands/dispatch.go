package commands

import (
	"context"
	"fmt"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// Command names.
const (
	CmdSchemaQuery    = "platform.schema/query"
	CmdSchemaBatch    = "platform.schema/batch"
	CmdCommandBatch   = "platform.command/batch"
	CmdInstallMixins  = "platform.app/install-mixins"
	CmdEntityQuery    = "platform.entity/query"
	CmdEntityCreate   = "platform.entity/create"
	CmdEntityUpdate   = "platform.entity/update"
	CmdEntityDelete   = "platform.entity/delete"
	CmdAddItems       = "platform.entity/add-collection-items"
	CmdRemoveItems    = "platform.entity/remove-collection-items"
	schemaTypeCreate  = "schema.type/create"
	schemaTypeRename  = "schema.type/rename"
	schemaTypeDelete  = "schema.type/delete"
	schemaFieldCreate = "schema.field/create"
	schemaFieldRename = "schema.field/rename"
	schemaFieldDelete = "schema.field/delete"
	schemaFieldMeta   = "schema.field/set-meta"
	schemaEnumCreate  = "schema.enum/create"
)

func readOnly(name string) bool { return name == CmdSchemaQuery || name == CmdEntityQuery }

// read runs a read command against a catalog snapshot and a querier,
// spending its result from b.
func (a *API) read(ctx context.Context, cat *store.Catalog, db store.Querier, c command, b *query.Budget) (any, error) {
	switch c.Name {
	case CmdSchemaQuery:
		v, err := a.schemaJSON(cat)
		if err != nil {
			return nil, err
		}
		if raw, ok := v.(encoded); ok {
			if err := b.Spend(len(raw)); err != nil {
				return nil, err
			}
			return v, nil
		}
		if err := b.SpendValue(v); err != nil {
			return nil, err
		}
		return v, nil
	case CmdEntityQuery:
		q, err := decodeQuery(c.Args["query"])
		if err != nil {
			return nil, err
		}
		params, err := decodeParams(c.Args["params"])
		if err != nil {
			return nil, err
		}
		plan, err := query.Compile(cat, a.st.Dialect(), q, params)
		if err != nil {
			return nil, err
		}
		// The query stops as soon as its result would not fit in what is
		// left of the answer.
		rows, size, err := b.Run(ctx, db, plan)
		if err != nil {
			return nil, err
		}
		if err := b.Spend(size); err != nil {
			return nil, err
		}
		return rows, nil
	}
	return nil, store.Errorf(NameUnknownCommand, map[string]any{"command": c.Name}, "unknown command %q", c.Name)
}

// write runs any command inside a write transaction, spending its result
// from b; a command batch spends the results of its commands one by one.
func (a *API) write(tx *store.Tx, c command, depth int, b *query.Budget) (any, error) {
	switch c.Name {
	case CmdSchemaQuery, CmdEntityQuery:
		return a.read(tx.Context(), tx.Catalog(), tx.Querier(), c, b)
	case CmdCommandBatch:
		return a.batch(tx, c, depth, b)
	}
	v, err := a.change(tx, c)
	if err != nil {
		return nil, err
	}
	if err := b.SpendValue(v); err != nil {
		return nil, err
	}
	return v, nil
}

// batch runs platform.command/batch: its commands in order, in tx.
func (a *API) batch(tx *store.Tx, c command, depth int, b *query.Budget) (any, error) {
	if depth >= MaxBatchDepth {
		return nil, store.Errorf(NameInvalidArgs, map[string]any{"command": c.Name, "max-depth": MaxBatchDepth},
			"%s: batches nested deeper than %d", c.Name, MaxBatchDepth)
	}
	cmds, err := argArray(c, "commands")
	if err != nil {
		return nil, err
	}
	if err := b.Spend(2); err != nil { // the brackets
		return nil, err
	}
	out := make([]Result, 0, len(cmds))
	for i, raw := range cmds {
		sc, err := batchCommand(c, i, raw)
		if err != nil {
			return nil, err
		}
		n := resultTrue
		if i > 0 {
			n++ // the comma
		}
		if err := b.Spend(n); err != nil {
			return nil, withIndex(err, i, sc.Name)
		}
		v, err := a.write(tx, sc, depth+1, b)
		if err != nil {
			return nil, withIndex(err, i, sc.Name)
		}
		out = append(out, Result{Success: true, Result: v})
	}
	return out, nil
}

// batchCommand is the command at index i (raw) of the "commands" of the
// batch c (platform.command/batch, platform.schema/batch): an object read
// as a command, its error naming the index.
func batchCommand(c command, i int, raw any) (command, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return command{}, argErr(c.Name, "command %d is not an object", i)
	}
	sc, err := commandFromMap(m)
	if err != nil {
		return command{}, withIndex(err, i, "")
	}
	return sc, nil
}

// change runs a command that writes (all but reads and command batches).
func (a *API) change(tx *store.Tx, c command) (any, error) {
	switch c.Name {
	case CmdSchemaBatch:
		cmds, err := argArray(c, "commands")
		if err != nil {
			return nil, err
		}
		for i, raw := range cmds {
			sc, err := batchCommand(c, i, raw)
			if err != nil {
				return nil, err
			}
			if err := schemaCommand(tx, sc); err != nil {
				return nil, withIndex(err, i, sc.Name)
			}
		}
		return "ok", nil
	case CmdInstallMixins:
		types, err := argObject(c, "types", true)
		if err != nil {
			return nil, err
		}
		m := map[string][]string{}
		for k, v := range types {
			arr, ok := v.([]any)
			if !ok {
				return nil, argErr(c.Name, "types.%s must be an array of mixin names", k)
			}
			for _, x := range arr {
				s, ok := x.(string)
				if !ok {
					return nil, argErr(c.Name, "types.%s must be an array of mixin names", k)
				}
				m[k] = append(m[k], s)
			}
		}
		return "ok", tx.InstallMixins(m)
	case CmdEntityCreate, CmdEntityUpdate, CmdEntityDelete:
		r := argReader{c: c}
		typ, ent := r.str("type", true), r.object("entity", true)
		if r.err != nil {
			return nil, r.err
		}
		switch c.Name {
		case CmdEntityCreate:
			return tx.Create(typ, ent)
		case CmdEntityUpdate:
			return tx.Update(typ, ent)
		}
		return "ok", tx.Delete(typ, ent)
	case CmdAddItems, CmdRemoveItems:
		r := argReader{c: c}
		typ, field, ent, items := r.str("type", true), r.str("field", true), r.object("entity", true), r.array("items")
		if r.err != nil {
			return nil, r.err
		}
		return "ok", tx.CollectionItems(typ, field, ent, items, c.Name == CmdAddItems)
	case schemaTypeCreate, schemaTypeRename, schemaTypeDelete, schemaFieldCreate, schemaFieldRename,
		schemaFieldDelete, schemaFieldMeta, schemaEnumCreate:
		return nil, store.Errorf(NameUnknownCommand, map[string]any{"command": c.Name},
			"%s is a schema command: send it inside %s", c.Name, CmdSchemaBatch)
	}
	return nil, store.Errorf(NameUnknownCommand, map[string]any{"command": c.Name}, "unknown command %q", c.Name)
}

// withIndex adds the position of a failed command inside a batch.
func withIndex(err error, i int, name string) error {
	if e, ok := store.AsError(err); ok {
		data := map[string]any{}
		for k, v := range e.Data {
			data[k] = v
		}
		if _, nested := data["index"]; !nested {
			data["index"] = i
			if name != "" {
				data["command"] = name
			}
		}
		return &store.Error{Name: e.Name, Message: fmt.Sprintf("command %d: %s (nothing was applied)", i, e.Message), Data: data}
	}
	return err
}

func schemaCommand(tx *store.Tx, c command) error {
	switch c.Name {
	case schemaTypeCreate:
		r := argReader{c: c}
		spec := store.TypeSpec{Name: r.str("platform/name", true), ID: r.str("platform/id", false)}
		meta := r.object("platform/meta", false)
		if r.err != nil {
			return r.err
		}
		spec.Meta = normalizeJSON(meta).(map[string]any)
		if v, ok := c.Args["platform/fields"]; ok && v != nil {
			arr, ok := v.([]any)
			if !ok {
				return argErr(c.Name, "platform/fields must be an array")
			}
			for _, f := range arr {
				fm, ok := f.(map[string]any)
				if !ok {
					return argErr(c.Name, "a field must be an object")
				}
				fs, err := fieldSpec(c, fm, spec.Name)
				if err != nil {
					return err
				}
				spec.Fields = append(spec.Fields, fs)
			}
		}
		return tx.CreateType(spec)
	case schemaTypeRename:
		r := argReader{c: c}
		from, to := r.str("from-name", true), r.str("to-name", true)
		if r.err != nil {
			return r.err
		}
		return tx.RenameType(from, to)
	case schemaTypeDelete:
		r := argReader{c: c}
		name, de, dr := r.str("name", true), r.boolean("delete-entities?"), r.boolean("delete-related-fields?")
		if r.err != nil {
			return r.err
		}
		return tx.DeleteType(name, de, dr)
	case schemaFieldCreate:
		fs, err := fieldSpec(c, c.Args, "")
		if err != nil {
			return err
		}
		if fs.Holder == "" {
			return argErr(c.Name, "missing platform/holder-type")
		}
		return tx.CreateField(fs)
	case schemaFieldRename:
		r := argReader{c: c}
		holder, from, to := r.str("holder-type", true), r.str("from-name", true), r.str("to-name", true)
		if r.err != nil {
			return r.err
		}
		return tx.RenameField(holder, from, to)
	case schemaFieldDelete:
		r := argReader{c: c}
		holder, name, dv := r.str("holder-type", true), r.str("name", true), r.boolean("delete-values?")
		if r.err != nil {
			return r.err
		}
		return tx.DeleteField(holder, name, dv)
	case schemaFieldMeta:
		r := argReader{c: c}
		holder, name, key := r.str("holder-type", true), r.str("name", true), r.str("key", true)
		if r.err != nil {
			return r.err
		}
		return tx.SetFieldMeta(holder, name, key, normalizeJSON(c.Args["value"]))
	case schemaEnumCreate:
		name, err := argString(c, "platform/name", true)
		if err != nil {
			return err
		}
		return tx.CreateEnum(name)
	}
	return store.Errorf(NameUnknownCommand, map[string]any{"command": c.Name}, "unknown schema command %q", c.Name)
}

// schemaCache is the encoded schema of one catalog snapshot.
type schemaCache struct {
	cat *store.Catalog
	raw encoded
}

// encoded is a result this package encoded itself: written out as it is,
// without the validation json.RawMessage from elsewhere gets.
type encoded []byte

// MarshalJSON returns the encoding.
func (e encoded) MarshalJSON() ([]byte, error) { return e, nil }

// schemaJSON is platform.schema/query's answer for cat: encoded once per
// catalog snapshot (a frozen catalog never changes), built afresh for a
// transaction's own changed catalog.
func (a *API) schemaJSON(cat *store.Catalog) (any, error) {
	if !cat.Frozen() {
		return cat.SchemaJSON(), nil
	}
	if c := a.schema.Load(); c != nil && c.cat == cat {
		return c.raw, nil
	}
	raw, err := appendValue(nil, cat.SchemaJSON())
	if err != nil {
		return nil, fmt.Errorf("commands: encode the schema: %w", err)
	}
	a.schema.Store(&schemaCache{cat: cat, raw: raw})
	return encoded(raw), nil
}
