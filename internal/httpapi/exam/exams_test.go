package exam_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

type examJSON struct {
	ID              string    `json:"id"`
	Title           string    `json:"title"`
	Subject         string    `json:"subject"`
	NPSN            []string  `json:"npsn"`
	StartsAt        time.Time `json:"starts_at"`
	EndsAt          time.Time `json:"ends_at"`
	DurationMinutes int       `json:"duration_minutes"`
	QuestionCount   int       `json:"question_count"`
	CreatedAt       time.Time `json:"created_at"`
	Questions       []struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Text    string `json:"text"`
		Options []struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		} `json:"options"`
		Answer []string `json:"answer"`
		Points float64  `json:"points"`
	} `json:"questions"`
}

func TestExams(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		var created struct {
			Success bool     `json:"success"`
			Data    examJSON `json:"data"`
		}
		h.Op("POST", "/api/v1/admin/exams", httpapitest.ExamFixture(httpapitest.NPSNB, httpapitest.NPSNA, httpapitest.NPSNB)).Expect(201).Decode(&created)
		e := created.Data
		if e.ID == "" || e.Title != "Matematika Dasar" || strings.Join(e.NPSN, ",") != httpapitest.NPSNA+","+httpapitest.NPSNB ||
			e.DurationMinutes != 90 || e.QuestionCount != 5 || len(e.Questions) != 5 ||
			!e.StartsAt.Equal(time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)) {
			t.Fatalf("created = %+v", e)
		}
		if q := e.Questions[1]; q.Type != "multiple_choice" || strings.Join(q.Answer, ",") != "a,c" || len(q.Options) != 3 || q.Points != 3 {
			t.Fatalf("question 2 = %+v", q)
		}

		var got struct {
			Success bool     `json:"success"`
			Data    examJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/exams/"+e.ID, nil).Expect(200).Decode(&got)
		if len(got.Data.Questions) != 5 || got.Data.Questions[0].Answer[0] != "b" || got.Data.Questions[3].Answer[0] != "Jakarta" {
			t.Fatalf("get = %+v", got.Data)
		}
		h.Op("GET", "/api/v1/admin/exams/no-such-exam", nil).ExpectError(404, "NOT_FOUND")

		onlyB := h.CreateExam(httpapitest.NPSNB)
		var list struct {
			Success bool              `json:"success"`
			Data    []json.RawMessage `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/exams", nil).Expect(200).Decode(&list)
		if len(list.Data) != 2 {
			t.Fatalf("list = %s", list.Data)
		}
		h.Op("GET", "/api/v1/admin/exams?npsn="+httpapitest.NPSNA, nil).Expect(200).Decode(&list)
		if len(list.Data) != 1 || strings.Contains(string(list.Data[0]), `"questions"`) || !strings.Contains(string(list.Data[0]), e.ID) {
			t.Fatalf("list for A = %s (want one exam without questions)", list.Data)
		}

		h.Op("DELETE", "/api/v1/admin/exams/"+onlyB, nil).Expect(200)
		h.Op("GET", "/api/v1/admin/exams/"+onlyB, nil).ExpectError(404, "NOT_FOUND")
		h.Op("DELETE", "/api/v1/admin/exams/"+onlyB, nil).ExpectError(404, "NOT_FOUND")
		h.Req("GET", "/api/v1/admin/exams", nil).ExpectError(401, "UNAUTHORIZED")
	})
}

func TestExamValidation(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		cases := map[string]func(map[string]any){
			"no title":        func(b map[string]any) { b["title"] = "" },
			"bad npsn":        func(b map[string]any) { b["npsn"] = []string{"123"} },
			"no schools":      func(b map[string]any) { b["npsn"] = []string{} },
			"ends first":      func(b map[string]any) { b["ends_at"] = b["starts_at"] },
			"duration":        func(b map[string]any) { b["duration_minutes"] = 0 },
			"no questions":    func(b map[string]any) { b["questions"] = []any{} },
			"bad answer":      func(b map[string]any) { b["questions"].([]map[string]any)[0]["answer"] = []string{"z"} },
			"bad type":        func(b map[string]any) { b["questions"].([]map[string]any)[0]["type"] = "poll" },
			"duplicate id":    func(b map[string]any) { b["questions"].([]map[string]any)[1]["id"] = "q1" },
			"essay with key":  func(b map[string]any) { b["questions"].([]map[string]any)[4]["answer"] = []string{"x"} },
			"true_false opts": func(b map[string]any) { b["questions"].([]map[string]any)[2]["answer"] = []string{"yes"} },
		}
		for name, mutate := range cases {
			t.Run(name, func(t *testing.T) {
				b := httpapitest.ExamFixture(httpapitest.NPSNA)
				mutate(b)
				h.Op("POST", "/api/v1/admin/exams", b).ExpectError(400, "VALIDATION_FAILED")
			})
		}
		b := httpapitest.ExamFixture(httpapitest.NPSNA)
		b["starts_at"] = "next tuesday"
		h.Op("POST", "/api/v1/admin/exams", b).ExpectError(400, "INVALID_JSON")
		b = httpapitest.ExamFixture(httpapitest.NPSNA)
		b["questions"].([]map[string]any)[0]["weight"] = 2
		h.Op("POST", "/api/v1/admin/exams", b).ExpectError(400, "INVALID_JSON")

		var list struct {
			Success bool  `json:"success"`
			Data    []any `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/exams", nil).Decode(&list)
		if len(list.Data) != 0 {
			t.Fatalf("invalid exams were stored: %v", list.Data)
		}
	})
}

func TestExamResults(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab, examID, students := pushFixture(h)
		ani, budi := students["ani.lestari"], students["budi.santoso"]
		at := "2026-12-01T08:00:00Z"
		raw := httpapitest.AnswersJSON(
			httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q1", Answer: "b", AnsweredAt: at},         // right, 2 points
			httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q2", Answer: "c, a", AnsweredAt: at},      // right, 3 points
			httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q3", Answer: "false", AnsweredAt: at},     // right, 1 point
			httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q4", Answer: " jakarta ", AnsweredAt: at}, // right, 1 point
			httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q5", Answer: "a² + b² = c²", AnsweredAt: at},
			httpapitest.AnswerRec{ExamID: examID, MemberID: budi, QuestionID: "q1", Answer: "a", AnsweredAt: at},     // wrong
			httpapitest.AnswerRec{ExamID: examID, MemberID: budi, QuestionID: "q2", Answer: "a", AnsweredAt: at},     // wrong: not every option
			httpapitest.AnswerRec{ExamID: examID, MemberID: budi, QuestionID: "q3", Answer: "false", AnsweredAt: at}, // right
		)
		h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, raw, 8))).Expect(200)
		// A later push with a newer answer wins.
		h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab,
			httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: budi, QuestionID: "q1", Answer: "b", AnsweredAt: "2026-12-01T08:05:00Z"}), 1))).Expect(200)

		res := h.Results(examID)
		if res.ExamID != examID || res.MaxScore != 7 || len(res.Results) != 2 {
			t.Fatalf("results = %+v", res)
		}
		a, b := res.Results[0], res.Results[1]
		if a.MemberID != ani || a.Nama != "Ani Lestari" || a.Username != "ani.lestari" || a.Kelas != "XII IPA 1" ||
			a.Score != 7 || a.Answered != 5 || a.Correct != 4 {
			t.Fatalf("ani = %+v", a)
		}
		if b.MemberID != budi || b.Score != 3 || b.Answered != 3 || b.Correct != 2 {
			t.Fatalf("budi = %+v", b)
		}
		// An exam with answers cannot be deleted.
		h.Op("DELETE", "/api/v1/admin/exams/"+examID, nil).ExpectError(409, "EXAM_HAS_ANSWERS")
		h.Op("GET", "/api/v1/admin/exams/nope/results", nil).ExpectError(404, "NOT_FOUND")

		// No answers: an empty list, not null.
		other := h.CreateExam(httpapitest.NPSNA)
		body := h.Op("GET", "/api/v1/admin/exams/"+other+"/results", nil).Expect(200).Body
		if !strings.Contains(string(body), `"results":[]`) {
			t.Fatalf("results without answers = %s", body)
		}
	})
}
