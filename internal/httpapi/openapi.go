package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/openapi"
)

// openapiRoutes serves the OpenAPI 3.1 description of each API this router
// serves: GET /api/openapi/{exam,links,ordering}.{json,yaml}, public and
// cacheable (internal/openapi).
func (s *server) openapiRoutes(r chi.Router) {
	names := []string{openapi.Exam}
	if s.links != nil {
		names = append(names, openapi.Links)
	}
	if s.ordering != nil {
		names = append(names, openapi.Ordering)
	}
	h, err := openapi.Handler(names...)
	if err != nil {
		// The documents are embedded and checked by the tests: only a
		// broken build gets here.
		panic(err)
	}
	for _, n := range names {
		for _, p := range openapi.Paths(n) {
			r.Method(http.MethodGet, p, h)
		}
	}
}
