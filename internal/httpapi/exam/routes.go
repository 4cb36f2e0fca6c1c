package exam

import (
	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/qbank"
)

// Body limits (docs/api/exam.md, "Errors"); every other request has the
// portal's default of 1 MiB (internal/httpapi).
const (
	largeBodyLimit = 32 << 20  // push-answers and member import
	examBodyLimit  = 256 << 20 // exam creation (questions may embed images), answer import
)

// Base is the base path of the exam synchronisation API.
const Base = "/api/v1"

// Paths are the request paths of the exam API: one ending in "/" stands for
// every path below it.
func Paths() []string { return []string{Base + "/"} }

// Routes installs every route of the exam synchronisation API on r,
// grouped by credential.
func Routes(r chi.Router, o Options) {
	a := newAPI(o)
	const v1 = Base

	// No credential (login and handshake carry their own).
	r.Post(v1+"/auth/login", a.login)
	r.Get(v1+"/licenses/public-key", a.licensePublicKey)
	r.Post(v1+"/sync/verify-server", a.verifyServer)
	// Blobs are public: sealed content, useless without its key.
	r.Get(v1+"/blobs/{name}", a.getBlob)
	r.Head(v1+"/blobs/{name}", a.getBlob)

	// Operator JWT of any account, graders included: who am I, and the
	// grading of essays (the service checks a grader's exams).
	r.Group(func(r chi.Router) {
		r.Use(a.ops.RequireAccount)

		r.Get(v1+"/auth/me", a.me)

		r.Get(v1+"/grading/exams", a.gradingExams)
		r.Get(v1+"/grading/exams/{id}", a.gradingProgress)
		r.Get(v1+"/grading/exams/{id}/questions/{question_id}/answers", a.essayAnswers)
		r.Get(v1+"/grading/exams/{id}/questions/{question_id}/answers/{code}", a.essayAnswer)
		r.Put(v1+"/grading/exams/{id}/questions/{question_id}/answers/{code}/grade", a.saveGrade)
	})

	// Operator JWT of an account that operates (graders are refused 403).
	r.Group(func(r chi.Router) {
		r.Use(a.ops.RequireOperator)

		r.With(a.ops.Once).Post(v1+"/licenses/generate", a.generateLicense)
		r.Get(v1+"/licenses", a.listLicenses)
		r.Post(v1+"/licenses/{id}/revoke", a.revokeLicense)

		r.Get(v1+"/admin/monitors", a.listMonitors)
		r.Get(v1+"/admin/sync-logs", a.listSyncLogs)
		r.Get(v1+"/admin/servers", a.listServers)
		r.Delete(v1+"/admin/servers/{server_code}", a.resetServer)

		r.With(respond.RouteBodyLimit(examBodyLimit), a.ops.Once).Post(v1+"/admin/exams", a.createExam)
		r.Get(v1+"/admin/exams", a.listExams)
		r.With(respond.RouteBodyLimitCode(qbank.MaxFileSize, qbank.ErrTooLarge.Code, qbank.ErrTooLarge.Message), a.ops.Once).
			Post(v1+"/admin/exams/import", a.importExam)
		r.Get(v1+"/admin/exams/import/template.xlsx", a.importTemplate)
		r.Get(v1+"/admin/exams/{id}/export", a.exportExam)
		r.Get(v1+"/admin/exams/{id}", a.getExam)
		r.With(respond.RouteBodyLimit(examBodyLimit)).Put(v1+"/admin/exams/{id}", a.updateExam)
		r.Delete(v1+"/admin/exams/{id}", a.deleteExam)
		r.Get(v1+"/admin/exams/{id}/results", a.examResults)
		r.Get(v1+"/admin/exams/{id}/analysis", a.examAnalysis)
		r.Get(v1+"/admin/exams/{id}/calibration", a.examCalibration)
		r.Post(v1+"/admin/exams/{id}/calibration", a.keepCalibration)
		r.Get(v1+"/admin/exams/{id}/results/{member_id}", a.answerSheet)
		r.Get(v1+"/admin/exams/{id}/answers", a.examAnswers)
		r.With(respond.RouteBodyLimitCode(exam.MaxAudioSize, exam.ErrMediaTooLarge.Code, exam.ErrMediaTooLarge.Message)).Post(v1+"/admin/media", a.uploadMedia)
		r.Get(v1+"/admin/media/{sha256}", a.getMedia)

		r.Get(v1+"/admin/login-cards", a.loginCards)
		r.Post(v1+"/admin/members/{id}/reset-exam-password", a.resetExamPassword)
		r.With(respond.RouteBodyLimit(largeBodyLimit), a.ops.Once).Post(v1+"/admin/members/import", a.importMembers)
		r.With(respond.RouteBodyLimit(examBodyLimit)).Post(v1+"/admin/answers/import", a.importAnswers)

		r.With(a.ops.Once).Post(v1+"/admin/academic-years", a.createAcademicYear)
		r.Get(v1+"/admin/academic-years", a.listAcademicYears)
		r.Post(v1+"/admin/academic-years/{id}/activate", a.activateAcademicYear)

		r.With(a.ops.Once).Post(v1+"/admin/graders", a.createGrader)
		r.Get(v1+"/admin/graders", a.listGraders)
		r.Put(v1+"/admin/graders/{id}/exams", a.setGraderExams)

		r.With(a.ops.Once).Post(v1+"/admin/api-keys", a.createAPIKey)
		r.Get(v1+"/admin/api-keys", a.listAPIKeys)
		r.Delete(v1+"/admin/api-keys/{id}", a.revokeAPIKey)
	})

	// Lab-server JWT.
	r.Group(func(r chi.Router) {
		r.Use(a.requireServer)

		r.Get(v1+"/sync/pull-questions", a.pullQuestions)
		r.Get(v1+"/sync/media/{sha256}", a.syncMedia)
		r.With(respond.RouteBodyLimit(largeBodyLimit)).Post(v1+"/sync/push-answers", a.pushAnswers)
		r.Post(v1+"/sync/heartbeat", a.heartbeat)
	})

	// Directory API key.
	r.Group(func(r chi.Router) {
		r.Use(a.requireAPIKey)

		r.Get(v1+"/academic-year/active", a.activeAcademicYear)
		r.Get(v1+"/members/lookup", a.lookupMember)
		r.Get(v1+"/members", a.listMembers)
	})
}
