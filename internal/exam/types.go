// Package exam is the domain of the exam synchronisation portal: operators,
// licences, lab-server bindings, exams and their packages, members, academic
// years, API keys, answers, sync logs and server monitoring.
//
// It holds the types, the rules that need no storage (licence signing, package
// encryption, answer checksums, scoring) and the Store interface that the
// storage packages implement. It imports no storage or HTTP package.
package exam

import (
	"time"

	"github.com/seedhq/portal/internal/apperr"
)

// License is a signed licence issued to one school's lab server.
type License struct {
	ID         string
	NPSN       string
	SchoolName string
	// Region is where the school is, a path of names broadest first
	// ("Jawa Barat/Kota Bandung"), "" for none: the item analysis can be
	// narrowed to a region or any part of it. It is the portal's record,
	// not part of the signed licence.
	Region        string
	HardwareID    string
	MaxStudents   int
	OperatingMode string
	IssuedAt      time.Time
	ExpiresAt     time.Time
	RevokedAt     *time.Time // nil while the licence is not revoked
	Token         string     // the license_token handed to the school
}

// Revoked reports whether the licence has been revoked.
func (l License) Revoked() bool { return l.RevokedAt != nil }

// ServerBinding records which machine (hardware_id) a server_code belongs to.
// It is created by the first successful handshake.
type ServerBinding struct {
	ServerCode string
	NPSN       string
	HardwareID string
	LicenseID  string
	BoundAt    time.Time
}

// QuestionType is the kind of a question.
type QuestionType string

// Question types. Choice types are scored automatically; short_answer is scored
// by comparing with the accepted answers (case- and space-insensitive); essay
// is never auto-scored: graders grade it (grading.go).
const (
	SingleChoice   QuestionType = "single_choice"
	MultipleChoice QuestionType = "multiple_choice"
	TrueFalse      QuestionType = "true_false"
	ShortAnswer    QuestionType = "short_answer"
	Essay          QuestionType = "essay"
	// StatementGrid (pilihan ganda kompleks) is several statements, each
	// answered with one of the question's columns (by default "true" and
	// "false"). The key names each statement's column, "s1=true"; an
	// answer is such pairs joined by ",".
	StatementGrid QuestionType = "statement_grid"
	// Matching (menjodohkan) pairs each premise with one of the question's
	// responses (there may be more responses than premises). The key names
	// each premise's response, "p1=r2"; an answer is such pairs joined by
	// ",". Unless ReuseResponses, a response goes with one premise at most.
	Matching QuestionType = "matching"
	// Numeric (isian angka) is answered with a number, compared as a
	// number (ParseNumber: either decimal separator) with the question's
	// tolerance. The key lists the accepted numbers.
	Numeric QuestionType = "numeric"
	// Cloze (isian rumpang) is a text with blanks, each written [[id]] in
	// the text and answered with a short text, a number or one of its
	// options, each with its own key and points (Blank). An answer is a
	// JSON object of blank id to what was given.
	Cloze QuestionType = "cloze"
)

// Scoring of a question with several parts (a statement grid, a matching
// question).
const (
	// ScoringAll (the default, "") gives the points only when every part
	// is right.
	ScoringAll = ""
	// ScoringPartial gives each right part its share of the points.
	ScoringPartial = "partial"
)

// Option is one choice of a choice question.
type Option struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Question is one question of an exam, with its answer key.
type Question struct {
	ID   string       `json:"id"`
	Type QuestionType `json:"type"`
	// Format is how Text and the options' texts are written
	// (docs/exam-content.md): "" (plain) or "markdown".
	Format  string   `json:"format,omitempty"`
	Text    string   `json:"text"`
	Options []Option `json:"options,omitempty"`
	// Statements and Columns are a statement grid's rows and its answer
	// columns (Columns empty: "true" Benar and "false" Salah).
	Statements []Option `json:"statements,omitempty"`
	Columns    []Option `json:"columns,omitempty"`
	// Premises and Responses are a matching question's; ReuseResponses
	// lets one response go with several premises.
	Premises       []Option `json:"premises,omitempty"`
	Responses      []Option `json:"responses,omitempty"`
	ReuseResponses bool     `json:"reuse_responses,omitempty"`
	// Stimulus is the id of the exam's stimulus (Exam.Stimuli) the
	// question goes with, "" for none.
	Stimulus string `json:"stimulus,omitempty"`
	// Scoring is ScoringAll or ScoringPartial.
	Scoring string `json:"scoring,omitempty"`
	// PlayLimit is how many times each student may play the audio the
	// question shows (a listening item); 0 is no limit.
	PlayLimit int `json:"play_limit,omitempty"`
	// Answer is the answer key: option ids for choice types ("true"/"false"
	// for true_false), accepted answers for short_answer, accepted numbers
	// for numeric, empty for essay and cloze (whose blanks have their
	// keys). It never leaves the portal.
	Answer []string `json:"answer,omitempty"`
	// Tolerance and ToleranceMode are how far from an accepted number a
	// numeric question's answer may be (ToleranceAbsolute or
	// ToleranceRelative, a percentage).
	Tolerance     float64 `json:"tolerance,omitempty"`
	ToleranceMode string  `json:"tolerance_mode,omitempty"`
	// Blanks are a cloze question's, in the order of the text. Its Points
	// are theirs added up.
	Blanks []Blank `json:"blanks,omitempty"`
	Points float64 `json:"points"`
	// Rubric is an essay's note to its graders (what earns the points);
	// like the answer key it never leaves the portal.
	Rubric string `json:"rubric,omitempty"`
	// Category is where the question was filed in the bank it came from,
	// a path such as "Matematika/Aljabar" (at most 200 bytes); "" for none.
	Category string `json:"category,omitempty"`
	// Calibrated are the question's item parameters from a calibration an
	// operator kept (Service.KeepCalibration), nil for none. They travel
	// with the question through the bank formats, and a later exam that
	// reuses the question is calibrated on their scale (anchored).
	Calibrated *ItemParameters `json:"calibrated,omitempty"`
}

// BlankKind is what a blank of a cloze question is answered with.
type BlankKind string

// The kinds of blank.
const (
	// BlankText is answered with a short text, right when it is one of
	// the accepted texts as a short_answer question compares them.
	BlankText BlankKind = "text"
	// BlankNumber is answered with a number, right as a numeric question's
	// is (ParseNumber, with the blank's tolerance).
	BlankNumber BlankKind = "number"
	// BlankChoice is answered with one of the blank's options (a drop-down
	// list); Answer names the right one.
	BlankChoice BlankKind = "choice"
)

// Blank is one blank of a cloze question, shown where the text says [[ID]].
type Blank struct {
	ID   string    `json:"id"`
	Kind BlankKind `json:"kind"`
	// Options are a choice blank's.
	Options []Option `json:"options,omitempty"`
	// Answer is the blank's key: the accepted texts (text), the accepted
	// numbers (number) or the one right option id (choice). It never
	// leaves the portal.
	Answer []string `json:"answer,omitempty"`
	// Tolerance and ToleranceMode are a number blank's, as a numeric
	// question's.
	Tolerance     float64 `json:"tolerance,omitempty"`
	ToleranceMode string  `json:"tolerance_mode,omitempty"`
	// Points are what a right answer to this blank earns (1 when 0).
	Points float64 `json:"points"`
}

// numberKey is a numeric question's key.
func (q Question) numberKey() NumberKey {
	return NumberKey{Values: q.Answer, Tolerance: q.Tolerance, Mode: q.ToleranceMode}
}

// numberKey is a number blank's key.
func (b Blank) numberKey() NumberKey {
	return NumberKey{Values: b.Answer, Tolerance: b.Tolerance, Mode: b.ToleranceMode}
}

// Exam is an exam with its questions, schedule and the schools it is assigned to.
type Exam struct {
	ID              string
	Title           string
	Subject         string
	NPSNs           []string // schools (npsn) the exam is assigned to
	StartsAt        time.Time
	EndsAt          time.Time
	DurationMinutes int
	Questions       []Question // nil in list results; see Store.ListExams
	QuestionCount   int
	// Stimuli are what groups of questions share (passages, tables,
	// images, audio); nil in list results.
	Stimuli   []Stimulus
	CreatedAt time.Time
	// Problems lists what the questions' and stimuli's texts show otherwise than written
	// (a formula that does not convert, a missing media file), worked out
	// when the exam is created or updated; the stores keep none.
	Problems []ContentProblem
}

// AcademicYear is a school year such as 2025/2026; exactly one is active.
type AcademicYear struct {
	ID        string
	Name      string
	IsActive  bool
	CreatedAt time.Time
}

// Member is a person in the member directory: a student (role siswa), a
// teacher or staff. Lookup keys (username, email, dapodik_id, nisn, nip, nik)
// are unique among members when not empty.
type Member struct {
	ID               string
	NPSN             string // the member's school
	Nama             string
	Role             string
	DapodikID        string
	NISN             string
	NIP              string
	NIK              string
	Username         string
	Email            string
	Kelas            string
	AcademicYearName string
	GoogleEmail      string
	IsClaimed        bool
	// ExamPasswordGen is bumped when an operator resets the student's exam
	// password; the password itself is derived, never stored (see
	// ExamPassword), and only its hash is kept and shipped in packages.
	ExamPasswordGen  int
	ExamPasswordHash string
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// RoleStudent is the member role of students, the sample value of the spec.
const RoleStudent = "siswa"

// APIKey is a key for the member directory API. Only its SHA-256 hash is kept.
type APIKey struct {
	ID         string
	Name       string
	Prefix     string // first characters of the key, shown to operators to tell keys apart
	Hash       string // lowercase hex SHA-256 of the whole key
	CreatedAt  time.Time
	RevokedAt  *time.Time
	LastUsedAt *time.Time
}

// Answer is one student's answer to one question, as pushed by a lab server.
// Answers upsert per (ExamID, MemberID, QuestionID); the newest AnsweredAt wins.
type Answer struct {
	ExamID     string
	MemberID   string
	QuestionID string
	Answer     string // option id; option ids joined by "," for multiple_choice; text otherwise
	AnsweredAt time.Time
	ServerCode string
	SyncID     string // the push that last wrote this answer
}

// SyncOutcome is the outcome of a sync operation in the sync log.
type SyncOutcome string

// Sync log outcomes.
const (
	OutcomeAccepted  SyncOutcome = "accepted"
	OutcomeDuplicate SyncOutcome = "duplicate"
	OutcomeRejected  SyncOutcome = "rejected"
)

// SyncAction is the SyncAction enumeration of the spec.
type SyncAction string

// Sync actions.
const (
	ActionVerifyServer SyncAction = "verify_server"
	ActionPullData     SyncAction = "pull_data"
	ActionPushResults  SyncAction = "push_results"
	ActionHeartbeat    SyncAction = "heartbeat"
)

// SyncLog is one audit record of the sync log.
type SyncLog struct {
	ID             string // the sync_id of a push
	Action         SyncAction
	ServerCode     string
	NPSN           string
	RecordCount    int
	Checksum       string
	IdempotencyKey string
	Outcome        SyncOutcome
	ErrorCode      string // set when Outcome is rejected
	ReceivedAt     time.Time
}

// AnswerBatch is one push of answers, already validated by the caller.
type AnswerBatch struct {
	SyncID         string // new sync id to use when the batch is not a duplicate
	ServerCode     string
	NPSN           string
	Checksum       string
	IdempotencyKey string // optional
	Answers        []Answer
	ReceivedAt     time.Time
}

// Receipt is the outcome of saving an AnswerBatch.
type Receipt struct {
	SyncID      string
	RecordCount int
	Duplicate   bool // true when an earlier push already carried this batch
}

// MonitorStatus is the status of a lab server as reported or derived.
type MonitorStatus string

// Monitor statuses. Offline is never reported by a server: it is derived when
// a server has been silent for three heartbeat intervals.
const (
	StatusOnline  MonitorStatus = "online"
	StatusOffline MonitorStatus = "offline"
	StatusSyncing MonitorStatus = "syncing"
)

// Monitor is the one monitor record kept per lab server.
type Monitor struct {
	ID                string
	ServerCode        string
	NPSN              string
	SchoolName        string
	HardwareID        string
	Status            MonitorStatus // as last reported
	ActiveExamsCount  int
	ConnectedStudents int
	// PendingAnswers is the number of answers the server holds that the
	// portal has not acknowledged yet, as last reported.
	PendingAnswers int
	ClientIP       string
	ClientVersion  string
	LastPingAt     time.Time
	UpdatedAt      time.Time
}

// PackageMeta describes the encrypted exam package currently built for a school.
type PackageMeta struct {
	NPSN        string
	Version     string // lowercase hex SHA-256 of the plaintext package
	Checksum    string // lowercase hex SHA-256 of the encrypted bytes
	Size        int64  // size of the encrypted bytes
	Revision    int64  // content revision the package was built from
	GeneratedAt time.Time
	// Format is the plaintext's format (PackageFormat): 2 when an exam of
	// the package has rich content, which labagents before it cannot show.
	Format int
	// Blobs are the names of the blobs a package of format 3 names
	// (labwire.PackageBlob.Name: its questions', stimuli's and media's), sorted and
	// without repeats. SavePackage records them with the package, replacing
	// those of the package it replaces; GetPackage does not return them
	// (PackageBlobStore does). The garbage collection of blobs keeps every
	// blob a current package names.
	Blobs []string
}

// Common errors returned by Store implementations. Callers compare with errors.Is.
var (
	ErrNotFound = apperr.New(apperr.NotFound, "NOT_FOUND", "not found")
)
