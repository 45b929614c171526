package host

import "net/http"

// AppsConfig configures the apps service of the host: registered apps,
// their accounts and scheduled synchronizations (not served yet).
type AppsConfig struct{}

// mountApps mounts the apps API under /api/apps (not served yet).
func (h *Host) mountApps(mux *http.ServeMux) {}
