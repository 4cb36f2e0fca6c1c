package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

// saveAnswersSQL returns the statement that stores an accepted push, so
// one round trip:
//
//   - claim records the push in pushes; ON CONFLICT DO NOTHING yields to an
//     earlier (or concurrent, once it commits) push with the same sync id,
//     checksum or idempotency key of the server, and then nothing else
//     happens;
//   - locked takes the shared advisory lock of every exam of the batch, so
//     that DeleteExam (which takes it exclusively) waits for the push;
//   - upserted inserts the answers, already deduplicated by key, followed by
//     onConflict: empty (answersFirstTime) or the upsert that keeps the newer
//     answered_at, the incoming answer on a tie (answersUpsert);
//   - logged appends the accepted sync-log record.
func saveAnswersSQL(onConflict string) string {
	return `
WITH claim AS (
	INSERT INTO pushes (sync_id, server_code, checksum, idempotency_key, record_count, received_at)
	VALUES ($1, $2, $3, $4, $5, $6)
	ON CONFLICT DO NOTHING
	RETURNING sync_id
), locked AS (
	SELECT count(pg_advisory_xact_lock_shared($7::int4, hashtext(e))) AS n
	FROM unnest($8::text[]) AS e
	WHERE EXISTS (SELECT FROM claim)
), upserted AS (
	INSERT INTO answers AS a (exam_id, member_id, question_id, answer, answered_at, server_code, sync_id)
	SELECT u.exam_id, u.member_id, u.question_id, u.answer, u.answered_at, u.server_code, $1
	FROM unnest($9::text[], $10::text[], $11::text[], $12::text[], $13::timestamptz[], $14::text[])
		AS u(exam_id, member_id, question_id, answer, answered_at, server_code)
	WHERE (SELECT n FROM locked) >= 0 AND EXISTS (SELECT FROM claim)
	` + onConflict + `
), logged AS (
	INSERT INTO sync_logs (id, action, server_code, npsn, record_count, checksum, idempotency_key,
		outcome, error_code, received_at)
	SELECT $1, 'push_results', $2, $15, $5, $3, $16, 'accepted', '', $6 FROM claim
)
SELECT count(*) FROM claim`
}

// The two forms of saveAnswersSQL. A plain INSERT costs a third less
// than INSERT ... ON CONFLICT (PostgreSQL's speculative insertion checks
// and marks every row), and many pushes carry only answers stored for the
// first time. A push with an answer stored before fails the plain form
// with a unique violation of answers_pkey, rolled back whole, and is
// stored again with the upsert; its server's pushes then go straight to
// the upsert for a while (storedHints), as a lab whose students revise
// their answers sends revisions in most pushes.
var (
	answersFirstTime = saveAnswersSQL("")
	answersUpsert    = saveAnswersSQL(`ON CONFLICT (exam_id, member_id, question_id) DO UPDATE
	SET answer = excluded.answer, answered_at = excluded.answered_at,
		server_code = excluded.server_code, sync_id = excluded.sync_id
	WHERE excluded.answered_at >= a.answered_at`)
)

// SaveAnswers stores a push in one transaction; see exam.SyncStore.
//
// The common case is one statement (saveAnswersSQL: answersFirstTime, or
// answersUpsert when an answer was stored before). When the push is not
// claimed because an accepted push of the server already has its
// idempotency key or checksum, a second statement reads that push and
// answers with its receipt (Duplicate set) or exam.ErrIdempotencyConflict.
// The unique constraints of pushes make concurrent pushes of the same
// payload race-free: the loser waits for the winner to commit, then finds it.
func (s *Store) SaveAnswers(ctx context.Context, b exam.AnswerBatch) (exam.Receipt, error) {
	as := dedupeAnswers(b.Answers)
	n := len(as)
	var (
		examIDs, memberIDs, questionIDs = make([]string, n), make([]string, n), make([]string, n)
		values, serverCodes             = make([]string, n), make([]string, n)
		answeredAt                      = make([]time.Time, n)
		exams                           = []string{}
		seenExam                        = map[string]bool{}
	)
	for i, a := range as {
		examIDs[i], memberIDs[i], questionIDs[i] = a.ExamID, a.MemberID, a.QuestionID
		values[i], answeredAt[i], serverCodes[i] = a.Answer, a.AnsweredAt, a.ServerCode
		if a.ServerCode == "" {
			serverCodes[i] = b.ServerCode
		}
		if !seenExam[a.ExamID] {
			seenExam[a.ExamID] = true
			exams = append(exams, a.ExamID)
		}
	}
	save := func(sql string) (claimed int, err error) {
		err = s.pool.QueryRow(ctx, sql,
			b.SyncID, b.ServerCode, b.Checksum, nullIfEmpty(b.IdempotencyKey), len(b.Answers), b.ReceivedAt,
			examLockNamespace, exams,
			examIDs, memberIDs, questionIDs, values, answeredAt, serverCodes,
			b.NPSN, b.IdempotencyKey).Scan(&claimed)
		return claimed, err
	}
	sql := answersUpsert
	firstTime := s.storedHints.firstTime(b.ServerCode, time.Now())
	if firstTime {
		sql = answersFirstTime
	}
	claimed, err := save(sql)
	if c, ok := uniqueViolation(err); ok && c == "answers_pkey" && firstTime {
		s.storedHints.sawStored(b.ServerCode, time.Now())
		claimed, err = save(answersUpsert)
	}
	if err != nil {
		return exam.Receipt{}, fmt.Errorf("postgres: save answers: %w", err)
	}
	if claimed == 1 {
		return exam.Receipt{SyncID: b.SyncID, RecordCount: len(b.Answers)}, nil
	}

	var (
		r        = exam.Receipt{Duplicate: true}
		checksum string
		byKey    bool
	)
	err = s.pool.QueryRow(ctx, `SELECT sync_id, checksum, record_count, coalesce(idempotency_key = $2, false)
		FROM pushes
		WHERE server_code = $1 AND (idempotency_key = $2 OR checksum = $3)
		ORDER BY 4 DESC
		LIMIT 1`, b.ServerCode, nullIfEmpty(b.IdempotencyKey), b.Checksum).Scan(&r.SyncID, &checksum, &r.RecordCount, &byKey)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return exam.Receipt{}, fmt.Errorf("postgres: save answers: sync id %q is already used by another push", b.SyncID)
	case err != nil:
		return exam.Receipt{}, fmt.Errorf("postgres: save answers: find earlier push: %w", err)
	case byKey && checksum != b.Checksum:
		return exam.Receipt{}, fmt.Errorf("postgres: save answers: %w", exam.ErrIdempotencyConflict)
	}
	return r, nil
}

// answerKey identifies a stored answer.
type answerKey struct{ exam, member, question string }

// dedupeAnswers returns as with one answer per key, in the order of first
// appearance: the one with the newest AnsweredAt, the later one in as on a
// tie, as if they were upserted one by one. (One INSERT ... ON CONFLICT DO
// UPDATE may not touch a row twice.)
func dedupeAnswers(as []exam.Answer) []exam.Answer {
	at := make(map[answerKey]int, len(as))
	out := make([]exam.Answer, 0, len(as))
	for _, a := range as {
		k := answerKey{a.ExamID, a.MemberID, a.QuestionID}
		if j, dup := at[k]; dup {
			if !a.AnsweredAt.Before(out[j].AnsweredAt) {
				out[j] = a
			}
			continue
		}
		at[k] = len(out)
		out = append(out, a)
	}
	return out
}

// CopyAnswers writes answers straight into the answers table with COPY,
// without any of the checks, upsert rules or sync log of SaveAnswers (a key
// that exists already makes it fail). It exists only as the baseline of the
// SaveAnswers benchmark (the fastest possible way to get the same rows into
// the table); the portal never calls it.
func (s *Store) CopyAnswers(ctx context.Context, as []exam.Answer) error {
	_, err := s.pool.CopyFrom(ctx, pgx.Identifier{"answers"},
		[]string{"exam_id", "member_id", "question_id", "answer", "answered_at", "server_code", "sync_id"},
		pgx.CopyFromSlice(len(as), func(i int) ([]any, error) {
			a := as[i]
			return []any{a.ExamID, a.MemberID, a.QuestionID, a.Answer, a.AnsweredAt, a.ServerCode, a.SyncID}, nil
		}))
	if err != nil {
		return fmt.Errorf("postgres: copy answers: %w", err)
	}
	return nil
}

// AppendSyncLog appends a record to the sync log.
func (s *Store) AppendSyncLog(ctx context.Context, l exam.SyncLog) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO sync_logs (id, action, server_code, npsn, record_count, checksum,
		idempotency_key, outcome, error_code, received_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		l.ID, string(l.Action), l.ServerCode, l.NPSN, l.RecordCount, l.Checksum, l.IdempotencyKey,
		string(l.Outcome), l.ErrorCode, l.ReceivedAt)
	if err != nil {
		return fmt.Errorf("postgres: append sync log: %w", err)
	}
	return nil
}

// ListSyncLogs returns matching records, newest ReceivedAt first, then
// greatest ID first (byte-wise), then newest appended first.
func (s *Store) ListSyncLogs(ctx context.Context, f exam.SyncLogFilter) ([]exam.SyncLog, error) {
	q := `SELECT id, action, server_code, npsn, record_count, checksum, idempotency_key, outcome, error_code,
		received_at FROM sync_logs WHERE true`
	var args []any
	if f.NPSN != "" {
		args = append(args, f.NPSN)
		q += fmt.Sprintf(` AND npsn = $%d`, len(args))
	}
	if f.ServerCode != "" {
		args = append(args, f.ServerCode)
		q += fmt.Sprintf(` AND server_code = $%d`, len(args))
	}
	if f.Outcome != "" {
		args = append(args, string(f.Outcome))
		q += fmt.Sprintf(` AND outcome = $%d`, len(args))
	}
	q += ` ORDER BY received_at DESC, id DESC, seq DESC`
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q += fmt.Sprintf(` LIMIT $%d`, len(args))
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list sync logs: %w", err)
	}
	ls, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.SyncLog, error) {
		var l exam.SyncLog
		err := r.Scan(&l.ID, &l.Action, &l.ServerCode, &l.NPSN, &l.RecordCount, &l.Checksum, &l.IdempotencyKey,
			&l.Outcome, &l.ErrorCode, &l.ReceivedAt)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list sync logs: %w", err)
	}
	return ls, nil
}

// ListAnswers returns the answers matching q, ordered by MemberID then
// QuestionID (keyset after the cursor, on the primary key).
func (s *Store) ListAnswers(ctx context.Context, q exam.AnswerQuery) ([]exam.Answer, error) {
	where, args := answerFilters(q)
	if q.AfterMember != "" {
		args = append(args, q.AfterMember, q.AfterQuestion)
		where += fmt.Sprintf(" AND (member_id, question_id) > ($%d, $%d)", len(args)-1, len(args))
	}
	sql := `SELECT exam_id, member_id, question_id, answer, answered_at, server_code, sync_id
		FROM answers WHERE ` + where + ` ORDER BY member_id, question_id`
	if q.Offset > 0 {
		args = append(args, q.Offset)
		sql += fmt.Sprintf(" OFFSET $%d", len(args))
	}
	if q.Limit > 0 {
		args = append(args, q.Limit)
		sql += fmt.Sprintf(" LIMIT $%d", len(args))
	}
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list answers: %w", err)
	}
	as, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.Answer, error) {
		var a exam.Answer
		err := r.Scan(&a.ExamID, &a.MemberID, &a.QuestionID, &a.Answer, &a.AnsweredAt, &a.ServerCode, &a.SyncID)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list answers: %w", err)
	}
	return as, nil
}

// CountAnswers returns the number of answers matching q's filters.
func (s *Store) CountAnswers(ctx context.Context, q exam.AnswerQuery) (int, error) {
	where, args := answerFilters(q)
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM answers WHERE `+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count answers: %w", err)
	}
	return n, nil
}

// answerFilters returns the WHERE clause and arguments of q's filters.
func answerFilters(q exam.AnswerQuery) (string, []any) {
	where, args := "exam_id = $1", []any{q.ExamID}
	if q.MemberID != "" {
		args = append(args, q.MemberID)
		where += fmt.Sprintf(" AND member_id = $%d", len(args))
	}
	if q.NPSN != "" {
		args = append(args, q.NPSN)
		where += fmt.Sprintf(" AND member_id IN (SELECT id FROM members WHERE npsn = $%d)", len(args))
	}
	if q.NPSNs != nil {
		args = append(args, q.NPSNs)
		where += fmt.Sprintf(" AND member_id IN (SELECT id FROM members WHERE npsn = ANY($%d))", len(args))
	}
	return where, args
}

// storedHintTTL is how long a lab server whose push held an answer stored
// before has its pushes go straight to the upsert.
const storedHintTTL = 10 * time.Minute

// maxStoredHints bounds the servers remembered; when full, the expired
// entries are dropped, and all of them if none had expired.
const maxStoredHints = 200_000

// storedHints remembers, in this instance's memory, the lab servers whose
// recent pushes held answers stored before. It is only a hint for the
// choice of statement: either stores a push the same way.
type storedHints struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// firstTime reports whether server's next push should try the first-time
// insert.
func (h *storedHints) firstTime(server string, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	until, ok := h.until[server]
	return !ok || now.After(until)
}

// sawStored records that server's push held an answer stored before.
func (h *storedHints) sawStored(server string, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.until == nil {
		h.until = map[string]time.Time{}
	}
	if len(h.until) >= maxStoredHints {
		maps.DeleteFunc(h.until, func(_ string, until time.Time) bool { return now.After(until) })
		if len(h.until) >= maxStoredHints {
			clear(h.until)
		}
	}
	h.until[server] = now.Add(storedHintTTL)
}
