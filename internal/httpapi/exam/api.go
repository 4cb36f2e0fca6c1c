// Package exam is the HTTP edge of the exam synchronisation API
// (docs/api/exam.md) under /api/v1: licences, the lab servers' handshake,
// package pull, media, answer push and heartbeat, monitoring, exams and
// their question banks, results, members and the directory, grading, and
// the operators' sign-in. Its routes are listed in routes.go, each handler
// in the file of its resource, and mounted by internal/httpapi on the
// portal's one router, which runs the shared middleware before them.
// Answers use the envelope {"success": true, ...} and {"success": false,
// "error", "code"} (internal/httpapi/respond).
//
// Handlers are thin: they decode the request, call one method of the
// domain service (internal/exam) and encode its result.
package exam

import (
	"log/slog"
	"net/http"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/operator"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/identity"
)

// Options configure the exam API's routes.
type Options struct {
	// Service is the exam domain. Required.
	Service *exam.Service
	// Identity signs operators in (POST /api/v1/auth/login) and creates
	// graders. Required.
	Identity *identity.Service
	// Operators authenticates the operator routes. Required.
	Operators *operator.Auth
	// Logger receives internal errors. Nil discards.
	Logger *slog.Logger
}

// api holds what the handlers share. Handlers are its methods.
type api struct {
	svc *exam.Service
	ids *identity.Service
	ops *operator.Auth
	log *slog.Logger
}

func newAPI(o Options) *api {
	if o.Service == nil || o.Identity == nil || o.Operators == nil {
		panic("httpapi/exam: Options.Service, Identity and Operators are required")
	}
	a := &api{svc: o.Service, ids: o.Identity, ops: o.Operators, log: o.Logger}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	return a
}

// writeError answers err in the API's error envelope (respond.Error).
func (a *api) writeError(w http.ResponseWriter, r *http.Request, err error) {
	respond.Error(w, r, a.log, err)
}
