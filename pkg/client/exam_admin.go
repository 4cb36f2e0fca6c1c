package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/seedhq/portal/pkg/labwire"
)

// ---- Monitors, sync logs, servers ----

// Monitor is the monitor record of one lab server.
type Monitor struct {
	ID         string `json:"id"`
	ServerCode string `json:"server_code"`
	NPSN       string `json:"npsn"`
	SchoolName string `json:"school_name"`
	HardwareID string `json:"hardware_id"`
	// Status is MonitorOnline, MonitorSyncing or MonitorOffline.
	Status            string `json:"status"`
	ActiveExamsCount  int    `json:"active_exams_count"`
	ConnectedStudents int    `json:"connected_students"`
	// PendingAnswers is what the server last reported of its answers not
	// yet acknowledged by the portal (an extension of the portal).
	PendingAnswers int       `json:"pending_answers"`
	ClientIP       string    `json:"client_ip"`
	ClientVersion  string    `json:"client_version"`
	LastPingAt     time.Time `json:"last_ping_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

// MonitorListOptions filters ListMonitors.
type MonitorListOptions struct {
	NPSN string
	// Status is MonitorOnline, MonitorSyncing or MonitorOffline.
	Status string
}

// ListMonitors returns one monitor record per lab server (GET
// /api/v1/admin/monitors). opts may be nil.
func (s *ExamAdminService) ListMonitors(ctx context.Context, opts *MonitorListOptions) ([]*Monitor, *Response, error) {
	q := url.Values{}
	if opts != nil {
		setIf(q, "npsn", opts.NPSN)
		setIf(q, "status", opts.Status)
	}
	return examData[[]*Monitor](ctx, s.client, http.MethodGet, "admin/monitors", q, nil)
}

// Sync actions of the sync log.
const (
	ActionVerifyServer = "verify_server"
	ActionPullData     = "pull_data"
	ActionPushResults  = "push_results"
	ActionHeartbeat    = "heartbeat"
)

// Sync log outcomes.
const (
	OutcomeAccepted  = "accepted"
	OutcomeDuplicate = "duplicate"
	OutcomeRejected  = "rejected"
)

// SyncLog is one audit record of the sync log.
type SyncLog struct {
	SyncID string `json:"sync_id"`
	// Action is one of the Action* constants.
	Action         string `json:"action"`
	ServerCode     string `json:"server_code"`
	NPSN           string `json:"npsn"`
	RecordCount    int    `json:"record_count"`
	ChecksumSHA256 string `json:"checksum_sha256"`
	IdempotencyKey string `json:"idempotency_key"`
	// Outcome is one of the Outcome* constants.
	Outcome string `json:"outcome"`
	// ErrorCode is set when Outcome is rejected.
	ErrorCode  string    `json:"error_code"`
	ReceivedAt time.Time `json:"received_at"`
}

// SyncLogListOptions filters ListSyncLogs.
type SyncLogListOptions struct {
	NPSN       string
	ServerCode string
	// Status filters the outcome (one of the Outcome* constants).
	Status string
	// Limit bounds the number of records (1..1000); 0 means the portal's
	// default.
	Limit int
}

// ListSyncLogs returns sync log records, newest first (GET
// /api/v1/admin/sync-logs). opts may be nil.
func (s *ExamAdminService) ListSyncLogs(ctx context.Context, opts *SyncLogListOptions) ([]*SyncLog, *Response, error) {
	q := url.Values{}
	if opts != nil {
		setIf(q, "npsn", opts.NPSN)
		setIf(q, "server_code", opts.ServerCode)
		setIf(q, "status", opts.Status)
		if opts.Limit > 0 {
			q.Set("limit", strconv.Itoa(opts.Limit))
		}
	}
	return examData[[]*SyncLog](ctx, s.client, http.MethodGet, "admin/sync-logs", q, nil)
}

// ServerBinding records which machine a server_code is bound to (by its
// first handshake).
type ServerBinding struct {
	ServerCode string    `json:"server_code"`
	NPSN       string    `json:"npsn"`
	HardwareID string    `json:"hardware_id"`
	LicenseID  string    `json:"license_id"`
	BoundAt    time.Time `json:"bound_at"`
}

// ServerListOptions filters ListServers.
type ServerListOptions struct {
	NPSN string
}

// ListServers returns the server bindings (GET /api/v1/admin/servers).
// opts may be nil.
func (s *ExamAdminService) ListServers(ctx context.Context, opts *ServerListOptions) ([]*ServerBinding, *Response, error) {
	q := url.Values{}
	if opts != nil {
		setIf(q, "npsn", opts.NPSN)
	}
	return examData[[]*ServerBinding](ctx, s.client, http.MethodGet, "admin/servers", q, nil)
}

// ResetServer deletes the binding of serverCode (DELETE
// /api/v1/admin/servers/{server_code}), so that the next handshake, from a
// replacement machine, binds afresh.
func (s *ExamAdminService) ResetServer(ctx context.Context, serverCode string) (*Response, error) {
	code, err := segment("server code", serverCode)
	if err != nil {
		return nil, err
	}
	return s.client.exam(ctx, http.MethodDelete, "admin/servers/"+code, nil, nil, nil, credBearer)
}

// ---- Exams ----

// Question types.
const (
	SingleChoice   = "single_choice"
	MultipleChoice = "multiple_choice"
	TrueFalse      = "true_false"
	ShortAnswer    = "short_answer"
	Essay          = "essay"
	// StatementGrid (pilihan ganda kompleks): statements, each answered
	// with a column; answers and keys are "statement=column" pairs joined
	// by ",".
	StatementGrid = "statement_grid"
	// Matching (menjodohkan): premises, each paired with one of the
	// responses; answers and keys are "premise=response" pairs joined by
	// ",".
	Matching = "matching"
	// Numeric (isian angka): answered with a number, compared as a number
	// whichever decimal separator it is written with ("2,5" is 2.5), within
	// the question's Tolerance; the key lists the accepted numbers.
	Numeric = "numeric"
	// Cloze (isian rumpang): a markdown text with blanks marked [[id]], each
	// a Blank with its own key and points; answers are JSON objects of
	// blank id to what was given ({"b1": "Jakarta", "b2": "2,5"}).
	Cloze = "cloze"
)

// Kinds of a Blank.
const (
	BlankText   = "text"
	BlankNumber = "number"
	BlankChoice = "choice"
)

// ToleranceRelative is the tolerance mode whose Tolerance is a percentage
// of the accepted number; "" is absolute.
const ToleranceRelative = "relative"

// Blank is one blank of a Cloze question, shown where its text says [[ID]].
type Blank struct {
	ID string `json:"id"`
	// Kind is BlankText, BlankNumber or BlankChoice.
	Kind string `json:"kind"`
	// Options are a BlankChoice's (a drop-down list).
	Options []QuestionOption `json:"options,omitempty"`
	// Answer is the key: the accepted texts, the accepted numbers, or the
	// right option's id. Packages never carry it.
	Answer []string `json:"answer,omitempty"`
	// Tolerance and ToleranceMode are a BlankNumber's, as a Numeric
	// question's.
	Tolerance     float64 `json:"tolerance,omitempty"`
	ToleranceMode string  `json:"tolerance_mode,omitempty"`
	// Points are what a right answer to the blank earns (1 when 0).
	Points float64 `json:"points"`
}

// QuestionOption is one choice of a choice question; the same type as a
// package's option (labwire.PackageOption).
type QuestionOption = labwire.PackageOption

// Question is one question of an exam, with its answer key as operators
// send and read it.
type Question struct {
	ID string `json:"id"`
	// Type is one of SingleChoice, MultipleChoice, TrueFalse, ShortAnswer,
	// Numeric, Essay, StatementGrid, Matching, Cloze.
	Type string `json:"type"`
	// Format is how the texts are written: "" (plain) or "markdown"
	// (the portal's docs/exam-content.md).
	Format  string           `json:"format,omitempty"`
	Text    string           `json:"text"`
	Options []QuestionOption `json:"options,omitempty"`
	// Statements and Columns are a StatementGrid's rows and answer columns
	// (Columns empty: "true" Benar and "false" Salah).
	Statements []QuestionOption `json:"statements,omitempty"`
	Columns    []QuestionOption `json:"columns,omitempty"`
	// Premises and Responses are a Matching question's (there may be more
	// responses than premises); ReuseResponses lets one response go with
	// several premises (by default each goes with one at most).
	Premises       []QuestionOption `json:"premises,omitempty"`
	Responses      []QuestionOption `json:"responses,omitempty"`
	ReuseResponses bool             `json:"reuse_responses,omitempty"`
	// Stimulus is the id of the exam's Stimulus the question goes with,
	// "" for none.
	Stimulus string `json:"stimulus,omitempty"`
	// Scoring "partial" gives each right statement or premise its share of
	// the points; "" is all or nothing.
	Scoring string `json:"scoring,omitempty"`
	// PlayLimit is how many times each student may play the audio the
	// question shows (a listening item); 0 is no limit.
	PlayLimit int `json:"play_limit,omitempty"`
	// Answer is the answer key: option ids for choice types ("true" or
	// "false" for true_false), accepted answers for short_answer, accepted
	// numbers for numeric, empty for essay and cloze.
	Answer []string `json:"answer,omitempty"`
	// Tolerance is how far from an accepted number a Numeric answer may
	// be: absolute, or a percentage when ToleranceMode is
	// ToleranceRelative.
	Tolerance     float64 `json:"tolerance,omitempty"`
	ToleranceMode string  `json:"tolerance_mode,omitempty"`
	// Blanks are a Cloze question's; its Points are theirs added up.
	Blanks []Blank `json:"blanks,omitempty"`
	Points float64 `json:"points"`
	// Rubric is an essay's note to its graders (what earns the points).
	Rubric string `json:"rubric,omitempty"`
	// Category is where the question is filed in its bank
	// ("Matematika/Aljabar"), "" for none.
	Category string `json:"category,omitempty"`
	// Calibrated are the item parameters a kept calibration gave the
	// question (ExamAdminService.KeepCalibration), nil for none.
	Calibrated *ItemParameters `json:"calibrated,omitempty"`
}

// ExamRequest is the body of an exam creation.
type ExamRequest struct {
	Title   string `json:"title"`
	Subject string `json:"subject"`
	// NPSN lists the schools the exam is assigned to.
	NPSN            []string   `json:"npsn"`
	StartsAt        time.Time  `json:"starts_at"`
	EndsAt          time.Time  `json:"ends_at"`
	DurationMinutes int        `json:"duration_minutes"`
	Questions       []Question `json:"questions"`
	// Stimuli are what groups of the questions share.
	Stimuli []Stimulus `json:"stimuli,omitempty"`
}

// Stimulus is what several questions of an exam share: a passage, a table,
// an image or an audio, written like a question's text (Format "" plain or
// "markdown"). Questions name it by ID. It is the same type as a package's
// stimulus (labwire.PackageStimulus), whose HTML the portal sets.
type Stimulus = labwire.PackageStimulus

// Exam is an exam as operators read it.
type Exam struct {
	ID              string    `json:"id"`
	Title           string    `json:"title"`
	Subject         string    `json:"subject"`
	NPSN            []string  `json:"npsn"`
	StartsAt        time.Time `json:"starts_at"`
	EndsAt          time.Time `json:"ends_at"`
	DurationMinutes int       `json:"duration_minutes"`
	// QuestionCount and CreatedAt are extensions of the portal.
	QuestionCount int       `json:"question_count"`
	CreatedAt     time.Time `json:"created_at"`
	// Questions, with the answer key, are set by CreateExam and GetExam,
	// not by ListExams.
	Questions []Question `json:"questions,omitempty"`
	// Stimuli are set with the questions.
	Stimuli []Stimulus `json:"stimuli,omitempty"`
	// Problems, set by CreateExam and UpdateExam, are what the questions'
	// texts show otherwise than written: a formula that does not convert,
	// a missing media file (the portal's docs/exam-content.md).
	Problems []ContentProblem `json:"problems,omitempty"`
}

// ContentProblem is one problem of an exam's texts.
type ContentProblem struct {
	QuestionID string `json:"question_id"`
	// Field is "text" or "options[<id>]".
	Field string `json:"field"`
	// Code is TEX_ERROR, MEDIA_NOT_FOUND, ALT_TEXT_REQUIRED, REMOTE_MEDIA or
	// LINK_NOT_ALLOWED.
	Code    string `json:"code"`
	Message string `json:"message"`
	Source  string `json:"source"`
}

// CreateExam creates an exam (POST /api/v1/admin/exams; body up to 256 MiB).
func (s *ExamAdminService) CreateExam(ctx context.Context, req *ExamRequest) (*Exam, *Response, error) {
	ctx = creating(ctx)
	if req == nil {
		return nil, nil, errorf("create exam: nil request")
	}
	r := *req
	r.StartsAt, r.EndsAt = r.StartsAt.UTC(), r.EndsAt.UTC()
	return examData[*Exam](ctx, s.client, http.MethodPost, "admin/exams", nil, &r)
}

// UpdateExam replaces an exam that has no answers yet (PUT
// /api/v1/admin/exams/{id}, the body of CreateExam); one with answers
// gives 409 CodeExamHasAnswers. Lab servers pull the new version at their
// next sync.
func (s *ExamAdminService) UpdateExam(ctx context.Context, examID string, req *ExamRequest) (*Exam, *Response, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, nil, err
	}
	if req == nil {
		return nil, nil, errorf("update exam: nil request")
	}
	r := *req
	r.StartsAt, r.EndsAt = r.StartsAt.UTC(), r.EndsAt.UTC()
	return examData[*Exam](ctx, s.client, http.MethodPut, "admin/exams/"+id, nil, &r)
}

// ExamListOptions filters ListExams.
type ExamListOptions struct {
	// NPSN keeps the exams assigned to one school.
	NPSN string
}

// ListExams returns exams without their questions (GET
// /api/v1/admin/exams). opts may be nil.
func (s *ExamAdminService) ListExams(ctx context.Context, opts *ExamListOptions) ([]*Exam, *Response, error) {
	q := url.Values{}
	if opts != nil {
		setIf(q, "npsn", opts.NPSN)
	}
	return examData[[]*Exam](ctx, s.client, http.MethodGet, "admin/exams", q, nil)
}

// GetExam returns one exam with its questions and answer key (GET
// /api/v1/admin/exams/{id}).
func (s *ExamAdminService) GetExam(ctx context.Context, examID string) (*Exam, *Response, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, nil, err
	}
	return examData[*Exam](ctx, s.client, http.MethodGet, "admin/exams/"+id, nil, nil)
}

// DeleteExam deletes an exam that has no answers yet (DELETE
// /api/v1/admin/exams/{id}); one with answers gives 409
// CodeExamHasAnswers.
func (s *ExamAdminService) DeleteExam(ctx context.Context, examID string) (*Response, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, err
	}
	return s.client.exam(ctx, http.MethodDelete, "admin/exams/"+id, nil, nil, nil, credBearer)
}

// ExamResults is the scores of an exam.
type ExamResults struct {
	ExamID   string  `json:"exam_id"`
	MaxScore float64 `json:"max_score"`
	// AnswerRows counts the stored answer rows of the exam (one per
	// student and question): a re-push stores nothing twice.
	AnswerRows int            `json:"answer_rows"`
	Results    []MemberResult `json:"results"`
}

// MemberResult is one student's score.
type MemberResult struct {
	MemberID string `json:"member_id"`
	Nama     string `json:"nama"`
	Username string `json:"username"`
	Kelas    string `json:"kelas"`
	// Score is the points earned so far: final only when Graded.
	Score    float64 `json:"score"`
	Answered int     `json:"answered"`
	Correct  int     `json:"correct"`
	// Graded is false while essay answers wait for their grades: Pending
	// counts them and PendingPoints is what they may still earn.
	Graded        bool    `json:"graded"`
	Pending       int     `json:"pending"`
	PendingPoints float64 `json:"pending_points"`
}

// ExamResults returns every student's score in an exam, computed from the
// pushed answers (GET /api/v1/admin/exams/{id}/results).
func (s *ExamAdminService) ExamResults(ctx context.Context, examID string) (*ExamResults, *Response, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, nil, err
	}
	return examData[*ExamResults](ctx, s.client, http.MethodGet, "admin/exams/"+id+"/results", nil, nil)
}

// ---- Answers: import of a lab's export file ----

// Codes of refusals of an answer export file as a whole (ImportAnswers).
const (
	CodeExportInvalid  = "EXPORT_INVALID"   // 400 not an answer export file, or a format this portal does not read
	CodeExportCorrupt  = "EXPORT_CORRUPT"   // 422 does not decrypt and authenticate under the school's key
	CodeUnknownServer  = "UNKNOWN_SERVER"   // 422 server_code not bound to the file's school
	CodeExportTooLarge = "EXPORT_TOO_LARGE" // 413
)

// AnswerImportResult is the outcome of importing an answer export file.
type AnswerImportResult struct {
	ServerCode string    `json:"server_code"`
	NPSN       string    `json:"npsn"`
	LicenseID  string    `json:"license_id"`
	ExportedAt time.Time `json:"exported_at"`
	// ChecksumSHA256 is the checksum of the file's encrypted body, as
	// labagent export printed it.
	ChecksumSHA256 string `json:"checksum_sha256"`
	// Records is the number of answer records in the file.
	Records int `json:"records"`
	// Accepted, Duplicates and Rejected count the batches by outcome.
	Accepted   int                 `json:"accepted"`
	Duplicates int                 `json:"duplicates"`
	Rejected   int                 `json:"rejected"`
	Batches    []BatchImportResult `json:"batches"`
}

// BatchImportResult is the outcome of one batch of an answer export file:
// the outcome its push would have had.
type BatchImportResult struct {
	IdempotencyKey string `json:"idempotency_key"`
	Records        int    `json:"records"`
	// Outcome is OutcomeAccepted, OutcomeDuplicate or OutcomeRejected.
	Outcome string `json:"outcome"`
	// SyncID is the push that stored the batch (accepted or duplicate).
	SyncID string `json:"sync_id"`
	// Duplicate is true when the portal had the batch already, by a push
	// or an earlier import: nothing was stored again.
	Duplicate bool `json:"duplicate"`
	// Code and Message say why a batch was rejected, as for a push (e.g.
	// CodeUnknownExam).
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ImportAnswers uploads an answer export file written by "labagent export"
// (POST /api/v1/admin/answers/import, Content-Type
// application/octet-stream; up to 256 MiB), read from r as it is. Each batch
// is stored as its push would be, with the same Idempotency-Key: a batch the
// portal already has is a duplicate, so importing a file again is safe.
// Batches are independent: a rejected one is reported in the result (with
// a nil error) and does not stop the others.
//
// The whole file is refused, nothing stored, with 400 CodeExportInvalid,
// 422 CodeChecksumMismatch (damaged copy), 422 CodeUnknownServer, 422
// CodeExportCorrupt (altered, or under another key), 413
// CodeBodyTooLarge.
func (s *ExamAdminService) ImportAnswers(ctx context.Context, r io.Reader) (*AnswerImportResult, *Response, error) {
	if r == nil {
		return nil, nil, errorf("import answers: nil reader")
	}
	req, err := s.client.newRequest(ctx, http.MethodPost, examPrefix+"admin/answers/import", nil, r, credBearer)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	out := new(AnswerImportResult)
	resp, err := s.client.do(ctx, req, out, decodeExamError)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// ---- Members: login cards, exam passwords, import ----

// LoginCard is one student's exam login.
type LoginCard struct {
	MemberID     string `json:"member_id"`
	NPSN         string `json:"npsn"`
	Kelas        string `json:"kelas"`
	Nama         string `json:"nama"`
	Username     string `json:"username"`
	NISN         string `json:"nisn"`
	ExamPassword string `json:"exam_password"`
}

// LoginCards returns the exam logins of a school's students (GET
// /api/v1/admin/login-cards?format=json).
func (s *ExamAdminService) LoginCards(ctx context.Context, npsn string) ([]*LoginCard, *Response, error) {
	q := url.Values{"format": {"json"}}
	setIf(q, "npsn", npsn)
	return examData[[]*LoginCard](ctx, s.client, http.MethodGet, "admin/login-cards", q, nil)
}

// LoginCardsCSV copies the exam logins of a school's students as CSV to w
// (GET /api/v1/admin/login-cards?format=csv): a header row
// npsn,kelas,nama,username,nisn,exam_password, then one row per student.
func (s *ExamAdminService) LoginCardsCSV(ctx context.Context, npsn string, w io.Writer) (*Response, error) {
	if w == nil {
		return nil, errorf("login cards: nil writer")
	}
	q := url.Values{"format": {"csv"}}
	setIf(q, "npsn", npsn)
	req, err := s.client.newRequest(ctx, http.MethodGet, examPrefix+"admin/login-cards", q, nil, credBearer)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/csv")
	return s.client.do(ctx, req, w, decodeExamError)
}

// ExamPassword is a student's new exam password.
type ExamPassword struct {
	MemberID     string `json:"member_id"`
	Username     string `json:"username"`
	ExamPassword string `json:"exam_password"`
}

// ResetExamPassword gives a student a new exam password (POST
// /api/v1/admin/members/{id}/reset-exam-password), shipped hashed in the
// school's next package.
func (s *ExamAdminService) ResetExamPassword(ctx context.Context, memberID string) (*ExamPassword, *Response, error) {
	id, err := segment("member id", memberID)
	if err != nil {
		return nil, nil, err
	}
	return examData[*ExamPassword](ctx, s.client, http.MethodPost, "admin/members/"+id+"/reset-exam-password", nil, nil)
}

// MemberInput is one member of an import. Nama is required; NPSN may come
// from ImportOptions.NPSN.
type MemberInput struct {
	NPSN             string `json:"npsn,omitempty"`
	Nama             string `json:"nama"`
	Role             string `json:"role,omitempty"`
	DapodikID        string `json:"dapodik_id,omitempty"`
	NISN             string `json:"nisn,omitempty"`
	NIP              string `json:"nip,omitempty"`
	NIK              string `json:"nik,omitempty"`
	Username         string `json:"username,omitempty"`
	Email            string `json:"email,omitempty"`
	Kelas            string `json:"kelas,omitempty"`
	AcademicYearName string `json:"academic_year_name,omitempty"`
	GoogleEmail      string `json:"google_email,omitempty"`
}

// ImportOptions are the parameters of a member import.
type ImportOptions struct {
	// NPSN is the school of rows that name none.
	NPSN string
}

// ImportReport is the outcome of a member import.
type ImportReport struct {
	Created  int         `json:"created"`
	Updated  int         `json:"updated"`
	Rejected int         `json:"rejected"`
	Rows     []ImportRow `json:"rows"`
}

// ImportRow is the outcome of one row of an import.
type ImportRow struct {
	// Row is the 1-based number of the data row (the CSV header row is
	// not counted).
	Row      int    `json:"row"`
	MemberID string `json:"member_id"`
	// Action is what was done: created, updated or rejected.
	Action string `json:"action"`
	// Code and Message say why a row was rejected.
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ImportMembers upserts members (POST /api/v1/admin/members/import, JSON
// {"members": [...]}; body up to 32 MiB). Rows that fail validation are
// reported in the result, not written. opts may be nil.
func (s *ExamAdminService) ImportMembers(ctx context.Context, members []MemberInput, opts *ImportOptions) (*ImportReport, *Response, error) {
	if members == nil {
		members = []MemberInput{}
	}
	body := struct {
		Members []MemberInput `json:"members"`
	}{members}
	return s.importMembers(ctx, body, "", opts)
}

// ImportMembersCSV upserts members from CSV read from r (POST
// /api/v1/admin/members/import, Content-Type text/csv; body up to 32 MiB):
// a header row with columns named like MemberInput's JSON fields, nama
// required. opts may be nil.
func (s *ExamAdminService) ImportMembersCSV(ctx context.Context, r io.Reader, opts *ImportOptions) (*ImportReport, *Response, error) {
	if r == nil {
		return nil, nil, errorf("import members: nil reader")
	}
	return s.importMembers(ctx, r, "text/csv", opts)
}

func (s *ExamAdminService) importMembers(ctx context.Context, body any, contentType string, opts *ImportOptions) (*ImportReport, *Response, error) {
	ctx = creating(ctx)
	q := url.Values{}
	if opts != nil {
		setIf(q, "npsn", opts.NPSN)
	}
	req, err := s.client.newRequest(ctx, http.MethodPost, examPrefix+"admin/members/import", q, body, credBearer)
	if err != nil {
		return nil, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	out := new(ImportReport)
	resp, err := s.client.do(ctx, req, out, decodeExamError)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// ---- Academic years ----

// AcademicYear is a school year such as 2025/2026; one at most is active.
type AcademicYear struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	IsActive  bool      `json:"is_active"`
	CreatedAt time.Time `json:"created_at"`
}

// CreateAcademicYear creates an academic year named "YYYY/YYYY" (POST
// /api/v1/admin/academic-years); an active one deactivates the others. An
// existing name gives 409 CodeAcademicYearExists.
func (s *ExamAdminService) CreateAcademicYear(ctx context.Context, name string, active bool) (*AcademicYear, *Response, error) {
	ctx = creating(ctx)
	body := struct {
		Name     string `json:"name"`
		IsActive bool   `json:"is_active"`
	}{name, active}
	return examData[*AcademicYear](ctx, s.client, http.MethodPost, "admin/academic-years", nil, body)
}

// ListAcademicYears returns every academic year, newest first (GET
// /api/v1/admin/academic-years).
func (s *ExamAdminService) ListAcademicYears(ctx context.Context) ([]*AcademicYear, *Response, error) {
	return examData[[]*AcademicYear](ctx, s.client, http.MethodGet, "admin/academic-years", nil, nil)
}

// ActivateAcademicYear makes a year the only active one (POST
// /api/v1/admin/academic-years/{id}/activate).
func (s *ExamAdminService) ActivateAcademicYear(ctx context.Context, yearID string) (*AcademicYear, *Response, error) {
	id, err := segment("academic year id", yearID)
	if err != nil {
		return nil, nil, err
	}
	return examData[*AcademicYear](ctx, s.client, http.MethodPost, "admin/academic-years/"+id+"/activate", nil, nil)
}

// ---- API keys ----

// APIKey is a key of the directory API as operators see it.
type APIKey struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Prefix is the key's first characters, to tell keys apart.
	Prefix    string    `json:"prefix"`
	CreatedAt time.Time `json:"created_at"`
	// RevokedAt and LastUsedAt are extensions of the portal; nil when not
	// sent or not set.
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`

	// Key is the key itself, set only in the result of CreateAPIKey: the
	// portal shows it once and keeps only its hash.
	Key string `json:"-"`
}

// CreateAPIKey creates a directory API key (POST /api/v1/admin/api-keys);
// the result's Key is the only time the key is shown.
func (s *ExamAdminService) CreateAPIKey(ctx context.Context, name string) (*APIKey, *Response, error) {
	ctx = creating(ctx)
	body := struct {
		Name string `json:"name"`
	}{name}
	var out struct {
		Data *APIKey `json:"data"`
		Key  string  `json:"key"`
	}
	resp, err := s.client.exam(ctx, http.MethodPost, "admin/api-keys", nil, body, &out, credBearer)
	if err != nil {
		return nil, resp, err
	}
	if out.Data == nil {
		out.Data = new(APIKey)
	}
	out.Data.Key = out.Key
	return out.Data, resp, nil
}

// ListAPIKeys returns every API key, without the keys (GET
// /api/v1/admin/api-keys).
func (s *ExamAdminService) ListAPIKeys(ctx context.Context) ([]*APIKey, *Response, error) {
	return examData[[]*APIKey](ctx, s.client, http.MethodGet, "admin/api-keys", nil, nil)
}

// RevokeAPIKey revokes an API key at once (DELETE
// /api/v1/admin/api-keys/{id}). The portal answers the revoked key; it is
// returned when sent.
func (s *ExamAdminService) RevokeAPIKey(ctx context.Context, keyID string) (*APIKey, *Response, error) {
	id, err := segment("API key id", keyID)
	if err != nil {
		return nil, nil, err
	}
	return examData[*APIKey](ctx, s.client, http.MethodDelete, "admin/api-keys/"+id, nil, nil)
}
