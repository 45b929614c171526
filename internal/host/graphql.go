package host

import "net/http"

// mountGraphQL mounts the per-space GraphQL API (not served yet).
func (h *Host) mountGraphQL(mux *http.ServeMux) {}
