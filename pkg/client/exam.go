package client

import (
	"context"
	"net/url"
)

// ExamService is the exam synchronisation API (/api/v1,
// docs/api/exam.md). Its sub-services follow the first path segment, which
// is also the credential each one uses:
//
//	Auth       /auth/...                        login (none), me (operator JWT)
//	Licenses   /licenses/...                    operator JWT; the public key needs none
//	Sync       /sync/...                        lab-server JWT; the handshake needs none
//	Admin      /admin/...                       operator JWT
//	Grading    /grading/...                     operator JWT of an operator or a grader
//	Directory  /academic-year/..., /members...  X-API-Key
type ExamService struct {
	// Auth is operator login and identity.
	Auth *ExamAuthService
	// Licenses issues, lists and revokes lab-server licences.
	Licenses *ExamLicensesService
	// Sync is what a lab server calls: handshake, package pull, answer
	// push, heartbeat.
	Sync *ExamSyncService
	// Admin is the operator endpoints under /admin.
	Admin *ExamAdminService
	// Directory is the member directory read with an API key.
	Directory *ExamDirectoryService
	// Grading is the grading of essays, by graders and operators.
	Grading *ExamGradingService
}

// ExamAuthService is operator login (/api/v1/auth).
type ExamAuthService service

// ExamLicensesService is licence management (/api/v1/licenses).
type ExamLicensesService service

// ExamSyncService is the lab-server synchronisation endpoints
// (/api/v1/sync).
type ExamSyncService service

// ExamAdminService is the operator endpoints (/api/v1/admin).
type ExamAdminService service

// ExamGradingService is the grading of essays (/api/v1/grading), with the
// token of a grader or an operator.
type ExamGradingService service

// ExamDirectoryService is the member directory API (/api/v1/academic-year
// and /api/v1/members), authenticated with X-API-Key.
type ExamDirectoryService service

func newExamService(s *service) *ExamService {
	return &ExamService{
		Auth:      (*ExamAuthService)(s),
		Licenses:  (*ExamLicensesService)(s),
		Sync:      (*ExamSyncService)(s),
		Admin:     (*ExamAdminService)(s),
		Directory: (*ExamDirectoryService)(s),
		Grading:   (*ExamGradingService)(s),
	}
}

// exam calls one endpoint of the exam API: path is relative to /api/v1/.
func (c *Client) exam(ctx context.Context, method, path string, q url.Values, body, v any, cred credential) (*Response, error) {
	return c.call(ctx, method, examPrefix+path, q, body, v, cred, decodeExamError)
}

// dataBody is the success envelope {"success": true, "data": ...}.
type dataBody[T any] struct {
	Data T `json:"data"`
}

// examData calls an exam endpoint whose success body is {"data": T}, with
// the operator's bearer token, and returns the data.
func examData[T any](ctx context.Context, c *Client, method, path string, q url.Values, body any) (T, *Response, error) {
	var out dataBody[T]
	resp, err := c.exam(ctx, method, path, q, body, &out, credBearer)
	if err != nil {
		var zero T
		return zero, resp, err
	}
	return out.Data, resp, nil
}

// segment returns id escaped as one path segment, or an error naming what
// it is when it is empty (an empty segment would address another route).
func segment(what, id string) (string, error) {
	if id == "" {
		return "", errorf("%s must not be empty", what)
	}
	return url.PathEscape(id), nil
}
