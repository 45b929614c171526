package graphql

import (
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

func TestFindBasics(t *testing.T) {
	forEachStore(t, func(t *testing.T, st *store.Store) {
		svc := newTracker(t, st)
		got := run(t, svc, "tracker", `{ findTasks(orderBy: {name: ASC}, limit: 2) { id name points estimate done dueDate srokSdachi period { start end } extra notes { md html text jsonString } status { name } project { name budget } } }`, nil)
		t.Log(got)
	})
}
