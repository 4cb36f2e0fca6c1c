package httpapi

import (
	"net/http"

	examhttp "github.com/seedhq/portal/internal/httpapi/exam"
	linkhttp "github.com/seedhq/portal/internal/httpapi/links"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

// defaultBodyLimit is the body limit of every request whose route does not
// set its own (docs/api/exam.md, "Errors").
const defaultBodyLimit = 1 << 20

// routes installs the middleware shared by every API and mounts the routes
// of each API, which it lists in its own package (exam.Routes, links.Routes,
// ordering.Routes); it returns the request paths of what it mounted
// (Router.Serves).
func (s *server) routes() (paths []string) {
	r := s.mux
	r.Use(
		s.requestID,
		s.clientIP,
		s.observe, // log line and metrics; outside recover so that panics count as 500
		s.recoverer,
		respond.LimitBody(defaultBodyLimit),
	)
	r.NotFound(s.notFound)
	r.MethodNotAllowed(s.methodNotAllowed)

	paths = append(paths, "/healthz", "/readyz", "/metrics", "/api/openapi/")
	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Get("/metrics", s.metricsHandler().ServeHTTP)
	s.openapiRoutes(r)

	examhttp.Routes(r, examhttp.Options{Service: s.exam, Identity: s.ids, Operators: s.ops, Logger: s.log})
	paths = append(paths, examhttp.Paths()...)
	s.backupRoutes(r)
	s.blobGCRoutes(r)
	if s.links != nil {
		linkhttp.Routes(r, linkhttp.Options{Service: s.links, BaseURL: s.linkBaseURL, Idempotency: s.idem,
			RequireOperator: s.ops.RequireOperator, OperatorOnce: s.ops.Once, Logger: s.log})
		paths = append(paths, linkhttp.Paths()...)
	}
	if s.console != nil {
		r.Get("/console", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/console/", http.StatusMovedPermanently)
		})
		r.Mount("/console", s.console)
		paths = append(paths, "/console", "/console/")
	}
	if s.ordering != nil {
		o := *s.ordering
		if o.Logger == nil {
			o.Logger = s.log
		}
		if o.Idempotency == nil {
			o.Idempotency = s.idem
		}
		o.RequireOperator, o.OperatorOnce = s.ops.RequireOperator, s.ops.Once
		ordhttp.Routes(r, o)
		paths = append(paths, ordhttp.Paths()...)
	}
	return paths
}
