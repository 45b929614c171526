package host

import (
	"context"
	"net/http"
	"time"
)

// readyTimeout bounds the store's ping of /readyz.
const readyTimeout = time.Second

// mountHealth mounts the health endpoints, unauthenticated and revealing
// nothing but a one-line status:
//
//	GET /healthz   200 "ok": the process serves
//	GET /readyz    200 "ready" when the store answers a ping within a second,
//	               503 "not ready: the store does not answer" otherwise
//
// (HEAD too). Both answer text/plain, never cached.
func (h *Host) mountHealth(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		plain(w, r, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := h.cfg.Store.DB().PingContext(ctx); err != nil {
			h.log.Warn().Err(err).Msg("readyz: the store does not answer")
			plain(w, r, http.StatusServiceUnavailable, "not ready: the store does not answer")
			return
		}
		plain(w, r, http.StatusOK, "ready")
	})
}

// plain answers one line of text.
func plain(w http.ResponseWriter, r *http.Request, status int, line string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(line + "\n"))
	}
}
