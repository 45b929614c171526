package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The enum type of a single select synchronized from an app is named as the
// workspace service names it: the field's name, "_", its holder type's name
// (github.issue/state_github/issue for the field github.issue/state of type
// github/issue). The host's sync engine named it <space>.<type>.<field>/options
// (github.issue.state/options) before; Open renames those in place.

// legacyEnumRenames finds the enum types named X.Y.Z/options that are the
// enum of a field named X.Y/Z of the type X/Y, and returns the new name of
// each, X.Y/Z_X/Y, by its old name. A rename whose new name is taken, or not
// a valid enum name, is left out (the type keeps its name, and works).
func legacyEnumRenames(c *Catalog) map[string]string {
	out := map[string]string{}
	for _, holder := range c.Types {
		if holder.Kind != KindDomain {
			continue
		}
		for _, f := range holder.Fields {
			enum := c.Target(f)
			if enum == nil || enum.Kind != KindEnum || !isLegacyEnumName(enum.Name, f.Name, holder.Name) {
				continue
			}
			to := f.Name + "_" + holder.Name
			if c.Type(to) != nil || !validEnumName(to) {
				continue
			}
			out[enum.Name] = to
		}
	}
	return out
}

// isLegacyEnumName reports whether enum is X.Y.Z/options for the field
// X.Y/Z of the type X/Y.
func isLegacyEnumName(enum, field, holder string) bool {
	if !strings.HasSuffix(enum, "/options") {
		return false
	}
	for i := range len(holder) {
		if holder[i] != '/' {
			continue
		}
		x, y := holder[:i], holder[i+1:]
		if z, ok := strings.CutPrefix(field, x+"."+y+"/"); ok && enum == x+"."+y+"."+z+"/options" {
			return true
		}
	}
	return false
}

// renameLegacyEnums renames the enum types legacyEnumRenames finds, in one
// schema change: the catalog is locked and read again inside it (WriteSchema),
// so when several processes open a store at once the first renames and the
// others find nothing left to do. A store with none costs no transaction.
func (s *Store) renameLegacyEnums(ctx context.Context) error {
	if len(legacyEnumRenames(s.cat)) == 0 {
		return nil
	}
	err := s.WriteSchema(ctx, func(tx *Tx) error {
		renames := legacyEnumRenames(tx.Catalog())
		for _, from := range slices.Sorted(maps.Keys(renames)) {
			if err := tx.RenameType(from, renames[from]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: rename the enum types of selects: %w", err)
	}
	return nil
}
