package graphql

import (
	"context"
	"strconv"
	"strings"

	"github.com/appkitgo/appkit/internal/store"
)

// openingLimit is how many entities the IDE's opening query asks for.
const openingLimit = 5

// openingFields is how many fields besides id the opening query selects.
const openingFields = 4

// FallbackQuery is the IDE's opening query for a space without databases
// (or when its schema cannot be read).
const FallbackQuery = "{\n  me {\n    email\n  }\n}\n"

// OpeningQuery is the query the IDE of a space opens on: a find of the
// space's first database (catalog order), its id and first few plain
// fields of its own (no system fields), at most openingLimit entities. A space without databases gets
// FallbackQuery with ErrNoSpace.
func (s *Service) OpeningQuery(ctx context.Context, space string) (string, error) {
	cat, err := s.cfg.Store.Catalog(ctx)
	if err != nil {
		return FallbackQuery, err
	}
	sch, err := s.schemaFor(cat, space)
	if err != nil {
		return FallbackQuery, err
	}
	return sch.openingQuery(), nil
}

// openingQuery is OpeningQuery for a built schema.
func (s *spaceSchema) openingQuery() string {
	if len(s.dbs) == 0 {
		return FallbackQuery
	}
	o := s.dbs[0]
	sel := []string{"id"}
	for _, f := range o.fields {
		if len(sel) > openingFields {
			break
		}
		if f.kind == kScalar && f.sf != nil && f.sf.Role == store.RolePrimitive {
			sel = append(sel, f.name)
		}
	}
	var b strings.Builder
	b.WriteString("{\n  find" + o.plural + "(limit: " + strconv.Itoa(openingLimit) + ") {\n")
	for _, f := range sel {
		b.WriteString("    " + f + "\n")
	}
	b.WriteString("  }\n}\n")
	return b.String()
}
