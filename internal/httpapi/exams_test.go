package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
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
	forEachStore(t, func(t *testing.T, h *harness) {
		var created struct {
			Success bool     `json:"success"`
			Data    examJSON `json:"data"`
		}
		h.op("POST", "/api/v1/admin/exams", examFixture(npsnB, npsnA, npsnB)).expect(201).decode(&created)
		e := created.Data
		if e.ID == "" || e.Title != "Matematika Dasar" || strings.Join(e.NPSN, ",") != npsnA+","+npsnB ||
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
		h.op("GET", "/api/v1/admin/exams/"+e.ID, nil).expect(200).decode(&got)
		if len(got.Data.Questions) != 5 || got.Data.Questions[0].Answer[0] != "b" || got.Data.Questions[3].Answer[0] != "Jakarta" {
			t.Fatalf("get = %+v", got.Data)
		}
		h.op("GET", "/api/v1/admin/exams/no-such-exam", nil).expectError(404, "NOT_FOUND")

		onlyB := h.createExam(npsnB)
		var list struct {
			Success bool              `json:"success"`
			Data    []json.RawMessage `json:"data"`
		}
		h.op("GET", "/api/v1/admin/exams", nil).expect(200).decode(&list)
		if len(list.Data) != 2 {
			t.Fatalf("list = %s", list.Data)
		}
		h.op("GET", "/api/v1/admin/exams?npsn="+npsnA, nil).expect(200).decode(&list)
		if len(list.Data) != 1 || strings.Contains(string(list.Data[0]), `"questions"`) || !strings.Contains(string(list.Data[0]), e.ID) {
			t.Fatalf("list for A = %s (want one exam without questions)", list.Data)
		}

		h.op("DELETE", "/api/v1/admin/exams/"+onlyB, nil).expect(200)
		h.op("GET", "/api/v1/admin/exams/"+onlyB, nil).expectError(404, "NOT_FOUND")
		h.op("DELETE", "/api/v1/admin/exams/"+onlyB, nil).expectError(404, "NOT_FOUND")
		h.req("GET", "/api/v1/admin/exams", nil).expectError(401, "UNAUTHORIZED")
	})
}

func TestExamValidation(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
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
				b := examFixture(npsnA)
				mutate(b)
				h.op("POST", "/api/v1/admin/exams", b).expectError(400, "VALIDATION_FAILED")
			})
		}
		b := examFixture(npsnA)
		b["starts_at"] = "next tuesday"
		h.op("POST", "/api/v1/admin/exams", b).expectError(400, "INVALID_JSON")
		b = examFixture(npsnA)
		b["questions"].([]map[string]any)[0]["weight"] = 2
		h.op("POST", "/api/v1/admin/exams", b).expectError(400, "INVALID_JSON")

		var list struct {
			Success bool  `json:"success"`
			Data    []any `json:"data"`
		}
		h.op("GET", "/api/v1/admin/exams", nil).decode(&list)
		if len(list.Data) != 0 {
			t.Fatalf("invalid exams were stored: %v", list.Data)
		}
	})
}

func TestExamResults(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		lab, examID, students := pushFixture(h)
		ani, budi := students["ani.lestari"], students["budi.santoso"]
		at := "2026-12-01T08:00:00Z"
		raw := answersJSON(
			answerRec{examID, ani, "q1", "b", at},         // right, 2 points
			answerRec{examID, ani, "q2", "c, a", at},      // right, 3 points
			answerRec{examID, ani, "q3", "false", at},     // right, 1 point
			answerRec{examID, ani, "q4", " jakarta ", at}, // right, 1 point
			answerRec{examID, ani, "q5", "a² + b² = c²", at},
			answerRec{examID, budi, "q1", "a", at},     // wrong
			answerRec{examID, budi, "q2", "a", at},     // wrong: not every option
			answerRec{examID, budi, "q3", "false", at}, // right
		)
		h.as(lab, "POST", "/api/v1/sync/push-answers", encodePush(newPush(lab, raw, 8))).expect(200)
		// A later push with a newer answer wins.
		h.as(lab, "POST", "/api/v1/sync/push-answers", encodePush(newPush(lab,
			answersJSON(answerRec{examID, budi, "q1", "b", "2026-12-01T08:05:00Z"}), 1))).expect(200)

		res := h.results(examID)
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
		h.op("DELETE", "/api/v1/admin/exams/"+examID, nil).expectError(409, "EXAM_HAS_ANSWERS")
		h.op("GET", "/api/v1/admin/exams/nope/results", nil).expectError(404, "NOT_FOUND")

		// No answers: an empty list, not null.
		other := h.createExam(npsnA)
		body := h.op("GET", "/api/v1/admin/exams/"+other+"/results", nil).expect(200).body
		if !strings.Contains(string(body), `"results":[]`) {
			t.Fatalf("results without answers = %s", body)
		}
	})
}
