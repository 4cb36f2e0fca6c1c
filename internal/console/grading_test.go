package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/pkg/labwire"
)

// graderPassword is the password of the graders the tests create.
const graderPassword = "grader-Password-1"

// essayExam creates an exam whose q2 is an essay worth 10 points with a
// rubric, imports n students of school 20100001 and pushes each one's
// essay (essays[i] for student i, "Jawaban i" beyond them) and a right q1.
// It returns the exam and the students' member ids in order.
func (p *portal) essayExam(t *testing.T, n int, essays ...string) (exam.Exam, []string) {
	t.Helper()
	ctx := t.Context()
	e, err := p.exam.CreateExam(ctx, exam.ExamInput{Title: "Bahasa Indonesia", Subject: "BIN", NPSNs: []string{"20100001"},
		StartsAt: time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC), EndsAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), DurationMinutes: 90,
		Questions: []exam.Question{
			{ID: "q1", Type: exam.TrueFalse, Text: "Pantun bersajak a-b-a-b", Answer: []string{"true"}, Points: 2},
			{ID: "q2", Type: exam.Essay, Format: "markdown", Text: "Tulis sebuah **pantun** nasihat.", Points: 10,
				Rubric: "4 poin: sampiran; 4 poin: isi; 2 poin: rima a-b-a-b"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	var rows []exam.MemberInput
	for i := range n {
		rows = append(rows, exam.MemberInput{Nama: fmt.Sprintf("Siswa %02d", i), Username: fmt.Sprintf("siswa%02d", i),
			NISN: fmt.Sprintf("00990000%02d", i), Kelas: "XII"})
	}
	rep, err := p.exam.ImportMembers(ctx, rows, "20100001")
	if err != nil {
		t.Fatal(err)
	}
	lic, err := p.exam.GenerateLicense(ctx, exam.LicenseInput{NPSN: "20100001", SchoolName: "SMA 1", HardwareID: "HW-1",
		MaxStudents: 100, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.exam.VerifyServer(ctx, exam.VerifyInput{ServerCode: "LAB-01", NPSN: "20100001", HardwareID: "HW-1", LicenseToken: lic.License.Token})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := p.exam.AuthenticateServer(ctx, v.AccessToken)
	var ids []string
	var recs []string
	for i, r := range rep.Rows {
		ids = append(ids, r.MemberID)
		essay := fmt.Sprintf("Jawaban %d", i)
		if i < len(essays) {
			essay = essays[i]
		}
		recs = append(recs, fmt.Sprintf(`{"exam_id":%q,"member_id":%q,"question_id":"q1","answer":"true","answered_at":"2026-12-01T07:30:00Z"}`, e.ID, r.MemberID),
			fmt.Sprintf(`{"exam_id":%q,"member_id":%q,"question_id":"q2","answer":%q,"answered_at":"2026-12-01T07:40:00Z"}`, e.ID, r.MemberID, essay))
	}
	answers := []byte("[" + strings.Join(recs, ",") + "]")
	if _, err := p.exam.PushAnswers(ctx, id, exam.PushInput{ServerCode: "LAB-01", NPSN: "20100001", Checksum: labwire.ChecksumSHA256(answers),
		TotalRecords: len(recs), Answers: answers}); err != nil {
		t.Fatal(err)
	}
	return e, ids
}

// newGrader creates a grader assigned to the exams and returns its id.
func (p *portal) newGrader(t *testing.T, username string, examIDs ...string) string {
	t.Helper()
	u, err := p.ids.CreateOperator(t.Context(), identity.OperatorInput{Username: username, Password: graderPassword, Role: identity.RoleGrader})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.exam.AssignGraderExams(t.Context(), u.ID, examIDs); err != nil {
		t.Fatal(err)
	}
	return u.ID
}

var codeRE = regexp.MustCompile(`id="code">([A-Z2-7]{4}-[A-Z2-7]{4})<`)

// TestGradingPages: an operator creates a grader and assigns it an exam in
// the console; the grader signs in to grading only (every other page is
// 403), sees codes and not names, grades an answer, and a second grader's
// stale save is refused with the first one's grade.
func TestGradingPages(t *testing.T) {
	forEachStore(t, func(t *testing.T, kind string) {
		p := newPortal(t, onStore(kind))
		e, _ := p.essayExam(t, 3)
		op := browser(t)
		csrf := p.signIn(t, op)

		// The operator creates the grader and ticks the exam.
		if resp, body := post(t, op, p.srv.URL+"/console/graders", url.Values{"csrf": {csrf}, "username": {"x"}, "password": {"short"}}); resp.StatusCode != 400 ||
			!strings.Contains(body, "username must be") {
			t.Fatalf("a bad grader: %d", resp.StatusCode)
		}
		resp, _ := post(t, op, p.srv.URL+"/console/graders", url.Values{"csrf": {csrf}, "username": {"bu.sari"}, "name": {"Bu Sari"}, "password": {graderPassword}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("create grader: %d", resp.StatusCode)
		}
		gs, _ := p.exam.Graders(t.Context())
		if len(gs) != 1 {
			t.Fatalf("graders: %+v", gs)
		}
		if resp, _ := post(t, op, p.srv.URL+"/console/graders/"+gs[0].ID+"/exams", url.Values{"exam": {e.ID}}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("assign without the CSRF token: %d", resp.StatusCode)
		}
		if resp, _ := post(t, op, p.srv.URL+"/console/graders/"+gs[0].ID+"/exams", url.Values{"csrf": {csrf}, "exam": {e.ID}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("assign: %d", resp.StatusCode)
		}
		if _, body := get(t, op, p.srv.URL+"/console/graders"); !strings.Contains(body, `value="`+e.ID+`" checked`) {
			t.Fatal("the graders page does not show the exam ticked")
		}

		// The grader: grading only.
		g := browser(t)
		resp, _ = post(t, g, p.srv.URL+"/console/login", url.Values{"username": {"bu.sari"}, "password": {graderPassword}})
		if loc := resp.Header.Get("Location"); loc != "/console/grading" {
			t.Fatalf("a grader's sign-in goes to %q", loc)
		}
		for _, page := range []string{"/console/fleet", "/console/exams", "/console/students", "/console/graders", "/console/exams/" + e.ID + "/results",
			"/console/exams/" + e.ID + "/results.csv", "/console/licenses", "/console/api-keys"} {
			if resp, body := get(t, g, p.srv.URL+page); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "may not open this page") {
				t.Errorf("a grader opening %s: %d", page, resp.StatusCode)
			}
		}
		_, body := get(t, g, p.srv.URL+"/console/grading")
		if !strings.Contains(body, "/console/grading/"+e.ID) || strings.Contains(body, "/console/fleet") {
			t.Fatalf("the grader's list: %.500s", body)
		}
		other, _ := p.exam.CreateExam(t.Context(), exam.ExamInput{Title: "Lain", NPSNs: []string{"20100001"}, StartsAt: e.StartsAt, EndsAt: e.EndsAt,
			DurationMinutes: 60, Questions: []exam.Question{{ID: "q1", Type: exam.Essay, Text: "?", Points: 5}}})
		if resp, _ := get(t, g, p.srv.URL+"/console/grading/"+other.ID+"/q1"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("a grader opening an exam not assigned: %d", resp.StatusCode)
		}
		if resp, _ := get(t, g, p.srv.URL+"/console/grading/"+e.ID+"/q1"); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("grading a choice question: %d", resp.StatusCode)
		}

		page := p.srv.URL + "/console/grading/" + e.ID + "/q2"
		_, body = get(t, g, page)
		m := codeRE.FindStringSubmatch(body)
		if m == nil || strings.Contains(body, "Siswa 0") || !strings.Contains(body, "rima a-b-a-b") || !strings.Contains(body, "<strong>pantun</strong>") ||
			!strings.Contains(body, "To grade <strong>3</strong>") {
			t.Fatalf("the grading page: %s", body)
		}
		code, gcsrf := m[1], csrfOf(t, body)
		if _, named := get(t, g, page+"?names=1"); strings.Contains(named, "Siswa 0") {
			t.Error("a grader sees names with names=1")
		}
		if _, named := get(t, op, page+"?names=1"); !strings.Contains(named, "Siswa 0") {
			t.Error("an operator asking for names does not see them")
		}

		// Bad input keeps the form, writes nothing.
		for _, pts := range []string{"11", "abc", "-1", "7.555"} {
			resp, body := post(t, g, page+"?code="+code, url.Values{"csrf": {gcsrf}, "code": {code}, "points": {pts}, "comment": {"x"}, "version": {"0"}})
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `value="`+pts+`"`) {
				t.Errorf("points %q: %d", pts, resp.StatusCode)
			}
		}
		resp, _ = post(t, g, page+"?code="+code, url.Values{"csrf": {gcsrf}, "code": {code}, "points": {"7,5"}, "comment": {"sampiran kurang"}, "version": {"0"}})
		if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Location"), "advance=1") {
			t.Fatalf("save: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		_, body = get(t, g, p.srv.URL+resp.Header.Get("Location"))
		if next := codeRE.FindStringSubmatch(body); next == nil || next[1] == code || !strings.Contains(body, "Grade saved.") ||
			!strings.Contains(body, "Graded <strong>1</strong>") {
			t.Fatalf("after the save: %s", body)
		}

		// The operator read version 0 too: its save is refused with the
		// grader's grade shown, and the form then saves over it.
		resp, body = post(t, op, page+"?code="+code, url.Values{"csrf": {csrf}, "code": {code}, "points": {"3"}, "version": {"0"}})
		if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "Another grader saved this grade meanwhile") ||
			!strings.Contains(body, "7.5 points by bu.sari") || !strings.Contains(body, "sampiran kurang") || !strings.Contains(body, `name="version" value="1"`) ||
			!strings.Contains(body, `value="3"`) {
			t.Fatalf("stale save: %d %s", resp.StatusCode, body)
		}
		if resp, _ := post(t, op, page+"?code="+code, url.Values{"csrf": {csrf}, "code": {code}, "points": {"3"}, "version": {"1"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("save over version 1: %d", resp.StatusCode)
		}
		res, _ := p.exam.Results(t.Context(), e.ID)
		scored := 0
		for _, r := range res.Results {
			if r.Pending == 0 {
				scored++
				if r.Score != 2+3 {
					t.Errorf("graded student's score %v, want 5", r.Score)
				}
			}
		}
		if scored != 1 {
			t.Errorf("%d students graded, want 1", scored)
		}
		_, body = get(t, op, p.srv.URL+"/console/exams/"+e.ID+"/results")
		if !strings.Contains(body, "To grade: 1 (≤ 10)") {
			t.Errorf("the results page does not show what is left to grade")
		}
		if _, csv := get(t, op, p.srv.URL+"/console/exams/"+e.ID+"/results.csv"); !strings.Contains(csv, ",graded,to_grade,pending_points") || !strings.Contains(csv, ",5,2,1,true,0,0") ||
			!strings.Contains(csv, ",2,2,1,false,1,10") {
			t.Errorf("results CSV:\n%s", csv)
		}
	})
}
