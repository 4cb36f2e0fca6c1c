package exam_test

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

// answersPage is the body of GET /api/v1/admin/exams/{id}/answers.
type answersPage struct {
	Success bool `json:"success"`
	Data    []struct {
		MemberID   string  `json:"member_id"`
		QuestionID string  `json:"question_id"`
		Answer     string  `json:"answer"`
		AnsweredAt string  `json:"answered_at"`
		ServerCode string  `json:"server_code"`
		SyncID     string  `json:"sync_id"`
		Correct    bool    `json:"correct"`
		Points     float64 `json:"points"`
	} `json:"data"`
	Meta struct {
		Total      int `json:"total"`
		Page       int `json:"page"`
		PerPage    int `json:"per_page"`
		TotalPages int `json:"total_pages"`
		AnswerRows int `json:"answer_rows"`
	} `json:"meta"`
}

// TestExamAnswers: every stored answer with the push that stored it and
// its correctness, filtered by member and school, paged, as CSV; one
// student's answer sheet; a re-push stores nothing twice (answer_rows).
func TestExamAnswers(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab, examID, students := pushFixture(h)
		ani, budi := students["ani.lestari"], students["budi.santoso"]
		other := h.ImportStudents(httpapitest.NPSNB, "Citra Dewi")["citra.dewi"]
		at := "2026-12-01T08:00:00Z"
		raw := httpapitest.AnswersJSON(
			httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q1", Answer: "b", AnsweredAt: at},
			httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q2", Answer: "c, a", AnsweredAt: at},
			httpapitest.AnswerRec{ExamID: examID, MemberID: budi, QuestionID: "q1", Answer: "a", AnsweredAt: at},
			httpapitest.AnswerRec{ExamID: examID, MemberID: other, QuestionID: "q1", Answer: "b", AnsweredAt: at}, // another school's student, pushed by this lab
		)
		var first struct {
			SyncID string `json:"sync_id"`
		}
		push := httpapitest.EncodePush(httpapitest.NewPush(lab, raw, 4))
		h.As(lab, "POST", "/api/v1/sync/push-answers", push).Expect(200).Decode(&first)
		h.As(lab, "POST", "/api/v1/sync/push-answers", push).Expect(200) // a re-push: a duplicate

		var all answersPage
		h.Op("GET", "/api/v1/admin/exams/"+examID+"/answers", nil).Expect(200).Decode(&all)
		if all.Meta.Total != 4 || all.Meta.AnswerRows != 4 || all.Meta.Page != 1 || all.Meta.PerPage != 100 || all.Meta.TotalPages != 1 || len(all.Data) != 4 {
			t.Fatalf("answers = %+v", all)
		}
		for _, a := range all.Data {
			if a.ServerCode != "LAB-01" || a.SyncID != first.SyncID || a.AnsweredAt != at {
				t.Errorf("answer without its push: %+v", a)
			}
			want := a.Answer != "a" // budi's q1 is the only wrong one
			if a.Correct != want {
				t.Errorf("%s %s %q: correct %v, want %v", a.MemberID, a.QuestionID, a.Answer, a.Correct, want)
			}
		}
		if res := h.Results(examID); res.AnswerRows != 4 {
			t.Errorf("results answer_rows = %d, want 4", res.AnswerRows)
		}

		var page answersPage
		h.Op("GET", "/api/v1/admin/exams/"+examID+"/answers?member_id="+ani, nil).Expect(200).Decode(&page)
		if page.Meta.Total != 2 || page.Meta.AnswerRows != 4 || len(page.Data) != 2 || page.Data[0].MemberID != ani {
			t.Fatalf("ani's answers = %+v", page)
		}
		h.Op("GET", "/api/v1/admin/exams/"+examID+"/answers?npsn="+httpapitest.NPSNB, nil).Expect(200).Decode(&page)
		if page.Meta.Total != 1 || len(page.Data) != 1 || page.Data[0].MemberID != other {
			t.Fatalf("school B's answers = %+v", page)
		}
		h.Op("GET", "/api/v1/admin/exams/"+examID+"/answers?per_page=3&page=2", nil).Expect(200).Decode(&page)
		if page.Meta.Total != 4 || page.Meta.TotalPages != 2 || len(page.Data) != 1 || page.Data[0] != all.Data[3] {
			t.Fatalf("page 2 of 3 = %+v", page)
		}

		resp := h.Op("GET", "/api/v1/admin/exams/"+examID+"/answers?format=csv&npsn="+httpapitest.NPSNA, nil).Expect(200)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("CSV Content-Type %q", ct)
		}
		rows, err := csv.NewReader(strings.NewReader(string(resp.Body))).ReadAll()
		if err != nil || len(rows) != 4 || strings.Join(rows[0], ",") != "exam_id,member_id,question_id,answer,answered_at,server_code,sync_id,correct,points,graded,grade_comment" {
			t.Fatalf("CSV: %v\n%s", err, resp.Body)
		}
		if got := strings.Join(rows[2], ","); got != fmt.Sprintf("%s,%s,q2,c, a,%s,LAB-01,%s,true,3,true,", examID, ani, at, first.SyncID) {
			t.Errorf("CSV row %q", got)
		}

		// Bad input.
		h.Op("GET", "/api/v1/admin/exams/nope/answers", nil).ExpectError(404, "NOT_FOUND")
		h.Op("GET", "/api/v1/admin/exams/nope/answers?format=csv", nil).ExpectError(404, "NOT_FOUND")
		h.Op("GET", "/api/v1/admin/exams/"+examID+"/answers?per_page=1001", nil).ExpectError(400, "INVALID_QUERY")
		h.Op("GET", "/api/v1/admin/exams/"+examID+"/answers?page=0", nil).ExpectError(400, "INVALID_QUERY")
		h.Op("GET", "/api/v1/admin/exams/"+examID+"/answers?format=xml", nil).ExpectError(400, "INVALID_QUERY")
		h.Req("GET", "/api/v1/admin/exams/"+examID+"/answers", nil).ExpectError(401, "UNAUTHORIZED")

		// Ani's answer sheet: every question in order, her answer or null.
		var sheet struct {
			Data struct {
				MemberID  string  `json:"member_id"`
				Nama      string  `json:"nama"`
				Score     float64 `json:"score"`
				MaxScore  float64 `json:"max_score"`
				Answered  int     `json:"answered"`
				Correct   int     `json:"correct"`
				Questions []struct {
					Number   int `json:"number"`
					Question struct {
						ID     string   `json:"id"`
						Answer []string `json:"answer"`
					} `json:"question"`
					Answer *struct {
						Answer  string `json:"answer"`
						Correct bool   `json:"correct"`
						SyncID  string `json:"sync_id"`
					} `json:"answer"`
				} `json:"questions"`
			} `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/exams/"+examID+"/results/"+ani, nil).Expect(200).Decode(&sheet)
		d := sheet.Data
		if d.MemberID != ani || d.Nama != "Ani Lestari" || d.Score != 5 || d.MaxScore != 7 || d.Answered != 2 || d.Correct != 2 || len(d.Questions) != 5 {
			t.Fatalf("sheet = %+v", d)
		}
		if q := d.Questions[1]; q.Number != 2 || q.Question.ID != "q2" || strings.Join(q.Question.Answer, ",") != "a,c" ||
			q.Answer == nil || q.Answer.Answer != "c, a" || !q.Answer.Correct || q.Answer.SyncID != first.SyncID {
			t.Fatalf("sheet row 2 = %+v", q)
		}
		if d.Questions[4].Answer != nil {
			t.Fatalf("an unanswered question has an answer: %+v", d.Questions[4])
		}
		h.Op("GET", "/api/v1/admin/exams/"+examID+"/results/nobody", nil).ExpectError(404, "NOT_FOUND")
		h.Op("GET", "/api/v1/admin/exams/nope/results/"+ani, nil).ExpectError(404, "NOT_FOUND")
	})
}
