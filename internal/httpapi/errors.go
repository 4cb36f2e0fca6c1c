package httpapi

import (
	"net/http"
	"strings"

	"github.com/seedhq/portal/internal/httpapi/respond"
)

// writeError answers err in the API's error envelope (respond.Error).
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	respond.Error(w, r, s.log, err)
}

// notFound answers unknown paths in the exam envelope.
func (s *server) notFound(w http.ResponseWriter, r *http.Request) {
	respond.ErrorStatus(w, http.StatusNotFound, respond.CodeNotFound, "no route for "+r.Method+" "+r.URL.Path)
}

// methodNotAllowed answers a known path with a method it does not serve,
// listing the methods it does in Allow.
func (s *server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodOptions} {
		if s.mux.Match(chiContext(), m, r.URL.Path) {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
	}
	respond.ErrorStatus(w, http.StatusMethodNotAllowed, respond.CodeMethodNotAllowed,
		"method "+r.Method+" is not allowed on "+r.URL.Path)
}
