package host

import (
	"net/http"
	"sync"

	"github.com/appkitgo/appkit/internal/query"
)

// queryGates holds one query gate per store: the store queries of one user
// over the command API and GraphQL together take at most
// query.DefaultQueriesPerClient connections at once, so one user's slow
// queries never hold every connection of the store.
var queryGates sync.Map // *store.Store → *query.Gate

// admitQueries admits the request's store queries under its user (set by
// withToken, in front) through the store's gate.
func (h *Host) admitQueries(next http.Handler) http.Handler {
	g, _ := queryGates.LoadOrStore(h.cfg.Store, query.NewGate(query.DefaultQueriesPerClient))
	gate := g.(*query.Gate)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := userFrom(r.Context())
		next.ServeHTTP(w, r.WithContext(gate.Admit(r.Context(), "user:"+u.ID)))
	})
}
