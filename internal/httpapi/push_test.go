package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

type answerRec struct {
	ExamID     string `json:"exam_id"`
	MemberID   string `json:"member_id"`
	QuestionID string `json:"question_id"`
	Answer     string `json:"answer"`
	AnsweredAt string `json:"answered_at"`
}

type pushBody struct {
	ServerCode   string          `json:"server_code"`
	NPSN         string          `json:"npsn"`
	Checksum     string          `json:"checksum_sha256"`
	TotalRecords int             `json:"total_records"`
	Answers      json.RawMessage `json:"answers"`
}

// newPush builds a push body for answers as the exact bytes raw.
func newPush(lab labServer, raw string, total int) pushBody {
	return pushBody{ServerCode: lab.code, NPSN: lab.npsn, Checksum: sha([]byte(raw)), TotalRecords: total, Answers: json.RawMessage(raw)}
}

// encodePush writes the body by hand so that the answers bytes are sent
// exactly as given (json.Marshal would compact a RawMessage).
func encodePush(p pushBody) string {
	head, _ := json.Marshal(struct {
		ServerCode   string `json:"server_code"`
		NPSN         string `json:"npsn"`
		Checksum     string `json:"checksum_sha256"`
		TotalRecords int    `json:"total_records"`
	}{p.ServerCode, p.NPSN, p.Checksum, p.TotalRecords})
	return string(head[:len(head)-1]) + `, "answers":  ` + string(p.Answers) + "}"
}

type pushResult struct {
	Success     bool      `json:"success"`
	Message     string    `json:"message"`
	SyncID      string    `json:"sync_id"`
	Duplicate   bool      `json:"duplicate"`
	ReceivedAt  time.Time `json:"received_at"`
	RecordCount int       `json:"record_count"`
}

func recJSON(r answerRec) string {
	b, _ := json.Marshal(r)
	return string(b)
}

func answersJSON(recs ...answerRec) string {
	b, _ := json.Marshal(recs)
	return string(b)
}

// pushFixture sets up a school with two students, an exam and a verified lab server.
func pushFixture(h *harness) (lab labServer, examID string, students map[string]string) {
	students = h.importStudents(npsnA, "Ani Lestari", "Budi Santoso")
	examID = h.createExam(npsnA)
	lab = h.newLabServer("LAB-01", npsnA)
	return lab, examID, students
}

func (h *harness) results(examID string) resultsJSON {
	h.t.Helper()
	var res struct {
		Success bool        `json:"success"`
		Data    resultsJSON `json:"data"`
	}
	h.op("GET", "/api/v1/admin/exams/"+examID+"/results", nil).expect(200).decode(&res)
	return res.Data
}

type resultsJSON struct {
	ExamID     string  `json:"exam_id"`
	MaxScore   float64 `json:"max_score"`
	AnswerRows int     `json:"answer_rows"`
	Results    []struct {
		MemberID string  `json:"member_id"`
		Nama     string  `json:"nama"`
		Username string  `json:"username"`
		Kelas    string  `json:"kelas"`
		Score    float64 `json:"score"`
		Answered int     `json:"answered"`
		Correct  int     `json:"correct"`
	} `json:"results"`
}

func TestPushAnswers(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		lab, examID, students := pushFixture(h)
		ani := students["ani.lestari"]
		at := "2026-12-01T08:00:00Z"
		// Unusual but valid spacing: the checksum covers these exact bytes.
		raw := "[ " + recJSON(answerRec{examID, ani, "q1", "b", at}) + " ,\n  " +
			recJSON(answerRec{examID, ani, "q2", "c,a", at}) + " ]"
		body := encodePush(newPush(lab, raw, 2))

		var first pushResult
		h.as(lab, "POST", "/api/v1/sync/push-answers", body, "Idempotency-Key", "push-1").expect(200).decode(&first)
		if !first.Success || first.SyncID == "" || first.Duplicate || first.Message != "2 records received" || first.ReceivedAt.IsZero() {
			t.Fatalf("push = %+v", first)
		}

		// Repeats: same key, then same checksum without a key.
		var again pushResult
		h.as(lab, "POST", "/api/v1/sync/push-answers", body, "Idempotency-Key", "push-1").expect(200).decode(&again)
		if again.SyncID != first.SyncID || !again.Duplicate {
			t.Fatalf("repeat by key = %+v, want sync_id %s duplicate", again, first.SyncID)
		}
		h.as(lab, "POST", "/api/v1/sync/push-answers", body).expect(200).decode(&again)
		if again.SyncID != first.SyncID || !again.Duplicate {
			t.Fatalf("repeat by checksum = %+v, want sync_id %s duplicate", again, first.SyncID)
		}
		// Same key, another payload.
		other := encodePush(newPush(lab, answersJSON(answerRec{examID, ani, "q3", "false", at}), 1))
		h.as(lab, "POST", "/api/v1/sync/push-answers", other, "Idempotency-Key", "push-1").expectError(409, "IDEMPOTENCY_KEY_REUSED")

		res := h.results(examID)
		if len(res.Results) != 1 || res.Results[0].MemberID != ani || res.Results[0].Answered != 2 ||
			res.Results[0].Correct != 2 || res.Results[0].Score != 5 {
			t.Fatalf("results after push = %+v", res)
		}

		var logs struct {
			Success bool          `json:"success"`
			Data    []syncLogJSON `json:"data"`
		}
		h.op("GET", "/api/v1/admin/sync-logs?server_code=LAB-01&status=accepted", nil).decode(&logs)
		accepted := 0
		for _, l := range logs.Data {
			if l.Action == "push_results" {
				accepted++
				if l.SyncID != first.SyncID || l.RecordCount != 2 || l.Checksum != sha([]byte(raw)) || l.IdempotencyKey != "push-1" {
					t.Fatalf("log = %+v", l)
				}
			}
		}
		if accepted != 1 {
			t.Fatalf("%d accepted push records, want 1", accepted)
		}
		h.op("GET", "/api/v1/admin/sync-logs?server_code=LAB-01&status=duplicate", nil).decode(&logs)
		if len(logs.Data) != 2 {
			t.Fatalf("duplicate records = %+v, want 2", logs.Data)
		}
	})
}

func TestPushAnswersRefusals(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		lab, examID, students := pushFixture(h)
		ani := students["ani.lestari"]
		at := "2026-12-01T08:00:00Z"
		good := answersJSON(answerRec{examID, ani, "q1", "b", at})
		push := func(p pushBody, hdr ...string) *response {
			t.Helper()
			return h.as(lab, "POST", "/api/v1/sync/push-answers", encodePush(p), hdr...)
		}

		bad := newPush(lab, good, 1)
		bad.Checksum = sha([]byte(good + " "))
		push(bad).expectError(422, "CHECKSUM_MISMATCH")

		// The checksum of a re-encoding does not count: only the bytes as sent.
		spaced := strings.Replace(good, `,"member_id"`, `, "member_id"`, 1)
		compactSum := newPush(lab, spaced, 1)
		compactSum.Checksum = sha([]byte(good))
		push(compactSum).expectError(422, "CHECKSUM_MISMATCH")

		push(newPush(lab, good, 2)).expectError(422, "RECORD_COUNT_MISMATCH")
		push(newPush(lab, answersJSON(answerRec{"no-such-exam", ani, "q1", "b", at}), 1)).expectError(422, "UNKNOWN_EXAM")
		push(newPush(lab, answersJSON(answerRec{examID, ani, "q99", "b", at}), 1)).expectError(422, "UNKNOWN_QUESTION")
		push(newPush(lab, answersJSON(answerRec{examID, ani, "q1", "b", ""}), 1)).expectError(400, "VALIDATION_FAILED")

		// An exam of another school is unknown to this server.
		otherExam := h.createExam(npsnB)
		push(newPush(lab, answersJSON(answerRec{otherExam, ani, "q1", "b", at}), 1)).expectError(422, "UNKNOWN_EXAM")

		// Another server's token cannot push as LAB-01.
		labB := h.newLabServer("LAB-B", npsnB)
		h.as(labB, "POST", "/api/v1/sync/push-answers", encodePush(newPush(lab, good, 1))).expectError(403, "SERVER_MISMATCH")
		mismatch := newPush(lab, good, 1)
		mismatch.NPSN = npsnB
		push(mismatch).expectError(403, "SERVER_MISMATCH")

		h.as(lab, "POST", "/api/v1/sync/push-answers", `{"server_code":"LAB-01","extra":1}`).expectError(400, "INVALID_JSON")
		h.as(lab, "POST", "/api/v1/sync/push-answers", encodePush(newPush(lab, good, 1))+" {}").expectError(400, "INVALID_JSON")

		// Nothing of the refused pushes was stored.
		if res := h.results(examID); len(res.Results) != 0 {
			t.Fatalf("refused pushes stored answers: %+v", res.Results)
		}
		var logs struct {
			Success bool          `json:"success"`
			Data    []syncLogJSON `json:"data"`
		}
		h.op("GET", "/api/v1/admin/sync-logs?server_code=LAB-01&status=rejected", nil).decode(&logs)
		got := map[string]int{}
		for _, l := range logs.Data {
			got[l.ErrorCode]++
		}
		if got["CHECKSUM_MISMATCH"] != 2 || got["RECORD_COUNT_MISMATCH"] != 1 || got["UNKNOWN_EXAM"] != 2 {
			t.Fatalf("rejected push log codes = %v", got)
		}

		// After all that, the good push is accepted and is not a duplicate.
		var ok pushResult
		push(newPush(lab, good, 1)).expect(200).decode(&ok)
		if ok.Duplicate || ok.Message != "1 records received" {
			t.Fatalf("push = %+v", ok)
		}
	})
}

func TestPushAnswersLargeBody(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		lab, examID, students := pushFixture(h)
		// About 2 MiB of essay answers: over the default 1 MiB limit, under
		// the 32 MiB of push-answers.
		essay := strings.Repeat("x", 9000)
		var recs []answerRec
		for i := 0; i < 240; i++ {
			recs = append(recs, answerRec{examID, fmt.Sprintf("member-%03d", i), "q5", essay, "2026-12-01T08:00:00Z"})
		}
		raw := answersJSON(recs...)
		if len(raw) < 2<<20 {
			t.Fatalf("fixture is only %d bytes", len(raw))
		}
		var res pushResult
		h.as(lab, "POST", "/api/v1/sync/push-answers", encodePush(newPush(lab, raw, len(recs)))).expect(200).decode(&res)
		if res.RecordCount != 240 {
			t.Fatalf("push = %+v", res)
		}
		_ = students

		// Over 32 MiB is refused before it is read.
		huge := make([]byte, 32<<20+1)
		h.as(lab, "POST", "/api/v1/sync/push-answers", huge).expectError(413, "BODY_TOO_LARGE")
	})
}
