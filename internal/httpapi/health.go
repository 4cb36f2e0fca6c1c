package httpapi

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/seedhq/portal/internal/httpapi/respond"
)

// readyTimeout bounds the store check of /readyz.
const readyTimeout = 2 * time.Second

// healthz handles GET /healthz: the process is up.
func (s *server) healthz(w http.ResponseWriter, r *http.Request) {
	writeText(w, http.StatusOK, "ok")
}

// readyz handles GET /readyz: 200 when the store answers within 2 s, else
// 503 (the failure is logged). The blob store is checked too, but its
// outage does not take the instance out of a load balancer: exam sync,
// links and orders go on without it, and only receipts and QR logos answer
// 503. The answer then stays 200 with a body that names it, for
// monitoring, and a warning is logged.
func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := s.exam.Ping(ctx); err != nil {
		s.log.WarnContext(r.Context(), "readiness check failed",
			"request_id", respond.RequestID(r.Context()), "err", err)
		writeText(w, http.StatusServiceUnavailable, "store unavailable")
		return
	}
	if s.blobs != nil {
		if err := s.blobs.Ping(ctx); err != nil {
			s.log.WarnContext(r.Context(), "readiness check: blob store unavailable (receipts and QR logos answer 503)",
				"request_id", respond.RequestID(r.Context()), "err", err)
			writeText(w, http.StatusOK, "ok; blob store unavailable")
			return
		}
	}
	writeText(w, http.StatusOK, "ok")
}

// writeText writes a short plain-text body.
func writeText(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	io.WriteString(w, text)
}
