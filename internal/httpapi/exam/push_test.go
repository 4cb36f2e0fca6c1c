package exam_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

type pushResult struct {
	Success     bool      `json:"success"`
	Message     string    `json:"message"`
	SyncID      string    `json:"sync_id"`
	Duplicate   bool      `json:"duplicate"`
	ReceivedAt  time.Time `json:"received_at"`
	RecordCount int       `json:"record_count"`
}

func recJSON(r httpapitest.AnswerRec) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// pushFixture sets up a school with two students, an exam and a verified lab server.
func pushFixture(h *httpapitest.Harness) (lab httpapitest.LabServer, examID string, students map[string]string) {
	students = h.ImportStudents(httpapitest.NPSNA, "Ani Lestari", "Budi Santoso")
	examID = h.CreateExam(httpapitest.NPSNA)
	lab = h.NewLabServer("LAB-01", httpapitest.NPSNA)
	return lab, examID, students
}

func TestPushAnswers(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab, examID, students := pushFixture(h)
		ani := students["ani.lestari"]
		at := "2026-12-01T08:00:00Z"
		// Unusual but valid spacing: the checksum covers these exact bytes.
		raw := "[ " + recJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q1", Answer: "b", AnsweredAt: at}) + " ,\n  " +
			recJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q2", Answer: "c,a", AnsweredAt: at}) + " ]"
		body := httpapitest.EncodePush(httpapitest.NewPush(lab, raw, 2))

		var first pushResult
		h.As(lab, "POST", "/api/v1/sync/push-answers", body, "Idempotency-Key", "push-1").Expect(200).Decode(&first)
		if !first.Success || first.SyncID == "" || first.Duplicate || first.Message != "2 records received" || first.ReceivedAt.IsZero() {
			t.Fatalf("push = %+v", first)
		}

		// Repeats: same key, then same checksum without a key.
		var again pushResult
		h.As(lab, "POST", "/api/v1/sync/push-answers", body, "Idempotency-Key", "push-1").Expect(200).Decode(&again)
		if again.SyncID != first.SyncID || !again.Duplicate {
			t.Fatalf("repeat by key = %+v, want sync_id %s duplicate", again, first.SyncID)
		}
		h.As(lab, "POST", "/api/v1/sync/push-answers", body).Expect(200).Decode(&again)
		if again.SyncID != first.SyncID || !again.Duplicate {
			t.Fatalf("repeat by checksum = %+v, want sync_id %s duplicate", again, first.SyncID)
		}
		// Same key, another payload.
		other := httpapitest.EncodePush(httpapitest.NewPush(lab, httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q3", Answer: "false", AnsweredAt: at}), 1))
		h.As(lab, "POST", "/api/v1/sync/push-answers", other, "Idempotency-Key", "push-1").ExpectError(409, "IDEMPOTENCY_KEY_REUSED")

		res := h.Results(examID)
		if len(res.Results) != 1 || res.Results[0].MemberID != ani || res.Results[0].Answered != 2 ||
			res.Results[0].Correct != 2 || res.Results[0].Score != 5 {
			t.Fatalf("results after push = %+v", res)
		}

		var logs struct {
			Success bool          `json:"success"`
			Data    []syncLogJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/sync-logs?server_code=LAB-01&status=accepted", nil).Decode(&logs)
		accepted := 0
		for _, l := range logs.Data {
			if l.Action == "push_results" {
				accepted++
				if l.SyncID != first.SyncID || l.RecordCount != 2 || l.Checksum != httpapitest.SHA([]byte(raw)) || l.IdempotencyKey != "push-1" {
					t.Fatalf("log = %+v", l)
				}
			}
		}
		if accepted != 1 {
			t.Fatalf("%d accepted push records, want 1", accepted)
		}
		h.Op("GET", "/api/v1/admin/sync-logs?server_code=LAB-01&status=duplicate", nil).Decode(&logs)
		if len(logs.Data) != 2 {
			t.Fatalf("duplicate records = %+v, want 2", logs.Data)
		}
	})
}

func TestPushAnswersRefusals(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab, examID, students := pushFixture(h)
		ani := students["ani.lestari"]
		at := "2026-12-01T08:00:00Z"
		good := httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q1", Answer: "b", AnsweredAt: at})
		push := func(p httpapitest.PushBody, hdr ...string) *httpapitest.Response {
			t.Helper()
			return h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(p), hdr...)
		}

		bad := httpapitest.NewPush(lab, good, 1)
		bad.Checksum = httpapitest.SHA([]byte(good + " "))
		push(bad).ExpectError(422, "CHECKSUM_MISMATCH")

		// The checksum of a re-encoding does not count: only the bytes as sent.
		spaced := strings.Replace(good, `,"member_id"`, `, "member_id"`, 1)
		compactSum := httpapitest.NewPush(lab, spaced, 1)
		compactSum.Checksum = httpapitest.SHA([]byte(good))
		push(compactSum).ExpectError(422, "CHECKSUM_MISMATCH")

		push(httpapitest.NewPush(lab, good, 2)).ExpectError(422, "RECORD_COUNT_MISMATCH")
		push(httpapitest.NewPush(lab, httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: "no-such-exam", MemberID: ani, QuestionID: "q1", Answer: "b", AnsweredAt: at}), 1)).ExpectError(422, "UNKNOWN_EXAM")
		push(httpapitest.NewPush(lab, httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q99", Answer: "b", AnsweredAt: at}), 1)).ExpectError(422, "UNKNOWN_QUESTION")
		push(httpapitest.NewPush(lab, httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q1", Answer: "b", AnsweredAt: ""}), 1)).ExpectError(400, "VALIDATION_FAILED")

		// An exam of another school is unknown to this server.
		otherExam := h.CreateExam(httpapitest.NPSNB)
		push(httpapitest.NewPush(lab, httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: otherExam, MemberID: ani, QuestionID: "q1", Answer: "b", AnsweredAt: at}), 1)).ExpectError(422, "UNKNOWN_EXAM")

		// Another server's token cannot push as LAB-01.
		labB := h.NewLabServer("LAB-B", httpapitest.NPSNB)
		h.As(labB, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, good, 1))).ExpectError(403, "SERVER_MISMATCH")
		mismatch := httpapitest.NewPush(lab, good, 1)
		mismatch.NPSN = httpapitest.NPSNB
		push(mismatch).ExpectError(403, "SERVER_MISMATCH")

		h.As(lab, "POST", "/api/v1/sync/push-answers", `{"server_code":"LAB-01","extra":1}`).ExpectError(400, "INVALID_JSON")
		h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, good, 1))+" {}").ExpectError(400, "INVALID_JSON")

		// Nothing of the refused pushes was stored.
		if res := h.Results(examID); len(res.Results) != 0 {
			t.Fatalf("refused pushes stored answers: %+v", res.Results)
		}
		var logs struct {
			Success bool          `json:"success"`
			Data    []syncLogJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/sync-logs?server_code=LAB-01&status=rejected", nil).Decode(&logs)
		got := map[string]int{}
		for _, l := range logs.Data {
			got[l.ErrorCode]++
		}
		if got["CHECKSUM_MISMATCH"] != 2 || got["RECORD_COUNT_MISMATCH"] != 1 || got["UNKNOWN_EXAM"] != 2 {
			t.Fatalf("rejected push log codes = %v", got)
		}

		// After all that, the good push is accepted and is not a duplicate.
		var ok pushResult
		push(httpapitest.NewPush(lab, good, 1)).Expect(200).Decode(&ok)
		if ok.Duplicate || ok.Message != "1 records received" {
			t.Fatalf("push = %+v", ok)
		}
	})
}

func TestPushAnswersLargeBody(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab, examID, students := pushFixture(h)
		// About 2 MiB of essay answers: over the default 1 MiB limit, under
		// the 32 MiB of push-answers.
		essay := strings.Repeat("x", 9000)
		var recs []httpapitest.AnswerRec
		for i := 0; i < 240; i++ {
			recs = append(recs, httpapitest.AnswerRec{ExamID: examID, MemberID: fmt.Sprintf("member-%03d", i), QuestionID: "q5", Answer: essay, AnsweredAt: "2026-12-01T08:00:00Z"})
		}
		raw := httpapitest.AnswersJSON(recs...)
		if len(raw) < 2<<20 {
			t.Fatalf("fixture is only %d bytes", len(raw))
		}
		var res pushResult
		h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, raw, len(recs)))).Expect(200).Decode(&res)
		if res.RecordCount != 240 {
			t.Fatalf("push = %+v", res)
		}
		_ = students

		// Over 32 MiB is refused before it is read.
		huge := make([]byte, 32<<20+1)
		h.As(lab, "POST", "/api/v1/sync/push-answers", huge).ExpectError(413, "BODY_TOO_LARGE")
	})
}
