package exam_test

import (
	"encoding/csv"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/testkit"
)

var codePattern = regexp.MustCompile(`^[A-Z2-7]{4}-[A-Z2-7]{4}$`)

// gradingFixture creates an exam whose essay q5 is worth 10 points with a
// rubric, and pushes: ani q1 right and q5, budi q5, citra a blank q5.
func gradingFixture(h *httpapitest.Harness) (examID string, students map[string]string) {
	h.T.Helper()
	students = h.ImportStudents(httpapitest.NPSNA, "Ani Lestari", "Budi Santoso", "Citra Dewi")
	body := httpapitest.ExamFixture(httpapitest.NPSNA)
	qs := body["questions"].([]map[string]any)
	qs[4]["points"], qs[4]["rubric"] = 10, "4 poin: rumus; 6 poin: contoh"
	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	h.Op("POST", "/api/v1/admin/exams", body).Expect(201).Decode(&created)
	examID = created.Data.ID
	lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
	at := "2026-12-01T08:00:00Z"
	raw := httpapitest.AnswersJSON(
		httpapitest.AnswerRec{ExamID: examID, MemberID: students["ani.lestari"], QuestionID: "q1", Answer: "b", AnsweredAt: at},
		httpapitest.AnswerRec{ExamID: examID, MemberID: students["ani.lestari"], QuestionID: "q5", Answer: "a² + b² = c², <script>alert(1)</script>", AnsweredAt: at},
		httpapitest.AnswerRec{ExamID: examID, MemberID: students["budi.santoso"], QuestionID: "q5", Answer: "sisi miring", AnsweredAt: at},
		httpapitest.AnswerRec{ExamID: examID, MemberID: students["citra.dewi"], QuestionID: "q5", Answer: "  ", AnsweredAt: at},
	)
	h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, raw, 4))).Expect(200)
	return examID, students
}

// TestGrading: a grader grades the essays of the exam assigned to it,
// anonymously, with optimistic concurrency; results, answers and CSV show
// ungraded essays as pending until they are graded, then the grades.
func TestGrading(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		examID, students := gradingFixture(h)
		ani := students["ani.lestari"]
		base := "/api/v1/grading/exams/" + examID
		answers := base + "/questions/q5/answers"

		// Before any grade: pending, never zero.
		res := h.Op("GET", "/api/v1/admin/exams/"+examID+"/results", nil).Expect(200).M()
		for _, r := range res["data"].(map[string]any)["results"].([]any) {
			r := r.(map[string]any)
			pending, wantPending := r["pending"].(float64), 1.0
			if r["member_id"] == students["citra.dewi"] {
				wantPending = 0 // a blank essay has nothing to grade
			}
			if pending != wantPending || r["graded"] != (wantPending == 0) || r["pending_points"] != 10*wantPending {
				t.Errorf("results row before grading = %v", r)
			}
		}
		csvBefore := h.Op("GET", "/api/v1/admin/exams/"+examID+"/answers?format=csv&member_id="+ani, nil).Expect(200)
		rows, err := csv.NewReader(strings.NewReader(string(csvBefore.Body))).ReadAll()
		if err != nil || len(rows) != 3 || rows[0][9] != "graded" || rows[2][2] != "q5" || rows[2][8] != "ungraded" || rows[2][9] != "false" {
			t.Fatalf("answers CSV before grading = %q, %v", rows, err)
		}

		graderID, grader := h.NewGrader("guru.bahasa")
		h.Req("GET", "/api/v1/auth/me", nil, httpapitest.Bearer(grader)...).Expect(200)
		var mine struct {
			Data []struct{ ID string } `json:"data"`
		}
		h.Req("GET", "/api/v1/grading/exams", nil, httpapitest.Bearer(grader)...).Expect(200).Decode(&mine)
		if len(mine.Data) != 0 {
			t.Fatalf("an unassigned grader's exams = %+v", mine.Data)
		}
		h.Req("GET", base, nil, httpapitest.Bearer(grader)...).ExpectError(404, "NOT_FOUND")
		h.Req("GET", answers, nil, httpapitest.Bearer(grader)...).ExpectError(404, "NOT_FOUND")

		// Assigning: unknown exams and accounts are refused, writing nothing.
		h.Op("PUT", "/api/v1/admin/graders/"+graderID+"/exams", map[string]any{"exam_ids": []string{examID, "nope"}}).ExpectError(400, "VALIDATION_FAILED")
		h.Op("PUT", "/api/v1/admin/graders/"+graderID+"/exams", map[string]any{}).ExpectError(400, "INVALID_JSON")
		h.Op("PUT", "/api/v1/admin/graders/nobody/exams", map[string]any{"exam_ids": []string{examID}}).ExpectError(404, "NOT_FOUND")
		h.Req("GET", base, nil, httpapitest.Bearer(grader)...).ExpectError(404, "NOT_FOUND")
		h.Op("PUT", "/api/v1/admin/graders/"+graderID+"/exams", map[string]any{"exam_ids": []string{examID}}).Expect(200)
		h.Req("GET", "/api/v1/grading/exams", nil, httpapitest.Bearer(grader)...).Expect(200).Decode(&mine)
		if len(mine.Data) != 1 || mine.Data[0].ID != examID {
			t.Fatalf("an assigned grader's exams = %+v", mine.Data)
		}

		progress := h.Req("GET", base, nil, httpapitest.Bearer(grader)...).Expect(200).M()["data"].(map[string]any)
		qs := progress["questions"].([]any)
		if progress["answers"] != 2.0 || progress["graded"] != 0.0 || progress["to_grade"] != 2.0 || len(qs) != 1 ||
			qs[0].(map[string]any)["rubric"] != "4 poin: rumus; 6 poin: contoh" || qs[0].(map[string]any)["number"] != 5.0 {
			t.Fatalf("progress = %v", progress)
		}

		// Anonymous for the grader; names for an operator only.
		as, graded, toGrade := h.EssayAnswers(grader, answers)
		if len(as) != 2 || graded != 0 || toGrade != 2 {
			t.Fatalf("answers to grade = %+v", as)
		}
		for _, a := range as {
			if !codePattern.MatchString(a.Code) || a.MemberID != "" || a.Nama != "" || a.Graded || a.Grade != nil || a.MaxPoints != 10 {
				t.Errorf("an answer to grade shows %+v", a)
			}
		}
		h.Req("GET", answers+"?names=true", nil, httpapitest.Bearer(grader)...).ExpectError(403, "GRADER_FORBIDDEN")
		named, _, _ := h.EssayAnswers(h.Operator(), answers+"?names=true")
		var aniCode string
		for _, a := range named {
			if a.MemberID == ani {
				aniCode = a.Code
				if a.Nama != "Ani Lestari" || !strings.Contains(a.Answer, "<script>") {
					t.Errorf("named answer = %+v", a)
				}
			}
		}
		if again, _, _ := h.EssayAnswers(grader, answers); again[0].Code != as[0].Code || aniCode == "" {
			t.Fatalf("codes are not stable: %+v then %+v (ani %q)", as, again, aniCode)
		}

		// Bad input: a clear error, nothing written.
		grade := answers + "/" + aniCode + "/grade"
		for _, c := range []struct {
			body   any
			status int
			code   string
		}{
			{map[string]any{"points": 5}, 400, "VALIDATION_FAILED"},                      // no version
			{map[string]any{"points": 11, "version": 0}, 400, "VALIDATION_FAILED"},       // over the max
			{map[string]any{"points": -1, "version": 0}, 400, "VALIDATION_FAILED"},       // negative
			{map[string]any{"points": 7.555, "version": 0}, 400, "VALIDATION_FAILED"},    // finer than hundredths
			{map[string]any{"version": 0}, 400, "VALIDATION_FAILED"},                     // no points
			{map[string]any{"points": 5, "version": 0, "extra": 1}, 400, "INVALID_JSON"}, // unknown field
			{map[string]any{"points": 5, "version": 0, "comment": strings.Repeat("x", 4001)}, 400, "VALIDATION_FAILED"},
			{map[string]any{"points": "5", "version": 0}, 400, "INVALID_JSON"},
		} {
			h.Req("PUT", grade, c.body, httpapitest.Bearer(grader)...).ExpectError(c.status, c.code)
		}
		h.Req("PUT", answers+"/ZZZZ-ZZZZ/grade", map[string]any{"points": 5, "version": 0}, httpapitest.Bearer(grader)...).ExpectError(404, "NOT_FOUND")
		h.Req("PUT", base+"/questions/q1/answers/"+aniCode+"/grade", map[string]any{"points": 1, "version": 0}, httpapitest.Bearer(grader)...).ExpectError(400, "NOT_AN_ESSAY")
		h.Req("PUT", base+"/questions/q9/answers/"+aniCode+"/grade", map[string]any{"points": 1, "version": 0}, httpapitest.Bearer(grader)...).ExpectError(404, "NOT_FOUND")
		h.Req("PUT", grade, map[string]any{"points": 5}, append(httpapitest.Bearer(grader), "If-Match", "x")...).ExpectError(400, "VALIDATION_FAILED")
		h.Req("PUT", grade, map[string]any{"points": 5, "version": 1}, append(httpapitest.Bearer(grader), "If-Match", `"0"`)...).ExpectError(400, "VALIDATION_FAILED")
		if _, graded, _ := h.EssayAnswers(grader, answers); graded != 0 {
			t.Fatalf("refused saves graded %d answers", graded)
		}

		// A grade, then a second grader's stale save: 409 with the grade
		// that won; a save over it knowingly (If-Match) is version 2.
		var saved struct {
			Data httpapitest.GradeJSON `json:"data"`
		}
		h.Req("PUT", grade, map[string]any{"points": 7.5, "comment": "rumus benar", "version": 0}, httpapitest.Bearer(grader)...).Expect(200).Decode(&saved)
		if saved.Data.Version != 1 || saved.Data.Points != 7.5 || saved.Data.GraderID != graderID || saved.Data.GraderUsername != "guru.bahasa" {
			t.Fatalf("saved grade = %+v", saved.Data)
		}
		var conflict struct {
			Code    string                `json:"code"`
			Current httpapitest.GradeJSON `json:"current"`
		}
		h.Op("PUT", grade, map[string]any{"points": 2, "version": 0}).ExpectError(409, "GRADE_CONFLICT").Decode(&conflict)
		if conflict.Current.Points != 7.5 || conflict.Current.Version != 1 || conflict.Current.GraderUsername != "guru.bahasa" || conflict.Current.Comment != "rumus benar" {
			t.Fatalf("conflict shows %+v, want the grader's grade", conflict.Current)
		}
		one := h.Op("GET", answers+"/"+strings.ToLower(aniCode), nil).Expect(200)
		if one.Header.Get("ETag") != `"1"` {
			t.Fatalf("ETag = %q", one.Header.Get("ETag"))
		}
		h.Op("PUT", grade, map[string]any{"points": 8, "comment": "contoh kurang"}, "If-Match", one.Header.Get("ETag")).Expect(200).Decode(&saved)
		if saved.Data.Version != 2 || saved.Data.Points != 8 {
			t.Fatalf("save over version 1 = %+v", saved.Data)
		}
		var detail struct {
			Data struct {
				httpapitest.EssayAnswerJSON
				History []httpapitest.GradeJSON `json:"history"`
			} `json:"data"`
		}
		h.Req("GET", answers+"/"+aniCode, nil, httpapitest.Bearer(grader)...).Expect(200).Decode(&detail)
		if len(detail.Data.History) != 2 || detail.Data.History[0].Points != 7.5 || detail.Data.History[1].Points != 8 ||
			detail.Data.Grade == nil || detail.Data.Grade.Version != 2 || detail.Data.MemberID != "" {
			t.Fatalf("answer with history = %+v", detail.Data)
		}

		// Results, the sheet and the CSV at once.
		r := h.Results(examID)
		for _, m := range r.Results {
			if m.MemberID == ani && m.Score != 2+8 {
				t.Errorf("ani's score = %v, want 10 (q1 2 + essay 8)", m.Score)
			}
		}
		sheet := h.Op("GET", "/api/v1/admin/exams/"+examID+"/results/"+ani, nil).Expect(200).M()["data"].(map[string]any)
		if sheet["pending"] != 0.0 || sheet["graded"] != true || sheet["score"] != 10.0 {
			t.Errorf("ani's sheet = pending %v graded %v score %v", sheet["pending"], sheet["graded"], sheet["score"])
		}
		csvAfter := h.Op("GET", "/api/v1/admin/exams/"+examID+"/answers?format=csv&member_id="+ani, nil).Expect(200)
		rows, _ = csv.NewReader(strings.NewReader(string(csvAfter.Body))).ReadAll()
		if rows[2][7] != "false" || rows[2][8] != "8" || rows[2][9] != "true" || rows[2][10] != "contoh kurang" {
			t.Fatalf("answers CSV after grading = %q", rows[2])
		}
		if _, graded, toGrade := h.EssayAnswers(grader, answers+"?status=ungraded"); graded != 0 || toGrade != 1 {
			t.Fatalf("ungraded answers: graded %d, to grade %d", graded, toGrade)
		}

		// Taking the exam away ends the grader's access.
		h.Op("PUT", "/api/v1/admin/graders/"+graderID+"/exams", map[string]any{"exam_ids": []string{}}).Expect(200)
		h.Req("PUT", grade, map[string]any{"points": 1, "version": 2}, httpapitest.Bearer(grader)...).ExpectError(404, "NOT_FOUND")
	})
}

// TestGradeRace: two graders save over the same version at once; one wins,
// the other is told, and no grade is lost.
func TestGradeRace(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		examID, _ := gradingFixture(h)
		id1, g1 := h.NewGrader("guru.satu")
		id2, g2 := h.NewGrader("guru.dua")
		for _, id := range []string{id1, id2} {
			h.Op("PUT", "/api/v1/admin/graders/"+id+"/exams", map[string]any{"exam_ids": []string{examID}}).Expect(200)
		}
		answers := "/api/v1/grading/exams/" + examID + "/questions/q5/answers"
		as, _, _ := h.EssayAnswers(h.Operator(), answers)
		grade := answers + "/" + as[0].Code + "/grade"
		statuses := make([]int, 2)
		var wg sync.WaitGroup
		for i, tok := range []string{g1, g2} {
			wg.Go(func() {
				statuses[i] = h.Req("PUT", grade, map[string]any{"points": float64(i + 1), "version": 0}, httpapitest.Bearer(tok)...).Status
			})
		}
		wg.Wait()
		if !(statuses[0] == 200 && statuses[1] == 409 || statuses[0] == 409 && statuses[1] == 200) {
			t.Fatalf("concurrent saves of version 0 answered %v, want one 200 and one 409", statuses)
		}
		if got, graded, _ := h.EssayAnswers(g1, answers); graded != 1 || got[0].Grade.Version != 1 {
			t.Fatalf("after the race: %d graded, %+v", graded, got[0].Grade)
		}
	})
}

// TestGraderRefusedEverywhere: a grader's token is refused 403
// GRADER_FORBIDDEN by every operator route of the three APIs, and by
// nothing else it may use.
func TestGraderRefusedEverywhere(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	var ls *links.Service
	h := httpapitest.New(t, httpapitest.OpenBolt, httpapitest.WithLinks(clk, &ls), httpapitest.WithOrdering(clk, "", t.TempDir()))
	clk.Set(h.Clock.Now())
	_, grader := h.NewGrader("guru.tamu")
	checked := 0
	err := chi.Walk(h.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		operatorRoute := strings.HasPrefix(route, "/api/v1/admin/") ||
			strings.HasPrefix(route, "/api/v1/licenses") && route != "/api/v1/licenses/public-key"
		if !operatorRoute {
			return nil
		}
		path := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(route, "x")
		h.Req(method, path, nil, httpapitest.Bearer(grader)...).ExpectError(403, "GRADER_FORBIDDEN")
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 40 {
		t.Fatalf("only %d operator routes checked", checked)
	}
}
