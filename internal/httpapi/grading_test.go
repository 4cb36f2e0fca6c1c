package httpapi_test

import (
	"encoding/csv"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/testkit"
)

// essayAnswerJSON is one answer of GET .../questions/{q}/answers.
type essayAnswerJSON struct {
	Code      string     `json:"code"`
	MemberID  string     `json:"member_id"`
	Nama      string     `json:"nama"`
	Answer    string     `json:"answer"`
	MaxPoints float64    `json:"max_points"`
	Graded    bool       `json:"graded"`
	Grade     *gradeJSON `json:"grade"`
}

type gradeJSON struct {
	Points         float64 `json:"points"`
	Comment        string  `json:"comment"`
	GraderID       string  `json:"grader_id"`
	GraderUsername string  `json:"grader_username"`
	Version        int     `json:"version"`
}

var codePattern = regexp.MustCompile(`^[A-Z2-7]{4}-[A-Z2-7]{4}$`)

// gradingFixture creates an exam whose essay q5 is worth 10 points with a
// rubric, and pushes: ani q1 right and q5, budi q5, citra a blank q5.
func gradingFixture(h *harness) (examID string, students map[string]string) {
	h.t.Helper()
	students = h.importStudents(npsnA, "Ani Lestari", "Budi Santoso", "Citra Dewi")
	body := examFixture(npsnA)
	qs := body["questions"].([]map[string]any)
	qs[4]["points"], qs[4]["rubric"] = 10, "4 poin: rumus; 6 poin: contoh"
	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	h.op("POST", "/api/v1/admin/exams", body).expect(201).decode(&created)
	examID = created.Data.ID
	lab := h.newLabServer("LAB-01", npsnA)
	at := "2026-12-01T08:00:00Z"
	raw := answersJSON(
		answerRec{examID, students["ani.lestari"], "q1", "b", at},
		answerRec{examID, students["ani.lestari"], "q5", "a² + b² = c², <script>alert(1)</script>", at},
		answerRec{examID, students["budi.santoso"], "q5", "sisi miring", at},
		answerRec{examID, students["citra.dewi"], "q5", "  ", at},
	)
	h.as(lab, "POST", "/api/v1/sync/push-answers", encodePush(newPush(lab, raw, 4))).expect(200)
	return examID, students
}

// newGrader creates a grader account and returns its id and token.
func (h *harness) newGrader(username string) (id, token string) {
	h.t.Helper()
	var g struct {
		Data struct {
			ID      string   `json:"id"`
			Role    string   `json:"role"`
			ExamIDs []string `json:"exam_ids"`
		} `json:"data"`
	}
	h.op("POST", "/api/v1/admin/graders", map[string]string{"username": username, "name": "Guru " + username,
		"password": "rahasia-guru-1"}).expect(201).decode(&g)
	if g.Data.Role != "GRADER" || g.Data.ExamIDs == nil || len(g.Data.ExamIDs) != 0 {
		h.t.Fatalf("created grader = %+v", g.Data)
	}
	var login struct {
		Token string `json:"token"`
	}
	h.req("POST", "/api/v1/auth/login", map[string]string{"username": username, "password": "rahasia-guru-1"}).expect(200).decode(&login)
	return g.Data.ID, login.Token
}

func (h *harness) essayAnswers(token, path string) (as []essayAnswerJSON, graded, toGrade int) {
	h.t.Helper()
	var res struct {
		Data []essayAnswerJSON `json:"data"`
		Meta struct {
			Total, Graded int
			ToGrade       int `json:"to_grade"`
		} `json:"meta"`
	}
	h.req("GET", path, nil, bearer(token)...).expect(200).decode(&res)
	if res.Meta.Total != len(res.Data) || res.Meta.Graded+res.Meta.ToGrade != res.Meta.Total {
		h.t.Fatalf("meta %+v does not add up for %d answers", res.Meta, len(res.Data))
	}
	return res.Data, res.Meta.Graded, res.Meta.ToGrade
}

// TestGrading: a grader grades the essays of the exam assigned to it,
// anonymously, with optimistic concurrency; results, answers and CSV show
// ungraded essays as pending until they are graded, then the grades.
func TestGrading(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		examID, students := gradingFixture(h)
		ani := students["ani.lestari"]
		base := "/api/v1/grading/exams/" + examID
		answers := base + "/questions/q5/answers"

		// Before any grade: pending, never zero.
		res := h.op("GET", "/api/v1/admin/exams/"+examID+"/results", nil).expect(200).m()
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
		csvBefore := h.op("GET", "/api/v1/admin/exams/"+examID+"/answers?format=csv&member_id="+ani, nil).expect(200)
		rows, err := csv.NewReader(strings.NewReader(string(csvBefore.body))).ReadAll()
		if err != nil || len(rows) != 3 || rows[0][9] != "graded" || rows[2][2] != "q5" || rows[2][8] != "ungraded" || rows[2][9] != "false" {
			t.Fatalf("answers CSV before grading = %q, %v", rows, err)
		}

		graderID, grader := h.newGrader("guru.bahasa")
		h.req("GET", "/api/v1/auth/me", nil, bearer(grader)...).expect(200)
		var mine struct {
			Data []struct{ ID string } `json:"data"`
		}
		h.req("GET", "/api/v1/grading/exams", nil, bearer(grader)...).expect(200).decode(&mine)
		if len(mine.Data) != 0 {
			t.Fatalf("an unassigned grader's exams = %+v", mine.Data)
		}
		h.req("GET", base, nil, bearer(grader)...).expectError(404, "NOT_FOUND")
		h.req("GET", answers, nil, bearer(grader)...).expectError(404, "NOT_FOUND")

		// Assigning: unknown exams and accounts are refused, writing nothing.
		h.op("PUT", "/api/v1/admin/graders/"+graderID+"/exams", map[string]any{"exam_ids": []string{examID, "nope"}}).expectError(400, "VALIDATION_FAILED")
		h.op("PUT", "/api/v1/admin/graders/"+graderID+"/exams", map[string]any{}).expectError(400, "INVALID_JSON")
		h.op("PUT", "/api/v1/admin/graders/nobody/exams", map[string]any{"exam_ids": []string{examID}}).expectError(404, "NOT_FOUND")
		h.req("GET", base, nil, bearer(grader)...).expectError(404, "NOT_FOUND")
		h.op("PUT", "/api/v1/admin/graders/"+graderID+"/exams", map[string]any{"exam_ids": []string{examID}}).expect(200)
		h.req("GET", "/api/v1/grading/exams", nil, bearer(grader)...).expect(200).decode(&mine)
		if len(mine.Data) != 1 || mine.Data[0].ID != examID {
			t.Fatalf("an assigned grader's exams = %+v", mine.Data)
		}

		progress := h.req("GET", base, nil, bearer(grader)...).expect(200).m()["data"].(map[string]any)
		qs := progress["questions"].([]any)
		if progress["answers"] != 2.0 || progress["graded"] != 0.0 || progress["to_grade"] != 2.0 || len(qs) != 1 ||
			qs[0].(map[string]any)["rubric"] != "4 poin: rumus; 6 poin: contoh" || qs[0].(map[string]any)["number"] != 5.0 {
			t.Fatalf("progress = %v", progress)
		}

		// Anonymous for the grader; names for an operator only.
		as, graded, toGrade := h.essayAnswers(grader, answers)
		if len(as) != 2 || graded != 0 || toGrade != 2 {
			t.Fatalf("answers to grade = %+v", as)
		}
		for _, a := range as {
			if !codePattern.MatchString(a.Code) || a.MemberID != "" || a.Nama != "" || a.Graded || a.Grade != nil || a.MaxPoints != 10 {
				t.Errorf("an answer to grade shows %+v", a)
			}
		}
		h.req("GET", answers+"?names=true", nil, bearer(grader)...).expectError(403, "GRADER_FORBIDDEN")
		named, _, _ := h.essayAnswers(h.operator(), answers+"?names=true")
		var aniCode string
		for _, a := range named {
			if a.MemberID == ani {
				aniCode = a.Code
				if a.Nama != "Ani Lestari" || !strings.Contains(a.Answer, "<script>") {
					t.Errorf("named answer = %+v", a)
				}
			}
		}
		if again, _, _ := h.essayAnswers(grader, answers); again[0].Code != as[0].Code || aniCode == "" {
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
			h.req("PUT", grade, c.body, bearer(grader)...).expectError(c.status, c.code)
		}
		h.req("PUT", answers+"/ZZZZ-ZZZZ/grade", map[string]any{"points": 5, "version": 0}, bearer(grader)...).expectError(404, "NOT_FOUND")
		h.req("PUT", base+"/questions/q1/answers/"+aniCode+"/grade", map[string]any{"points": 1, "version": 0}, bearer(grader)...).expectError(400, "NOT_AN_ESSAY")
		h.req("PUT", base+"/questions/q9/answers/"+aniCode+"/grade", map[string]any{"points": 1, "version": 0}, bearer(grader)...).expectError(404, "NOT_FOUND")
		h.req("PUT", grade, map[string]any{"points": 5}, append(bearer(grader), "If-Match", "x")...).expectError(400, "VALIDATION_FAILED")
		h.req("PUT", grade, map[string]any{"points": 5, "version": 1}, append(bearer(grader), "If-Match", `"0"`)...).expectError(400, "VALIDATION_FAILED")
		if _, graded, _ := h.essayAnswers(grader, answers); graded != 0 {
			t.Fatalf("refused saves graded %d answers", graded)
		}

		// A grade, then a second grader's stale save: 409 with the grade
		// that won; a save over it knowingly (If-Match) is version 2.
		var saved struct {
			Data gradeJSON `json:"data"`
		}
		h.req("PUT", grade, map[string]any{"points": 7.5, "comment": "rumus benar", "version": 0}, bearer(grader)...).expect(200).decode(&saved)
		if saved.Data.Version != 1 || saved.Data.Points != 7.5 || saved.Data.GraderID != graderID || saved.Data.GraderUsername != "guru.bahasa" {
			t.Fatalf("saved grade = %+v", saved.Data)
		}
		var conflict struct {
			Code    string    `json:"code"`
			Current gradeJSON `json:"current"`
		}
		h.op("PUT", grade, map[string]any{"points": 2, "version": 0}).expectError(409, "GRADE_CONFLICT").decode(&conflict)
		if conflict.Current.Points != 7.5 || conflict.Current.Version != 1 || conflict.Current.GraderUsername != "guru.bahasa" || conflict.Current.Comment != "rumus benar" {
			t.Fatalf("conflict shows %+v, want the grader's grade", conflict.Current)
		}
		one := h.op("GET", answers+"/"+strings.ToLower(aniCode), nil).expect(200)
		if one.header.Get("ETag") != `"1"` {
			t.Fatalf("ETag = %q", one.header.Get("ETag"))
		}
		h.op("PUT", grade, map[string]any{"points": 8, "comment": "contoh kurang"}, "If-Match", one.header.Get("ETag")).expect(200).decode(&saved)
		if saved.Data.Version != 2 || saved.Data.Points != 8 {
			t.Fatalf("save over version 1 = %+v", saved.Data)
		}
		var detail struct {
			Data struct {
				essayAnswerJSON
				History []gradeJSON `json:"history"`
			} `json:"data"`
		}
		h.req("GET", answers+"/"+aniCode, nil, bearer(grader)...).expect(200).decode(&detail)
		if len(detail.Data.History) != 2 || detail.Data.History[0].Points != 7.5 || detail.Data.History[1].Points != 8 ||
			detail.Data.Grade == nil || detail.Data.Grade.Version != 2 || detail.Data.MemberID != "" {
			t.Fatalf("answer with history = %+v", detail.Data)
		}

		// Results, the sheet and the CSV at once.
		r := h.results(examID)
		for _, m := range r.Results {
			if m.MemberID == ani && m.Score != 2+8 {
				t.Errorf("ani's score = %v, want 10 (q1 2 + essay 8)", m.Score)
			}
		}
		sheet := h.op("GET", "/api/v1/admin/exams/"+examID+"/results/"+ani, nil).expect(200).m()["data"].(map[string]any)
		if sheet["pending"] != 0.0 || sheet["graded"] != true || sheet["score"] != 10.0 {
			t.Errorf("ani's sheet = pending %v graded %v score %v", sheet["pending"], sheet["graded"], sheet["score"])
		}
		csvAfter := h.op("GET", "/api/v1/admin/exams/"+examID+"/answers?format=csv&member_id="+ani, nil).expect(200)
		rows, _ = csv.NewReader(strings.NewReader(string(csvAfter.body))).ReadAll()
		if rows[2][7] != "false" || rows[2][8] != "8" || rows[2][9] != "true" || rows[2][10] != "contoh kurang" {
			t.Fatalf("answers CSV after grading = %q", rows[2])
		}
		if _, graded, toGrade := h.essayAnswers(grader, answers+"?status=ungraded"); graded != 0 || toGrade != 1 {
			t.Fatalf("ungraded answers: graded %d, to grade %d", graded, toGrade)
		}

		// Taking the exam away ends the grader's access.
		h.op("PUT", "/api/v1/admin/graders/"+graderID+"/exams", map[string]any{"exam_ids": []string{}}).expect(200)
		h.req("PUT", grade, map[string]any{"points": 1, "version": 2}, bearer(grader)...).expectError(404, "NOT_FOUND")
	})
}

// TestGradeRace: two graders save over the same version at once; one wins,
// the other is told, and no grade is lost.
func TestGradeRace(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		examID, _ := gradingFixture(h)
		id1, g1 := h.newGrader("guru.satu")
		id2, g2 := h.newGrader("guru.dua")
		for _, id := range []string{id1, id2} {
			h.op("PUT", "/api/v1/admin/graders/"+id+"/exams", map[string]any{"exam_ids": []string{examID}}).expect(200)
		}
		answers := "/api/v1/grading/exams/" + examID + "/questions/q5/answers"
		as, _, _ := h.essayAnswers(h.operator(), answers)
		grade := answers + "/" + as[0].Code + "/grade"
		statuses := make([]int, 2)
		var wg sync.WaitGroup
		for i, tok := range []string{g1, g2} {
			wg.Go(func() {
				statuses[i] = h.req("PUT", grade, map[string]any{"points": float64(i + 1), "version": 0}, bearer(tok)...).status
			})
		}
		wg.Wait()
		if !(statuses[0] == 200 && statuses[1] == 409 || statuses[0] == 409 && statuses[1] == 200) {
			t.Fatalf("concurrent saves of version 0 answered %v, want one 200 and one 409", statuses)
		}
		if got, graded, _ := h.essayAnswers(g1, answers); graded != 1 || got[0].Grade.Version != 1 {
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
	h := newHarness(t, openBolt, withLinks(clk, &ls), withOrdering(clk, "", t.TempDir()))
	clk.Set(h.clock.Now())
	_, grader := h.newGrader("guru.tamu")
	checked := 0
	err := chi.Walk(h.router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		operatorRoute := strings.HasPrefix(route, "/api/v1/admin/") ||
			strings.HasPrefix(route, "/api/v1/licenses") && route != "/api/v1/licenses/public-key"
		if !operatorRoute {
			return nil
		}
		path := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(route, "x")
		h.req(method, path, nil, bearer(grader)...).expectError(403, "GRADER_FORBIDDEN")
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
