package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
)

// answerRecord is an answer without the ids its key carries.
type answerRecord struct {
	Answer     string `json:"a"`
	AnsweredAt int64  `json:"t"` // Unix microseconds
	ServerCode string `json:"s"`
	SyncID     string `json:"y"`
}

// pushRecord is an accepted push, indexed by (server, idempotency key) and by
// (server, checksum).
type pushRecord struct {
	SyncID      string `json:"sync_id"`
	Checksum    string `json:"checksum"`
	RecordCount int    `json:"record_count"`
}

func (p pushRecord) receipt() exam.Receipt {
	return exam.Receipt{SyncID: p.SyncID, RecordCount: p.RecordCount, Duplicate: true}
}

// SaveAnswers stores a push in one transaction. A push with an idempotency
// key a push from the same server already used returns that push's receipt
// (same checksum) or exam.ErrIdempotencyConflict (another checksum); else a
// push whose checksum a push from the same server had returns that push's
// receipt; otherwise each answer is upserted (newest AnsweredAt wins, the
// incoming one on a tie, in the order of the batch) and an accepted sync-log
// record is appended. Only pushes accepted here count: records appended with
// AppendSyncLog do not.
func (s *Store) SaveAnswers(ctx context.Context, b exam.AnswerBatch) (exam.Receipt, error) {
	var out exam.Receipt
	err := s.update(ctx, "save answers", func(tx *bbolt.Tx) error {
		byKey, bySum := tx.Bucket(bucketPushesByKey), tx.Bucket(bucketPushesBySum)
		var p pushRecord
		if b.IdempotencyKey != "" {
			found, err := getJSON(byKey, tuple(b.ServerCode, b.IdempotencyKey), &p)
			if err != nil {
				return err
			}
			if found && p.Checksum != b.Checksum {
				return fmt.Errorf("server %q, key %q: %w", b.ServerCode, b.IdempotencyKey, exam.ErrIdempotencyConflict)
			}
			if found {
				out = p.receipt()
				return nil
			}
		}
		found, err := getJSON(bySum, tuple(b.ServerCode, b.Checksum), &p)
		if err != nil {
			return err
		}
		if found {
			out = p.receipt()
			return nil
		}

		answers := tx.Bucket(bucketAnswers)
		for i, a := range b.Answers {
			key := tuple(a.ExamID, a.MemberID, a.QuestionID)
			rec := answerRecord{Answer: a.Answer, AnsweredAt: a.AnsweredAt.UnixMicro(), ServerCode: a.ServerCode, SyncID: b.SyncID}
			if rec.ServerCode == "" {
				rec.ServerCode = b.ServerCode
			}
			var old answerRecord
			found, err := getJSON(answers, key, &old)
			if err != nil {
				return err
			}
			if found && old.AnsweredAt > rec.AnsweredAt {
				continue
			}
			if err := putJSON(answers, key, rec); err != nil {
				return fmt.Errorf("answer %d: %w", i, err)
			}
		}

		if err := appendSyncLog(tx, exam.SyncLog{ID: b.SyncID, Action: exam.ActionPushResults, ServerCode: b.ServerCode,
			NPSN: b.NPSN, RecordCount: len(b.Answers), Checksum: b.Checksum, IdempotencyKey: b.IdempotencyKey,
			Outcome: exam.OutcomeAccepted, ReceivedAt: b.ReceivedAt}); err != nil {
			return err
		}
		p = pushRecord{SyncID: b.SyncID, Checksum: b.Checksum, RecordCount: len(b.Answers)}
		if b.IdempotencyKey != "" {
			if err := putJSON(byKey, tuple(b.ServerCode, b.IdempotencyKey), p); err != nil {
				return err
			}
		}
		if err := putJSON(bySum, tuple(b.ServerCode, b.Checksum), p); err != nil {
			return err
		}
		out = exam.Receipt{SyncID: b.SyncID, RecordCount: len(b.Answers)}
		return nil
	})
	if err != nil {
		return exam.Receipt{}, err
	}
	return out, nil
}

// ListAnswers returns the answers matching q, ordered by MemberID then
// QuestionID.
func (s *Store) ListAnswers(ctx context.Context, q exam.AnswerQuery) ([]exam.Answer, error) {
	out := []exam.Answer{}
	skip := q.Offset
	err := s.view(ctx, "list answers", func(tx *bbolt.Tx) error {
		return scanAnswers(tx, q, func(a exam.Answer) bool {
			if skip > 0 {
				skip--
				return true
			}
			out = append(out, a)
			return q.Limit <= 0 || len(out) < q.Limit
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CountAnswers returns the number of answers matching q's filters.
func (s *Store) CountAnswers(ctx context.Context, q exam.AnswerQuery) (int, error) {
	n := 0
	filters := exam.AnswerQuery{ExamID: q.ExamID, MemberID: q.MemberID, NPSN: q.NPSN, NPSNs: q.NPSNs}
	err := s.view(ctx, "count answers", func(tx *bbolt.Tx) error {
		return scanAnswers(tx, filters, func(exam.Answer) bool { n++; return true })
	})
	return n, err
}

// scanAnswers calls fn for each answer matching q's filters after q's
// cursor, in key order, until fn returns false. The school filters read the
// schools' member ids first (their rosters).
func scanAnswers(tx *bbolt.Tx, q exam.AnswerQuery, fn func(exam.Answer) bool) error {
	var school, schools map[string]bool
	var err error
	if q.NPSN != "" {
		if school, err = rosters(tx, q.NPSN); err != nil {
			return err
		}
	}
	if q.NPSNs != nil {
		if schools, err = rosters(tx, q.NPSNs...); err != nil {
			return err
		}
	}
	prefix := tuple(q.ExamID)
	if q.MemberID != "" {
		prefix = tuple(q.ExamID, q.MemberID)
	}
	start := prefix
	var after []byte
	if q.AfterMember != "" {
		after = tuple(q.ExamID, q.AfterMember, q.AfterQuestion)
		if bytes.Compare(after, start) > 0 {
			start = after
		}
	}
	c := tx.Bucket(bucketAnswers).Cursor()
	for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if after != nil && bytes.Compare(k, after) <= 0 {
			continue
		}
		ids, err := parts(k)
		if err != nil {
			return err
		}
		if len(ids) != 3 {
			return fmt.Errorf("malformed answer key %q", k)
		}
		if (school != nil && !school[ids[1]]) || (schools != nil && !schools[ids[1]]) {
			continue
		}
		var rec answerRecord
		if err := decodeJSON(k, v, &rec); err != nil {
			return err
		}
		if !fn(exam.Answer{ExamID: ids[0], MemberID: ids[1], QuestionID: ids[2], Answer: rec.Answer,
			AnsweredAt: time.UnixMicro(rec.AnsweredAt).UTC(), ServerCode: rec.ServerCode, SyncID: rec.SyncID}) {
			return nil
		}
	}
	return nil
}

type syncLogRecord struct {
	ID             string           `json:"id"`
	Action         exam.SyncAction  `json:"action"`
	ServerCode     string           `json:"server_code"`
	NPSN           string           `json:"npsn"`
	RecordCount    int              `json:"record_count"`
	Checksum       string           `json:"checksum,omitempty"`
	IdempotencyKey string           `json:"idempotency_key,omitempty"`
	Outcome        exam.SyncOutcome `json:"outcome"`
	ErrorCode      string           `json:"error_code,omitempty"`
	ReceivedAt     time.Time        `json:"received_at"`
}

func (r syncLogRecord) log() exam.SyncLog {
	return exam.SyncLog{ID: r.ID, Action: r.Action, ServerCode: r.ServerCode, NPSN: r.NPSN,
		RecordCount: r.RecordCount, Checksum: r.Checksum, IdempotencyKey: r.IdempotencyKey, Outcome: r.Outcome,
		ErrorCode: r.ErrorCode, ReceivedAt: utc(r.ReceivedAt)}
}

// syncLogKey orders records by ReceivedAt then ID: the time as Unix
// microseconds with the sign bit flipped (so that byte order is time order),
// then the id.
func syncLogKey(received time.Time, id string) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(id)+2), uint64(received.UnixMicro())^(1<<63))
	return appendPart(k, id)
}

func appendSyncLog(tx *bbolt.Tx, l exam.SyncLog) error {
	rec := syncLogRecord{ID: l.ID, Action: l.Action, ServerCode: l.ServerCode, NPSN: l.NPSN,
		RecordCount: l.RecordCount, Checksum: l.Checksum, IdempotencyKey: l.IdempotencyKey, Outcome: l.Outcome,
		ErrorCode: l.ErrorCode, ReceivedAt: ts(l.ReceivedAt)}
	return putJSON(tx.Bucket(bucketSyncLogs), syncLogKey(rec.ReceivedAt, rec.ID), rec)
}

// AppendSyncLog appends a record.
func (s *Store) AppendSyncLog(ctx context.Context, l exam.SyncLog) error {
	return s.update(ctx, "append sync log", func(tx *bbolt.Tx) error { return appendSyncLog(tx, l) })
}

// ListSyncLogs returns matching records, newest ReceivedAt first (then
// greatest ID first), walking the log backwards until Limit records match.
func (s *Store) ListSyncLogs(ctx context.Context, f exam.SyncLogFilter) ([]exam.SyncLog, error) {
	out := []exam.SyncLog{}
	err := s.view(ctx, "list sync logs", func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketSyncLogs).Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			var rec syncLogRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			if (f.NPSN != "" && rec.NPSN != f.NPSN) || (f.ServerCode != "" && rec.ServerCode != f.ServerCode) ||
				(f.Outcome != "" && rec.Outcome != f.Outcome) {
				continue
			}
			out = append(out, rec.log())
			if f.Limit > 0 && len(out) >= f.Limit {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// rosters returns the ids of the members of the schools.
func rosters(tx *bbolt.Tx, npsns ...string) (map[string]bool, error) {
	ids := map[string]bool{}
	for _, npsn := range npsns {
		err := scanPrefix(tx.Bucket(bucketMembersBySchool), tuple(npsn), func(k, _ []byte) (bool, error) {
			p, err := parts(k)
			if err != nil || len(p) != 3 {
				return false, fmt.Errorf("malformed member index key %q: %v", k, err)
			}
			ids[p[2]] = true
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}
