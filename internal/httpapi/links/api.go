// Package links is the HTTP edge of the link-management API
// (docs/api/links.md): short links, QR codes, pixels, campaigns, channels,
// branded domains and the account, all behind a link user's API key and its
// per-key rate limit, and the operator routes that manage those users. Its
// routes are listed in routes.go, each handler in the file of its resource,
// and mounted by internal/httpapi on the portal's one router, which runs the
// shared middleware before them. Answers use the link envelope,
// {"error":0,...} and {"error":1,"message","code"} (envelope.go); the
// operator routes use the exam API's (internal/httpapi/respond).
package links

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/seedhq/portal/internal/idempotency"
	link "github.com/seedhq/portal/internal/links"
)

// Options configure the link-management routes.
type Options struct {
	// Service is the link-management domain. Required.
	Service *link.Service
	// BaseURL is the base URL of the short host (short links, rotators, QR
	// images), e.g. https://sho.rt. Empty: the scheme and host of each
	// request.
	BaseURL string
	// Idempotency honours Idempotency-Key on the creating calls. Required.
	Idempotency *idempotency.Keeper
	// RequireOperator admits the portal's operators on the
	// /api/v1/admin/link-* routes, answering the others itself. Required.
	RequireOperator func(http.Handler) http.Handler
	// OperatorOnce honours Idempotency-Key on an operator's creating call
	// (after RequireOperator). Required.
	OperatorOnce func(http.Handler) http.Handler
	// Logger receives internal errors. Nil discards.
	Logger *slog.Logger
}

// api holds what the handlers share. Handlers are its methods.
type api struct {
	svc *link.Service
	// baseURL is Options.BaseURL without a trailing slash.
	baseURL string
	idem    *idempotency.Keeper
	log     *slog.Logger
}

func newAPI(o Options) *api {
	if o.Service == nil || o.Idempotency == nil || o.RequireOperator == nil || o.OperatorOnce == nil {
		panic("httpapi/links: Options.Service, Idempotency, RequireOperator and OperatorOnce are required")
	}
	a := &api{svc: o.Service, baseURL: strings.TrimSuffix(o.BaseURL, "/"), idem: o.Idempotency, log: o.Logger}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	return a
}
