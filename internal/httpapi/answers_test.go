package httpapi_test

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"
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
	forEachStore(t, func(t *testing.T, h *harness) {
		lab, examID, students := pushFixture(h)
		ani, budi := students["ani.lestari"], students["budi.santoso"]
		other := h.importStudents(npsnB, "Citra Dewi")["citra.dewi"]
		at := "2026-12-01T08:00:00Z"
		raw := answersJSON(
			answerRec{examID, ani, "q1", "b", at},
			answerRec{examID, ani, "q2", "c, a", at},
			answerRec{examID, budi, "q1", "a", at},
			answerRec{examID, other, "q1", "b", at}, // another school's student, pushed by this lab
		)
		var first struct {
			SyncID string `json:"sync_id"`
		}
		push := encodePush(newPush(lab, raw, 4))
		h.as(lab, "POST", "/api/v1/sync/push-answers", push).expect(200).decode(&first)
		h.as(lab, "POST", "/api/v1/sync/push-answers", push).expect(200) // a re-push: a duplicate

		var all answersPage
		h.op("GET", "/api/v1/admin/exams/"+examID+"/answers", nil).expect(200).decode(&all)
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
		if res := h.results(examID); res.AnswerRows != 4 {
			t.Errorf("results answer_rows = %d, want 4", res.AnswerRows)
		}

		var page answersPage
		h.op("GET", "/api/v1/admin/exams/"+examID+"/answers?member_id="+ani, nil).expect(200).decode(&page)
		if page.Meta.Total != 2 || page.Meta.AnswerRows != 4 || len(page.Data) != 2 || page.Data[0].MemberID != ani {
			t.Fatalf("ani's answers = %+v", page)
		}
		h.op("GET", "/api/v1/admin/exams/"+examID+"/answers?npsn="+npsnB, nil).expect(200).decode(&page)
		if page.Meta.Total != 1 || len(page.Data) != 1 || page.Data[0].MemberID != other {
			t.Fatalf("school B's answers = %+v", page)
		}
		h.op("GET", "/api/v1/admin/exams/"+examID+"/answers?per_page=3&page=2", nil).expect(200).decode(&page)
		if page.Meta.Total != 4 || page.Meta.TotalPages != 2 || len(page.Data) != 1 || page.Data[0] != all.Data[3] {
			t.Fatalf("page 2 of 3 = %+v", page)
		}

		resp := h.op("GET", "/api/v1/admin/exams/"+examID+"/answers?format=csv&npsn="+npsnA, nil).expect(200)
		if ct := resp.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("CSV Content-Type %q", ct)
		}
		rows, err := csv.NewReader(strings.NewReader(string(resp.body))).ReadAll()
		if err != nil || len(rows) != 4 || strings.Join(rows[0], ",") != "exam_id,member_id,question_id,answer,answered_at,server_code,sync_id,correct,points,graded,grade_comment" {
			t.Fatalf("CSV: %v\n%s", err, resp.body)
		}
		if got := strings.Join(rows[2], ","); got != fmt.Sprintf("%s,%s,q2,c, a,%s,LAB-01,%s,true,3,true,", examID, ani, at, first.SyncID) {
			t.Errorf("CSV row %q", got)
		}

		// Bad input.
		h.op("GET", "/api/v1/admin/exams/nope/answers", nil).expectError(404, "NOT_FOUND")
		h.op("GET", "/api/v1/admin/exams/nope/answers?format=csv", nil).expectError(404, "NOT_FOUND")
		h.op("GET", "/api/v1/admin/exams/"+examID+"/answers?per_page=1001", nil).expectError(400, "INVALID_QUERY")
		h.op("GET", "/api/v1/admin/exams/"+examID+"/answers?page=0", nil).expectError(400, "INVALID_QUERY")
		h.op("GET", "/api/v1/admin/exams/"+examID+"/answers?format=xml", nil).expectError(400, "INVALID_QUERY")
		h.req("GET", "/api/v1/admin/exams/"+examID+"/answers", nil).expectError(401, "UNAUTHORIZED")

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
		h.op("GET", "/api/v1/admin/exams/"+examID+"/results/"+ani, nil).expect(200).decode(&sheet)
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
		h.op("GET", "/api/v1/admin/exams/"+examID+"/results/nobody", nil).expectError(404, "NOT_FOUND")
		h.op("GET", "/api/v1/admin/exams/nope/results/"+ani, nil).expectError(404, "NOT_FOUND")
	})
}
