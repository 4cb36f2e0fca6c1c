package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	linkhttp "github.com/seedhq/portal/internal/httpapi/links"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/qbank"
)

// Body limits (docs/api/exam.md, "Errors").
const (
	defaultBodyLimit = 1 << 20   // every request unless its route says otherwise
	largeBodyLimit   = 32 << 20  // push-answers and member import
	examBodyLimit    = 256 << 20 // exam creation (questions may embed images), answer import
)

// examBase is the base path of the exam synchronisation API.
const examBase = "/api/v1"

// routes installs the middleware shared by every API and the routes of each
// API, and returns the request paths of what it mounted (Router.Serves).
// The link-management and ordering APIs list theirs in their own packages
// (links.Routes, ordering.Routes), mounted from here.
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

	paths = append(paths, "/healthz", "/readyz", "/metrics", "/api/openapi/", examBase+"/")
	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Get("/metrics", s.metricsHandler().ServeHTTP)
	s.openapiRoutes(r)

	s.examRoutes(r)
	s.backupRoutes(r)
	s.blobGCRoutes(r)
	if s.links != nil {
		paths = append(paths, linkhttp.Paths()...)
		linkhttp.Routes(r, linkhttp.Options{Service: s.links, BaseURL: s.linkBaseURL, Idempotency: s.idem,
			RequireOperator: s.requireOperator, OperatorOnce: s.operatorOnce, Logger: s.log})
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
		o.RequireOperator, o.OperatorOnce = s.requireOperator, s.operatorOnce
		ordhttp.Routes(r, o)
		paths = append(paths, ordhttp.Paths()...)
	}
	return paths
}

// operatorOnce honours Idempotency-Key on an operator's creating call
// (internal/idempotency), answering in the exam envelope.
func (s *server) operatorOnce(next http.Handler) http.Handler {
	return s.idem.Middleware(func(r *http.Request) string {
		return "operator:" + operatorFrom(r.Context()).ID
	}, s.writeError)(next)
}

// examRoutes lists every route of the exam synchronisation API
// (docs/api/exam.md), grouped by credential.
func (s *server) examRoutes(r chi.Router) {
	const v1 = examBase

	// No credential (login and handshake carry their own).
	r.Post(v1+"/auth/login", s.login)
	r.Get(v1+"/licenses/public-key", s.licensePublicKey)
	r.Post(v1+"/sync/verify-server", s.verifyServer)
	// Blobs are public: sealed content, useless without its key.
	r.Get(v1+"/blobs/{name}", s.getBlob)
	r.Head(v1+"/blobs/{name}", s.getBlob)

	// Operator JWT of any account, graders included: who am I, and the
	// grading of essays (the service checks a grader's exams).
	r.Group(func(r chi.Router) {
		r.Use(s.requireAccount)

		r.Get(v1+"/auth/me", s.me)

		r.Get(v1+"/grading/exams", s.gradingExams)
		r.Get(v1+"/grading/exams/{id}", s.gradingProgress)
		r.Get(v1+"/grading/exams/{id}/questions/{question_id}/answers", s.essayAnswers)
		r.Get(v1+"/grading/exams/{id}/questions/{question_id}/answers/{code}", s.essayAnswer)
		r.Put(v1+"/grading/exams/{id}/questions/{question_id}/answers/{code}/grade", s.saveGrade)
	})

	// Operator JWT of an account that operates (graders are refused 403).
	r.Group(func(r chi.Router) {
		r.Use(s.requireOperator)

		r.With(s.operatorOnce).Post(v1+"/licenses/generate", s.generateLicense)
		r.Get(v1+"/licenses", s.listLicenses)
		r.Post(v1+"/licenses/{id}/revoke", s.revokeLicense)

		r.Get(v1+"/admin/monitors", s.listMonitors)
		r.Get(v1+"/admin/sync-logs", s.listSyncLogs)
		r.Get(v1+"/admin/servers", s.listServers)
		r.Delete(v1+"/admin/servers/{server_code}", s.resetServer)

		r.With(respond.RouteBodyLimit(examBodyLimit), s.operatorOnce).Post(v1+"/admin/exams", s.createExam)
		r.Get(v1+"/admin/exams", s.listExams)
		r.With(respond.RouteBodyLimitCode(qbank.MaxFileSize, qbank.ErrTooLarge.Code, qbank.ErrTooLarge.Message), s.operatorOnce).
			Post(v1+"/admin/exams/import", s.importExam)
		r.Get(v1+"/admin/exams/import/template.xlsx", s.importTemplate)
		r.Get(v1+"/admin/exams/{id}/export", s.exportExam)
		r.Get(v1+"/admin/exams/{id}", s.getExam)
		r.With(respond.RouteBodyLimit(examBodyLimit)).Put(v1+"/admin/exams/{id}", s.updateExam)
		r.Delete(v1+"/admin/exams/{id}", s.deleteExam)
		r.Get(v1+"/admin/exams/{id}/results", s.examResults)
		r.Get(v1+"/admin/exams/{id}/results/{member_id}", s.answerSheet)
		r.Get(v1+"/admin/exams/{id}/answers", s.examAnswers)
		r.With(respond.RouteBodyLimitCode(exam.MaxAudioSize, exam.ErrMediaTooLarge.Code, exam.ErrMediaTooLarge.Message)).Post(v1+"/admin/media", s.uploadMedia)
		r.Get(v1+"/admin/media/{sha256}", s.getMedia)

		r.Get(v1+"/admin/login-cards", s.loginCards)
		r.Post(v1+"/admin/members/{id}/reset-exam-password", s.resetExamPassword)
		r.With(respond.RouteBodyLimit(largeBodyLimit), s.operatorOnce).Post(v1+"/admin/members/import", s.importMembers)
		r.With(respond.RouteBodyLimit(examBodyLimit)).Post(v1+"/admin/answers/import", s.importAnswers)

		r.With(s.operatorOnce).Post(v1+"/admin/academic-years", s.createAcademicYear)
		r.Get(v1+"/admin/academic-years", s.listAcademicYears)
		r.Post(v1+"/admin/academic-years/{id}/activate", s.activateAcademicYear)

		r.With(s.operatorOnce).Post(v1+"/admin/graders", s.createGrader)
		r.Get(v1+"/admin/graders", s.listGraders)
		r.Put(v1+"/admin/graders/{id}/exams", s.setGraderExams)

		r.With(s.operatorOnce).Post(v1+"/admin/api-keys", s.createAPIKey)
		r.Get(v1+"/admin/api-keys", s.listAPIKeys)
		r.Delete(v1+"/admin/api-keys/{id}", s.revokeAPIKey)
	})

	// Lab-server JWT.
	r.Group(func(r chi.Router) {
		r.Use(s.requireServer)

		r.Get(v1+"/sync/pull-questions", s.pullQuestions)
		r.Get(v1+"/sync/media/{sha256}", s.syncMedia)
		r.With(respond.RouteBodyLimit(largeBodyLimit)).Post(v1+"/sync/push-answers", s.pushAnswers)
		r.Post(v1+"/sync/heartbeat", s.heartbeat)
	})

	// Directory API key.
	r.Group(func(r chi.Router) {
		r.Use(s.requireAPIKey)

		r.Get(v1+"/academic-year/active", s.activeAcademicYear)
		r.Get(v1+"/members/lookup", s.lookupMember)
		r.Get(v1+"/members", s.listMembers)
	})
}
