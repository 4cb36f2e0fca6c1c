package exam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/jsonx"
	"github.com/seedhq/portal/internal/sortid"
	"github.com/seedhq/portal/pkg/labwire"
)

// Push refusals.
var (
	ErrChecksumMismatch    = apperr.New(apperr.Unprocessable, "CHECKSUM_MISMATCH", "checksum_sha256 does not match the SHA-256 of the answers as sent")
	ErrRecordCountMismatch = apperr.New(apperr.Unprocessable, "RECORD_COUNT_MISMATCH", "total_records does not match the number of answers")
)

// MaxPushRecords bounds the answers of one push.
const MaxPushRecords = 50_000

// PushInput is the body of POST /api/v1/sync/push-answers. Answers holds the
// exact bytes of the answers value as sent, which the checksum covers.
type PushInput struct {
	ServerCode     string
	NPSN           string
	Checksum       string
	TotalRecords   int
	Answers        json.RawMessage
	IdempotencyKey string
}

// AnswerRecord is one answer record on the wire.
type AnswerRecord struct {
	ExamID     string    `json:"exam_id"`
	MemberID   string    `json:"member_id"`
	QuestionID string    `json:"question_id"`
	Answer     string    `json:"answer"`
	AnsweredAt time.Time `json:"answered_at"`
}

// PushReceipt is the outcome of an accepted push.
type PushReceipt struct {
	Receipt
	ReceivedAt time.Time
}

// PushAnswers verifies and stores a push from an authenticated server. The
// checksum must be the SHA-256 of the exact answers bytes and total_records
// their count; every record must name an exam assigned to the server's school
// and one of its questions. A repeat (same Idempotency-Key, or same checksum
// from the same server) returns the first receipt. Refused pushes store no
// answers and are written to the sync log as rejected.
func (s *Service) PushAnswers(ctx context.Context, id ServerIdentity, in PushInput) (PushReceipt, error) {
	now := s.now()
	batch, err := s.checkPush(ctx, id, in)
	if err != nil {
		if e := apperr.From(err); e != nil && in.ServerCode == id.ServerCode {
			s.logSync(ctx, SyncLog{
				ID: sortid.New(), Action: ActionPushResults, ServerCode: id.ServerCode, NPSN: id.NPSN,
				RecordCount: in.TotalRecords, Checksum: safeChecksum(in.Checksum), IdempotencyKey: in.IdempotencyKey,
				Outcome: OutcomeRejected, ErrorCode: e.Code, ReceivedAt: now,
			})
		}
		return PushReceipt{}, err
	}
	batch.SyncID = sortid.New()
	batch.ReceivedAt = now
	r, err := s.store.SaveAnswers(ctx, batch)
	if err != nil {
		return PushReceipt{}, fmt.Errorf("save answers: %w", err)
	}
	if r.Duplicate {
		s.logSync(ctx, SyncLog{
			ID: sortid.New(), Action: ActionPushResults, ServerCode: id.ServerCode, NPSN: id.NPSN,
			RecordCount: len(batch.Answers), Checksum: in.Checksum, IdempotencyKey: in.IdempotencyKey,
			Outcome: OutcomeDuplicate, ReceivedAt: now,
		})
	}
	return PushReceipt{Receipt: r, ReceivedAt: now}, nil
}

func safeChecksum(c string) string {
	if labwire.ValidChecksum(c) {
		return c
	}
	return ""
}

func (s *Service) logSync(ctx context.Context, l SyncLog) {
	if err := s.store.AppendSyncLog(ctx, l); err != nil {
		s.log.ErrorContext(ctx, "write sync log", "action", l.Action, "err", err)
	}
}

func (s *Service) checkPush(ctx context.Context, id ServerIdentity, in PushInput) (AnswerBatch, error) {
	if err := CheckServer(id, in.ServerCode, in.NPSN); err != nil {
		return AnswerBatch{}, err
	}
	if in.IdempotencyKey != "" && !labwire.ValidIdempotencyKey(in.IdempotencyKey) {
		return AnswerBatch{}, invalid("Idempotency-Key must be 1 to 200 printable ASCII characters")
	}
	recs, err := DecodeAnswers(in.Answers, in.Checksum, in.TotalRecords)
	if err != nil {
		return AnswerBatch{}, err
	}
	exams := map[string]map[string]bool{} // exam id -> question ids
	answers := make([]Answer, len(recs))
	for i, r := range recs {
		qs, ok := exams[r.ExamID]
		if !ok || !qs[r.QuestionID] {
			var err error
			if qs, err = s.examQuestions(ctx, r.ExamID, id.NPSN, r.QuestionID); err != nil {
				return AnswerBatch{}, fmt.Errorf("answers[%d]: %w", i, err)
			}
			exams[r.ExamID] = qs
		}
		if !qs[r.QuestionID] {
			return AnswerBatch{}, apperr.Errorf(apperr.Unprocessable, "UNKNOWN_QUESTION", "answers[%d]: exam %s has no question %q", i, r.ExamID, r.QuestionID)
		}
		answers[i] = Answer{
			ExamID: r.ExamID, MemberID: r.MemberID, QuestionID: r.QuestionID, Answer: r.Answer,
			AnsweredAt: r.AnsweredAt.UTC().Truncate(time.Microsecond), ServerCode: id.ServerCode,
		}
	}
	return AnswerBatch{
		ServerCode: id.ServerCode, NPSN: id.NPSN, Checksum: in.Checksum,
		IdempotencyKey: in.IdempotencyKey, Answers: answers,
	}, nil
}

// DecodeAnswers checks raw (the exact bytes of the answers value as sent)
// against checksum and total, and decodes the answer records, each checked
// for its required fields and bounds.
func DecodeAnswers(raw []byte, checksum string, total int) ([]AnswerRecord, error) {
	if !labwire.ValidChecksum(checksum) {
		return nil, invalid("checksum_sha256 must be 64 lowercase hexadecimal characters")
	}
	if len(raw) == 0 {
		return nil, invalid("answers is required")
	}
	if labwire.ChecksumSHA256(raw) != checksum {
		return nil, ErrChecksumMismatch
	}
	var recs []AnswerRecord
	if err := jsonx.UnmarshalStrict(raw, &recs); err != nil {
		return nil, invalid("answers must be one array of answer records: %v", err)
	}
	if len(recs) != total {
		return nil, apperr.Errorf(apperr.Unprocessable, ErrRecordCountMismatch.Code,
			"total_records is %d but answers holds %d records", total, len(recs))
	}
	if len(recs) > MaxPushRecords {
		return nil, apperr.Errorf(apperr.TooLarge, "TOO_MANY_RECORDS", "at most %d records per push", MaxPushRecords)
	}
	for i, r := range recs {
		if r.ExamID == "" || r.MemberID == "" || r.QuestionID == "" || r.AnsweredAt.IsZero() {
			return nil, invalid("answers[%d]: exam_id, member_id, question_id and answered_at are required", i)
		}
		if len(r.ExamID) > 64 || len(r.MemberID) > 64 || len(r.QuestionID) > 64 || len(r.Answer) > 10_000 {
			return nil, invalid("answers[%d]: ids at most 64 and answer at most 10000 characters", i)
		}
	}
	return recs, nil
}

// examShapeTTL bounds how long a cached exam shape is trusted.
const examShapeTTL = time.Minute

// examShape is what a push needs of an exam: its schools and question ids.
type examShape struct {
	npsns     []string
	questions map[string]bool
	loaded    time.Time
}

// examQuestions returns the question ids of an exam assigned to npsn, for
// a push that answers questionID. Shapes are cached per instance for
// examShapeTTL so that pushes do not decode exams (which may embed images)
// every time. A cached shape that lacks the school or the question is
// loaded again before the push is refused: an exam edited through another
// instance (which only evicts its own cache) is never refused for what the
// edit added. What an edit removed may still be accepted here until the
// shape expires (see docs/ARCHITECTURE.md); edits are allowed only while
// the exam has no answers.
func (s *Service) examQuestions(ctx context.Context, examID, npsn, questionID string) (map[string]bool, error) {
	now := time.Now()
	if v, ok := s.examKeys.Load(examID); ok {
		shape := v.(examShape)
		if now.Sub(shape.loaded) <= examShapeTTL && slices.Contains(shape.npsns, npsn) && shape.questions[questionID] {
			return shape.questions, nil
		}
	}
	e, err := s.store.GetExam(ctx, examID)
	if errors.Is(err, ErrNotFound) {
		s.examKeys.Delete(examID)
		return nil, unknownExam(examID)
	}
	if err != nil {
		return nil, err
	}
	shape := examShape{npsns: e.NPSNs, questions: make(map[string]bool, len(e.Questions)), loaded: now}
	for _, q := range e.Questions {
		shape.questions[q.ID] = true
	}
	s.examKeys.Store(examID, shape)
	if !slices.Contains(shape.npsns, npsn) {
		return nil, unknownExam(examID)
	}
	return shape.questions, nil
}

func unknownExam(examID string) error {
	return apperr.Errorf(apperr.Unprocessable, "UNKNOWN_EXAM", "exam %q is not assigned to this school", examID)
}
