// Package httpapi is the HTTP edge of the portal: one chi router that mounts
// the three APIs, each in a subpackage with its routes, handlers and tests:
// the exam synchronisation API under /api/v1 (exam), the link-management
// API (links) and the ordering API (ordering). Here are what they share:
// the middleware every request goes through (request id, client address
// resolution, one log line, Prometheus metrics, panic recovery, body
// limit), /healthz, /readyz, /metrics, the OpenAPI documents, and the
// portal-wide operator routes (backup, blob collection). Operators are
// authenticated for all three by internal/httpapi/operator; domain errors
// (*apperr.Error) become HTTP answers in internal/httpapi/respond.
package httpapi

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/operator"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/links"
)

// Options configure the handler returned by New.
type Options struct {
	// Exam is the exam domain service behind the /api/v1 routes. Required.
	Exam *exam.Service
	// Identity signs operators in and checks their tokens, for every API
	// and the console. Required.
	Identity *identity.Service
	// Idempotency keeps the answers of creating calls made with an
	// Idempotency-Key, for every API. Required.
	Idempotency *idempotency.Keeper
	// Links is the link-management service behind the /api link routes
	// and the /api/v1/admin/link-* operator routes (internal/httpapi/links).
	// Nil: those routes do not exist (404).
	Links *links.Service
	// Console is the web console (internal/console), served at /console/.
	// Nil: not served.
	Console http.Handler
	// LinkBaseURL is the base URL of the short host (short links, rotators,
	// QR images), e.g. https://sho.rt. Empty: the scheme and host of each
	// request.
	LinkBaseURL string
	// Ordering configures the ordering API's routes (/api/auth/...,
	// /api/bans, ...). Nil: those routes do not exist (404).
	Ordering *ordhttp.Options
	// Logger receives the "request complete" line of every request and the
	// details of internal errors and panics. Nil discards.
	Logger *slog.Logger
	// TrustedProxies are the networks of reverse proxies whose
	// X-Forwarded-For and X-Real-IP headers are believed. The headers are
	// ignored when the direct peer is outside all of them.
	TrustedProxies []netip.Prefix
	// Registry receives the HTTP metrics. Nil registers them in a new
	// registry of this handler.
	Registry prometheus.Registerer
	// Gatherer is what /metrics serves. Nil serves Registry when it is also a
	// Gatherer (as *prometheus.Registry is), the handler's own new registry
	// when Registry is nil, and prometheus.DefaultGatherer otherwise.
	Gatherer prometheus.Gatherer
	// Backup serves GET /api/v1/admin/backup (SUPER_ADMIN). Nil: the route
	// answers 409 BACKUP_UNSUPPORTED (a PostgreSQL portal: use pg_dump).
	Backup Backup
	// Blobs is the blob store (payment receipts, QR logos), checked by
	// /readyz with the store. Nil: not checked.
	Blobs blobstore.Store
	// BlobGC serves POST /api/v1/admin/blobs/gc (SUPER_ADMIN). Nil: the
	// route answers 409 BLOB_GC_UNAVAILABLE.
	BlobGC BlobGC
}

// server holds what the handlers share. Handlers are its methods.
type server struct {
	exam  *exam.Service
	ids   *identity.Service
	idem  *idempotency.Keeper
	ops   *operator.Auth
	links *links.Service
	// linkBaseURL is Options.LinkBaseURL.
	linkBaseURL string
	ordering    *ordhttp.Options
	console     http.Handler
	log         *slog.Logger
	proxies     []netip.Prefix
	metrics     *metrics
	gather      prometheus.Gatherer
	mux         *chi.Mux
	backupFn    Backup
	blobs       blobstore.Store
	blobGCFn    BlobGC
}

// Router is the portal's HTTP handler: one chi router with the routes of
// every API it mounts.
type Router struct {
	*chi.Mux
	// paths are the request paths of what is mounted (Serves).
	paths []string
}

// Serves reports whether path belongs to one of the mounted APIs (or to
// /healthz, /readyz and /metrics): the portal sends every other path to the
// short-link redirector.
func (rt *Router) Serves(path string) bool {
	for _, p := range rt.paths {
		if path == p || strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// New returns the portal's HTTP handler: one chi router with every route of
// the exam API, /healthz, /readyz and /metrics, and, with Options.Links and
// Options.Ordering, every route of the link-management and ordering APIs.
func New(opts Options) *Router {
	if opts.Exam == nil || opts.Identity == nil || opts.Idempotency == nil {
		panic("httpapi: Options.Exam, Identity and Idempotency are required")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	reg, gather := opts.Registry, opts.Gatherer
	if reg == nil {
		r := prometheus.NewRegistry()
		reg = r
		if gather == nil {
			gather = r
		}
	}
	if gather == nil {
		if g, ok := reg.(prometheus.Gatherer); ok {
			gather = g
		} else {
			gather = prometheus.DefaultGatherer
		}
	}
	s := &server{
		exam:        opts.Exam,
		ids:         opts.Identity,
		idem:        opts.Idempotency,
		ops:         operator.New(opts.Identity, opts.Idempotency, logger),
		links:       opts.Links,
		ordering:    opts.Ordering,
		console:     opts.Console,
		linkBaseURL: opts.LinkBaseURL,
		log:         logger,
		proxies:     opts.TrustedProxies,
		metrics:     newMetrics(reg),
		gather:      gather,
		mux:         chi.NewRouter(),
		backupFn:    opts.Backup,
		blobs:       opts.Blobs,
		blobGCFn:    opts.BlobGC,
	}
	return &Router{Mux: s.mux, paths: s.routes()}
}
