package devloop

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/appkitgo/appkit/internal/store"
)

// SnapshotItems bounds the items of one type that a snapshot holds.
const SnapshotItems = 1000

// Snapshot holds a few items of an app's types: by store type, then by
// the item's id in the app, its fields' values as text.
type Snapshot map[string]map[string]map[string]string

// TakeSnapshot reads the items of the app's types in the store (the types
// of space: "space/..." and created by the sync engine), at most
// SnapshotItems per type. Fields are named as the app names them (the
// part after the last "/"); relations show the target's id in the app.
func TakeSnapshot(ctx context.Context, st *store.Store, space string) (Snapshot, error) {
	snap := Snapshot{}
	err := st.Write(ctx, func(tx *store.Tx) error {
		cat := tx.Catalog()
		for _, name := range cat.TypeNames() {
			ty := cat.Type(name)
			if !strings.HasPrefix(name, space+"/") || ty.Meta["app/type-id"] == nil {
				continue
			}
			items, err := readItems(tx, cat, ty)
			if err != nil {
				return fmt.Errorf("snapshot of %s: %w", name, err)
			}
			snap[name] = items
		}
		return nil
	})
	return snap, err
}

// readItems reads the first SnapshotItems entities of ty (by id).
func readItems(tx *store.Tx, cat *store.Catalog, ty *store.Type) (map[string]map[string]string, error) {
	rows, err := tx.Querier().QueryContext(tx.Context(), fmt.Sprintf("SELECT id FROM %s ORDER BY id LIMIT %d", ty.Table, SnapshotItems))
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	appIDs := map[string]string{} // entity id -> app id, of relation targets
	items := make(map[string]map[string]string, len(ids))
	for _, id := range ids {
		e, err := tx.Read(ty, id)
		if err != nil {
			return nil, err
		}
		item := map[string]string{}
		appID := id
		for _, f := range ty.Fields {
			short := f.Name[strings.LastIndex(f.Name, "/")+1:]
			v, ok := e[f.Name]
			switch {
			case !ok || v == nil || strings.HasPrefix(f.Name, "platform/"):
				continue
			case strings.HasSuffix(f.Name, ".sync/app-id"):
				appID = fmt.Sprint(v)
				continue
			case strings.Contains(f.Name, ".sync/"):
				continue
			}
			if f.Role == store.RoleRelation {
				ref, ok := v.(map[string]any)
				target := cat.Target(f)
				if !ok || target == nil || target.Name == store.DocumentType || cat.IsRichText(f) {
					continue
				}
				tid := fmt.Sprint(ref["platform/id"])
				if appIDs[tid] == "" {
					appIDs[tid] = targetName(tx, target, tid)
				}
				v = appIDs[tid]
			} else if f.Role != store.RolePrimitive {
				continue
			}
			item[short] = render(v)
		}
		items[appID] = item
	}
	return items, nil
}

// targetName is how a relation's target is shown: its id in the app, an
// option's name, else its entity id.
func targetName(tx *store.Tx, target *store.Type, id string) string {
	e, err := tx.Read(target, id)
	if err != nil {
		return id
	}
	for k, v := range e {
		if k == "enum/name" || strings.HasSuffix(k, ".sync/app-id") {
			return fmt.Sprint(v)
		}
	}
	return id
}

// render writes a value as text.
func render(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// FieldChange is one field of an item whose value changed.
type FieldChange struct {
	// Field is the field's name in the app; Old and New its values
	// ("" when it had none).
	Field, Old, New string
}

// ItemChange is an item whose fields changed between two snapshots.
type ItemChange struct {
	// Type is the store type; ID the item's id in the app.
	Type, ID string
	// Fields are the fields that changed, by name.
	Fields []FieldChange
}

// Changes compares two snapshots and returns, for at most perType items of
// each type (the first by id), the fields whose values changed; items
// created or removed are not listed (they are counted by the engine's
// report). Types are in name order.
func Changes(before, after Snapshot, perType int) []ItemChange {
	types := make([]string, 0, len(after))
	for t := range after {
		types = append(types, t)
	}
	sort.Strings(types)
	var out []ItemChange
	for _, t := range types {
		ids := make([]string, 0, len(after[t]))
		for id := range after[t] {
			if _, had := before[t][id]; had {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		n := 0
		for _, id := range ids {
			if n == perType {
				break
			}
			if fc := fieldChanges(before[t][id], after[t][id]); len(fc) > 0 {
				out = append(out, ItemChange{Type: t, ID: id, Fields: fc})
				n++
			}
		}
	}
	return out
}

// fieldChanges lists the fields whose values differ, by name.
func fieldChanges(old, cur map[string]string) []FieldChange {
	names := map[string]bool{}
	for k := range old {
		names[k] = true
	}
	for k := range cur {
		names[k] = true
	}
	var out []FieldChange
	for k := range names {
		o, hadO := old[k]
		c, hasC := cur[k]
		if o != c || hadO != hasC {
			out = append(out, FieldChange{Field: k, Old: o, New: c})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}
