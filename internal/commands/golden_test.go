package commands

import (
	"encoding/json"
	"flag"
	"fmt"
	"regexp"
	"testing"

	"github.com/appkitgo/appkit/internal/golden"
	"github.com/appkitgo/appkit/internal/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

var uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// normalizeIDs replaces generated uuids with stable names in order of appearance.
func normalizeIDs(b []byte) []byte {
	seen := map[string]string{}
	return uuidRe.ReplaceAllFunc(b, func(m []byte) []byte {
		k := string(m)
		if _, ok := seen[k]; !ok {
			seen[k] = fmt.Sprintf("<uuid-%d>", len(seen)+1)
		}
		return []byte(seen[k])
	})
}

// The whole schema of the fixture, as platform.schema/query returns it.
func TestSchemaGolden(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, api *API, st *store.Store) {
		loadFixture(t, api)
		s := ok(t, api, `{"command":"platform.schema/query"}`)
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "schema.golden.json", append(normalizeIDs(b), '\n'), *update)
	})
}
