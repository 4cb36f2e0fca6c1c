package exam

import (
	"context"
	"io"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/identity"
)

// Errors that Store implementations return for the conditions named in the
// method comments. Callers compare with errors.Is.
var (
	ErrHardwareMismatch     = apperr.New(apperr.Forbidden, "HARDWARE_MISMATCH", "this server_code is bound to another machine; an operator must reset the binding")
	ErrServerNPSNMismatch   = apperr.New(apperr.Forbidden, "NPSN_MISMATCH", "this server_code is bound to another school")
	ErrAcademicYearExists   = apperr.New(apperr.Conflict, "ACADEMIC_YEAR_EXISTS", "an academic year with this name already exists")
	ErrExamHasAnswers       = apperr.New(apperr.Conflict, "EXAM_HAS_ANSWERS", "the exam has answers and cannot be deleted")
	ErrIdempotencyConflict  = apperr.New(apperr.Conflict, "IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used for a different payload")
	ErrDuplicateMemberField = apperr.New(apperr.Conflict, "DUPLICATE_MEMBER", "another member already has this value")
	ErrGradeConflict        = apperr.New(apperr.Conflict, "GRADE_CONFLICT", "another grader changed this grade since you read it; read it again and save over it knowingly")
)

// Store is everything the exam domain needs from storage. Every method is one
// transaction: on any error nothing it would have written is kept. Methods
// returning a single record return ErrNotFound when there is none.
type Store interface {
	// Ping reports whether the store is reachable.
	Ping(ctx context.Context) error

	SecretStore
	// The operator accounts, for the graders of essays.
	identity.UserStore
	LicenseStore
	ServerStore
	ExamStore
	MemberStore
	AcademicYearStore
	APIKeyStore
	SyncStore
	MonitorStore
	PackageStore
	PackageBlobStore
	MediaStore
	GradeStore
	CalibrationStore
}

// SecretStore keeps the portal's own secrets (JWT secret, signing key, package
// keys) so that every portal instance sharing the store uses the same ones.
type SecretStore interface {
	// GetOrCreateSecret returns the value stored under name; when there is
	// none it stores value and returns it. Concurrent callers, in this process
	// or another instance, all get the one value that was stored first.
	GetOrCreateSecret(ctx context.Context, name string, value []byte) ([]byte, error)
}

// LicenseFilter narrows ListLicenses; empty fields match everything.
type LicenseFilter struct {
	NPSN string
}

// LicenseStore keeps issued licences.
type LicenseStore interface {
	// CreateLicense stores l.
	CreateLicense(ctx context.Context, l License) error
	// GetLicense returns the licence with the id.
	GetLicense(ctx context.Context, id string) (License, error)
	// ListLicenses returns matching licences, newest IssuedAt first.
	ListLicenses(ctx context.Context, f LicenseFilter) ([]License, error)
	// RevokeLicense marks the licence revoked at the given time and returns it.
	// Revoking a revoked licence keeps the first revocation time.
	RevokeLicense(ctx context.Context, id string, at time.Time) (License, error)
}

// ServerStore keeps the binding of each server_code to one machine.
type ServerStore interface {
	// BindServer returns the binding of b.ServerCode. When there is none it
	// stores b and returns it. When one exists for another HardwareID it
	// returns ErrHardwareMismatch, for another NPSN ErrServerNPSNMismatch;
	// otherwise it updates LicenseID to b.LicenseID and returns the binding
	// (keeping the first BoundAt).
	BindServer(ctx context.Context, b ServerBinding) (ServerBinding, error)
	// GetServerBinding returns the binding of the server_code.
	GetServerBinding(ctx context.Context, serverCode string) (ServerBinding, error)
	// ListServerBindings returns the bindings of a school (all when npsn is
	// empty), ordered by server_code.
	ListServerBindings(ctx context.Context, npsn string) ([]ServerBinding, error)
	// DeleteServerBinding removes the binding so the next handshake binds
	// afresh; ErrNotFound when there is none.
	DeleteServerBinding(ctx context.Context, serverCode string) error
}

// ExamFilter narrows ListExams; empty fields match everything.
type ExamFilter struct {
	NPSN string // exams assigned to this school
}

// ExamStore keeps exams. Creating and deleting an exam bumps the content
// revision (see PackageStore) in the same transaction.
type ExamStore interface {
	// CreateExam stores e with its questions.
	CreateExam(ctx context.Context, e Exam) error
	// GetExam returns the exam with its questions and answer key.
	GetExam(ctx context.Context, id string) (Exam, error)
	// ListExams returns matching exams ordered by StartsAt then ID, with
	// Questions nil and QuestionCount set.
	ListExams(ctx context.Context, f ExamFilter) ([]Exam, error)
	// UpdateExam replaces the exam of e.ID (every field but CreatedAt) and
	// its questions; ErrExamHasAnswers when answers were pushed for it,
	// ErrNotFound when there is no such exam.
	UpdateExam(ctx context.Context, e Exam) error
	// DeleteExam removes the exam; ErrExamHasAnswers when answers were pushed for it.
	DeleteExam(ctx context.Context, id string) error
	// SetItemParameters sets the Calibrated parameters of the exam's
	// questions named in params (by question id; the others keep theirs),
	// answers or not: they do not change what students see or how they
	// are scored. ErrNotFound when there is no such exam; a question id
	// the exam lacks is ignored.
	SetItemParameters(ctx context.Context, examID string, params map[string]ItemParameters) error
}

// LookupField names a member field that identifies one member.
type LookupField string

// The lookup fields of GET /api/v1/members/lookup.
const (
	LookupID        LookupField = "id"
	LookupUsername  LookupField = "username"
	LookupEmail     LookupField = "email"
	LookupDapodikID LookupField = "dapodik_id"
	LookupNISN      LookupField = "nisn"
	LookupNIP       LookupField = "nip"
	LookupNIK       LookupField = "nik"
)

// LookupFields lists every LookupField in the order the API documents them.
var LookupFields = []LookupField{LookupID, LookupUsername, LookupEmail, LookupDapodikID, LookupNISN, LookupNIP, LookupNIK}

// MemberFilter narrows ListMembers. Empty fields match everything.
type MemberFilter struct {
	Search string // case-insensitive substring of nama, username, nisn or email
	Role   string
	Kelas  string
	NPSN   string
	// AcademicYear matches the members of one academic year, by name
	// (Member.AcademicYearName).
	AcademicYear string
	Offset       int
	Limit        int // 0 means no limit
}

// ImportAction is what ImportMembers did with one row.
type ImportAction string

// Import actions.
const (
	ImportCreated  ImportAction = "created"
	ImportUpdated  ImportAction = "updated"
	ImportRejected ImportAction = "rejected"
)

// ImportResult is the outcome of one row of ImportMembers.
type ImportResult struct {
	Row      int // index of the row in the input slice
	MemberID string
	Action   ImportAction
	Code     string // set when rejected, e.g. DUPLICATE_MEMBER
	Message  string // set when rejected; names the field and value
}

// MemberStore keeps the member directory.
type MemberStore interface {
	// ImportMembers upserts members in one transaction. A row whose Username
	// matches an existing member updates it, keeping that member's ID,
	// CreatedAt, ExamPasswordGen and ExamPasswordHash; other rows are created
	// as given. A row is rejected (and nothing of it written) when one of its
	// non-empty unique fields (username, email, dapodik_id, nisn, nip, nik)
	// belongs to another member, including one created by an earlier row of
	// the same call. It bumps the content revision when any row was written.
	ImportMembers(ctx context.Context, ms []Member) ([]ImportResult, error)
	// LookupMember returns the member whose field equals value exactly
	// (email and username compared case-insensitively).
	LookupMember(ctx context.Context, field LookupField, value string) (Member, error)
	// ListMembers returns one page of matching members ordered by Nama then
	// ID, and the total number of matches.
	ListMembers(ctx context.Context, f MemberFilter) ([]Member, int, error)
	// SetExamPassword stores a new exam password generation and hash for the
	// member, bumps the content revision and returns the updated member.
	SetExamPassword(ctx context.Context, memberID string, gen int, hash string) (Member, error)
}

// AcademicYearStore keeps academic years; at most one is active at a time.
type AcademicYearStore interface {
	// CreateAcademicYear stores ay; when ay.IsActive it deactivates every
	// other year in the same transaction. ErrAcademicYearExists on a taken name.
	CreateAcademicYear(ctx context.Context, ay AcademicYear) error
	// ActivateAcademicYear makes the year the only active one and returns it.
	ActivateAcademicYear(ctx context.Context, id string) (AcademicYear, error)
	// GetActiveAcademicYear returns the active year; ErrNotFound when none is.
	GetActiveAcademicYear(ctx context.Context) (AcademicYear, error)
	// ListAcademicYears returns every year, newest name first.
	ListAcademicYears(ctx context.Context) ([]AcademicYear, error)
}

// APIKeyStore keeps hashed API keys of the member directory API.
type APIKeyStore interface {
	// CreateAPIKey stores k.
	CreateAPIKey(ctx context.Context, k APIKey) error
	// GetAPIKeyByHash returns the key with the hash, revoked or not.
	GetAPIKeyByHash(ctx context.Context, hash string) (APIKey, error)
	// ListAPIKeys returns every key, newest first.
	ListAPIKeys(ctx context.Context) ([]APIKey, error)
	// RevokeAPIKey marks the key revoked (keeping the first time) and returns it.
	RevokeAPIKey(ctx context.Context, id string, at time.Time) (APIKey, error)
}

// AnswerQuery selects stored answers of one exam, in (MemberID,
// QuestionID) order.
type AnswerQuery struct {
	ExamID   string
	MemberID string // only this member's answers, when set
	NPSN     string // only the answers of this school's members, when set
	// NPSNs, when set, keeps only the answers of the members of these
	// schools (a region's), besides the filters above.
	NPSNs []string
	// AfterMember and AfterQuestion resume a walk: only the answers after
	// (AfterMember, AfterQuestion), when AfterMember is set.
	AfterMember, AfterQuestion string
	Offset                     int // skip this many matching answers
	Limit                      int // at most this many; 0: no limit
}

// SyncLogFilter narrows ListSyncLogs; empty fields match everything.
type SyncLogFilter struct {
	NPSN       string
	ServerCode string
	Outcome    SyncOutcome
	Limit      int // 0 means no limit
}

// SyncStore keeps pushed answers and the sync log.
type SyncStore interface {
	// SaveAnswers stores a push in one transaction:
	//   - when b.IdempotencyKey is set and a push from b.ServerCode with that
	//     key exists: same checksum returns that push's receipt with Duplicate
	//     set; another checksum returns ErrIdempotencyConflict;
	//   - else when a push from b.ServerCode with b.Checksum exists, returns
	//     its receipt with Duplicate set;
	//   - otherwise upserts each answer by (ExamID, MemberID, QuestionID),
	//     keeping whichever has the newer AnsweredAt (the incoming one on a
	//     tie), and appends a sync log record {ID: b.SyncID, Action:
	//     push_results, Outcome: accepted, RecordCount: len(b.Answers), ...}.
	// Duplicates append nothing.
	SaveAnswers(ctx context.Context, b AnswerBatch) (Receipt, error)
	// AppendSyncLog appends a record (used for handshakes, pulls and rejected pushes).
	AppendSyncLog(ctx context.Context, l SyncLog) error
	// ListSyncLogs returns matching records, newest ReceivedAt first.
	ListSyncLogs(ctx context.Context, f SyncLogFilter) ([]SyncLog, error)
	// ListAnswers returns the answers matching q, ordered by MemberID then
	// QuestionID.
	ListAnswers(ctx context.Context, q AnswerQuery) ([]Answer, error)
	// CountAnswers returns the number of answers matching q's filters
	// (ExamID, MemberID, NPSN; the cursor and paging are ignored).
	CountAnswers(ctx context.Context, q AnswerQuery) (int, error)
}

// MonitorFilter narrows ListMonitors; empty fields match everything.
type MonitorFilter struct {
	NPSN string
}

// MonitorStore keeps one monitor record per lab server.
type MonitorStore interface {
	// UpsertMonitors writes the records of ms, whose server codes are
	// distinct, at once: each is created with its ID when absent, otherwise
	// every field but ID is replaced. On error none is written.
	UpsertMonitors(ctx context.Context, ms []Monitor) error
	// ListMonitors returns matching records ordered by server_code.
	ListMonitors(ctx context.Context, f MonitorFilter) ([]Monitor, error)
}

// PackageReader reads the encrypted bytes of a package.
type PackageReader interface {
	io.ReadSeeker
	io.Closer
}

// PackageStore keeps the encrypted exam package of each school and the
// content revision that tells when packages may be stale.
type PackageStore interface {
	// ContentRevision returns a number that grows with every change to exams,
	// members or exam passwords.
	ContentRevision(ctx context.Context) (int64, error)
	// GetPackage returns the meta of the school's current package. npsn is
	// the key the package was saved under (meta.NPSN): a school's npsn, or
	// the key of its package of another format (the service's choice).
	GetPackage(ctx context.Context, npsn string) (PackageMeta, error)
	// SavePackage makes meta the current package of meta.NPSN. r yields the
	// meta.Size encrypted bytes whose SHA-256 is meta.Checksum; when a blob
	// with that checksum is stored already, r need not be read. Blobs no
	// longer referenced by any school may be removed.
	SavePackage(ctx context.Context, meta PackageMeta, r io.Reader) error
	// OpenPackage opens the encrypted bytes of a package saved with
	// SavePackage. It reads lazily: it must not load the package in memory.
	OpenPackage(ctx context.Context, meta PackageMeta) (PackageReader, error)
}

// PackageBlobStore answers which blobs the current packages name (the
// PackageMeta.Blobs each SavePackage recorded), for the garbage collection of
// blobs and its integrity check.
type PackageBlobStore interface {
	// PackageBlobNames returns the names that at least one current package
	// names, each once, in byte-wise order.
	PackageBlobNames(ctx context.Context) ([]string, error)
	// PackagesNamingBlobs returns, for each of names that a current package
	// names, the keys (PackageMeta.NPSN) of those packages, in byte-wise
	// order. Names no package names are absent from the map.
	PackagesNamingBlobs(ctx context.Context, names []string) (map[string][]string, error)
	// PackagesWithoutBlobNames returns the keys, in byte-wise order, of the
	// current packages of format 3 (BlobsPackageFormat) whose blob names
	// were never recorded: saved by a release before SavePackage recorded
	// them. A package saved since, naming no blob, is not one of them.
	PackagesWithoutBlobNames(ctx context.Context) ([]string, error)
}

// GradeStore keeps the grades of essay answers, every version of each (the
// history of changes), and the exams assigned to each grader.
type GradeStore interface {
	// SaveGrade stores g as version g.Version of the grade of (g.ExamID,
	// g.MemberID, g.QuestionID) when the latest stored version is
	// g.Version-1 (none stored: g.Version is 1); otherwise it returns
	// ErrGradeConflict and writes nothing. Two saves of the same version
	// never both succeed.
	SaveGrade(ctx context.Context, g Grade) error
	// GetGrade returns the latest version of the grade of one answer.
	GetGrade(ctx context.Context, examID, memberID, questionID string) (Grade, error)
	// ListGrades returns the latest version of every grade of the exam
	// (of one question when questionID is set), ordered by MemberID then
	// QuestionID.
	ListGrades(ctx context.Context, examID, questionID string) ([]Grade, error)
	// GradeHistory returns every version of the grade of one answer,
	// oldest first; empty when it was never graded.
	GradeHistory(ctx context.Context, examID, memberID, questionID string) ([]Grade, error)
	// SetGraderExams replaces the exams assigned to the grader by examIDs
	// (none: the grader may grade nothing).
	SetGraderExams(ctx context.Context, graderID string, examIDs []string) error
	// GraderExams returns the ids of the exams assigned to the grader,
	// sorted.
	GraderExams(ctx context.Context, graderID string) ([]string, error)
}

// CalibrationRecord is what the store keeps of the calibrations of one
// exam with one model: the latest that finished and the run going on.
type CalibrationRecord struct {
	ExamID string
	Model  string
	// Result is the latest finished calibration as the exam domain
	// encoded it (nil when none has finished); its run began reading the
	// answers at StartedAt and ended at FinishedAt.
	Result                []byte
	StartedAt, FinishedAt time.Time
	// Run is the run going on, as its portal instance last wrote it; nil
	// when none is.
	Run *CalibrationRun
}

// CalibrationRun is how far a calibration has got.
type CalibrationRun struct {
	// StartedAt is when the run began; UpdatedAt when its portal instance
	// last wrote this record, at least every few seconds while it runs.
	StartedAt, UpdatedAt time.Time
	// Stage is reading (the answers), fit, errors or item-fit.
	Stage string
	// Students is the number of students read so far; Iteration the
	// fit's iterations done.
	Students, Iteration int
}

// CalibrationStore keeps the latest calibration of each exam and model,
// and lets one portal instance at a time run one.
type CalibrationStore interface {
	// LockCalibration waits for the lock of the calibration of the exam
	// with the model and takes it until unlock; it returns ctx's error if
	// ctx ends first. On PostgreSQL the lock is a session-level advisory
	// lock on a connection of its own, released when that connection
	// breaks, so an instance that dies frees it; a wait holds no
	// connection.
	LockCalibration(ctx context.Context, examID, model string) (unlock func(), err error)
	// GetCalibration returns the record of the exam and model;
	// ErrNotFound when there is none.
	GetCalibration(ctx context.Context, examID, model string) (CalibrationRecord, error)
	// SaveCalibrationRun writes the run going on, keeping the latest
	// result; a nil run clears it (a run that failed). ErrNotFound when
	// there is no such exam.
	SaveCalibrationRun(ctx context.Context, examID, model string, run *CalibrationRun) error
	// SaveCalibration writes r's result as the latest and clears the run;
	// ErrNotFound when there is no such exam. Deleting an exam deletes its
	// records.
	SaveCalibration(ctx context.Context, r CalibrationRecord) error
}
