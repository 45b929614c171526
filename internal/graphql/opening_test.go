package graphql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

// The IDE opens on a find of the space's first database (its id and own
// plain fields), a query that runs; a space without databases opens on me.
func TestOpeningQuery(t *testing.T) {
	forEachStore(t, func(t *testing.T, st *store.Store) {
		svc := newTracker(t, st)
		q, err := svc.OpeningQuery(context.Background(), "tracker")
		if err != nil {
			t.Fatal(err)
		}
		const want = "{\n  findProjects(limit: 5) {\n    id\n    name\n    budget\n  }\n}\n"
		if q != want {
			t.Errorf("opening query:\n%s\nwant\n%s", q, want)
		}
		if got := run(t, svc, "tracker", q, nil); !strings.HasPrefix(got, `{"data":{"findProjects":[{"id":`) || strings.Contains(got, `"errors"`) {
			t.Errorf("the opening query answers %s", got)
		}
		q, err = svc.OpeningQuery(context.Background(), "nowhere")
		if !errors.Is(err, ErrNoSpace) || q != FallbackQuery {
			t.Errorf("a space without databases: %q, %v", q, err)
		}
	})
}
