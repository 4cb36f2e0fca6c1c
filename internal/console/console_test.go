package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/pkg/labwire"
)

// TestOperatorSignIn: the fleet needs a session; a wrong password is
// refused on the page; the right one sets an HttpOnly, SameSite session
// cookie; sign-out needs the form's token.
func TestOperatorSignIn(t *testing.T) {
	p := newPortal(t)
	c := browser(t)
	resp, _ := get(t, c, p.srv.URL+"/console/fleet")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/console/login") {
		t.Fatalf("fleet without a session: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := get(t, c, p.srv.URL+"/console/login")
	if resp.StatusCode != 200 || !strings.Contains(body, `name="password"`) || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("login page: %d %v", resp.StatusCode, resp.Header)
	}
	resp, body = post(t, c, p.srv.URL+"/console/login", url.Values{"username": {"admin"}, "password": {"wrong"}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Wrong username or password") {
		t.Fatalf("wrong password: %d", resp.StatusCode)
	}
	resp, _ = post(t, c, p.srv.URL+"/console/login", url.Values{"username": {"admin"}, "password": {adminPassword}},
		"Sec-Fetch-Site", "cross-site")
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site sign-in: %d, want 403", resp.StatusCode)
	}
	resp, _ = post(t, c, p.srv.URL+"/console/login", url.Values{"username": {"admin"}, "password": {adminPassword}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/fleet" {
		t.Fatalf("sign-in: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "portal_console" {
			session = ck
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/console" {
		t.Fatalf("session cookie: %+v", session)
	}
	resp, body = get(t, c, p.srv.URL+"/console/fleet")
	if resp.StatusCode != 200 || !strings.Contains(body, "Fleet of lab servers") || !strings.Contains(body, "admin") {
		t.Fatalf("fleet: %d", resp.StatusCode)
	}
	resp, _ = post(t, c, p.srv.URL+"/console/logout", url.Values{})
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-out without the form's token: %d, want 403", resp.StatusCode)
	}
	resp, _ = post(t, c, p.srv.URL+"/console/logout", url.Values{"csrf": {csrfOf(t, body)}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", resp.StatusCode)
	}
	if resp, _ = get(t, c, p.srv.URL+"/console/fleet"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("fleet after sign-out: %d", resp.StatusCode)
	}
}

// TestFleetAndLanguage: a lab server that sent a heartbeat is listed with
// its school and status, filters apply, and the page speaks Indonesian to
// a browser that asks for it (or by ?lang=id).
func TestFleetAndLanguage(t *testing.T) {
	p := newPortal(t)
	ctx := context.Background()
	lic, err := p.exam.GenerateLicense(ctx, exam.LicenseInput{NPSN: "20100001", SchoolName: "SMA Negeri 1 Contoh",
		HardwareID: "HW-1", MaxStudents: 100, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.exam.VerifyServer(ctx, exam.VerifyInput{ServerCode: "LAB-01", NPSN: "20100001", HardwareID: "HW-1",
		LicenseToken: lic.License.Token, ClientIP: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := p.exam.AuthenticateServer(ctx, v.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.exam.Heartbeat(ctx, id, exam.HeartbeatInput{ServerCode: "LAB-01", ConnectedStudents: 31,
		ActiveExamsCount: 2, PendingAnswers: 17, ClientVersion: "labagent 1.4", Status: exam.StatusOnline}); err != nil {
		t.Fatal(err)
	}
	c := browser(t)
	p.signIn(t, c)
	_, body := get(t, c, p.srv.URL+"/console/fleet")
	for _, want := range []string{"LAB-01", "SMA Negeri 1 Contoh", "labagent 1.4", ">31<", ">17<", "Answers not yet pushed", "status online"} {
		if !strings.Contains(body, want) {
			t.Errorf("fleet lacks %q", want)
		}
	}
	if _, body = get(t, c, p.srv.URL+"/console/fleet?status=offline"); strings.Contains(body, "LAB-01") {
		t.Error("the offline filter lists an online server")
	}
	if _, body = get(t, c, p.srv.URL+"/console/fleet?school=negeri+1"); !strings.Contains(body, "LAB-01") {
		t.Error("the school filter misses the server")
	}
	if resp, _ := get(t, c, p.srv.URL+"/console/fleet?status=sleeping"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad status filter: %d", resp.StatusCode)
	}
	if _, body = get(t, c, p.srv.URL+"/console/fleet", "Accept-Language", "id-ID,id;q=0.9,en;q=0.5"); !strings.Contains(body, "Daftar server lab") || !strings.Contains(body, `lang="id"`) {
		t.Error("no Indonesian for an Indonesian browser")
	}
	if _, body = get(t, c, p.srv.URL+"/console/login?lang=id"); !strings.Contains(body, "Kata sandi") {
		t.Error("?lang=id did not switch to Indonesian")
	}
	if _, body = get(t, c, p.srv.URL+"/console/login"); !strings.Contains(body, "Kata sandi") {
		t.Error("the language choice was not kept")
	}
	if resp, css := get(t, c, p.srv.URL+"/console/static/console.css"); resp.StatusCode != 200 || !strings.Contains(css, ".status.online") {
		t.Errorf("stylesheet: %d", resp.StatusCode)
	}
}

// TestLicencesPage: the operator generates a licence (shown with its token
// and downloadable), a refused one keeps the form and says why, a form
// without the token is refused, and a licence is revoked.
func TestLicencesPage(t *testing.T) {
	p := newPortal(t)
	c := browser(t)
	csrf := p.signIn(t, c)
	form := url.Values{"csrf": {csrf}, "npsn": {"20100001"}, "school": {"SMA Negeri 1 Contoh"}, "region": {"Jawa Barat / Kota Bandung"},
		"hardware_id": {"HW-1"}, "max_students": {"300"}, "duration_days": {"365"}, "operating_mode": {"SEMI_OFFLINE"}}
	resp, body := post(t, c, p.srv.URL+"/console/licenses", form)
	if resp.StatusCode != http.StatusCreated || !strings.Contains(body, "Licence generated") {
		t.Fatalf("generate: %d", resp.StatusCode)
	}
	ls, err := p.exam.ListLicenses(context.Background(), "")
	if err != nil || len(ls) != 1 || !strings.Contains(body, ls[0].Token) || ls[0].Region != "Jawa Barat/Kota Bandung" {
		t.Fatalf("licences: %v %v", ls, err)
	}
	if _, list := get(t, c, p.srv.URL+"/console/licenses"); !strings.Contains(list, "Jawa Barat/Kota Bandung") {
		t.Error("the list does not show the licence's region")
	}
	if resp, file := get(t, c, p.srv.URL+"/console/licenses/"+ls[0].ID+"/token"); resp.StatusCode != 200 || strings.TrimSpace(file) != ls[0].Token ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("token file: %d %q", resp.StatusCode, file)
	}
	bad := url.Values{"csrf": {csrf}, "npsn": {"12"}, "school": {"X"}, "hardware_id": {"HW-2"}, "max_students": {"300"},
		"duration_days": {"365"}, "operating_mode": {"SEMI_OFFLINE"}}
	resp, body = post(t, c, p.srv.URL+"/console/licenses", bad)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `value="HW-2"`) || !strings.Contains(body, "npsn") {
		t.Fatalf("refused licence: %d", resp.StatusCode)
	}
	form.Del("csrf")
	if resp, _ := post(t, c, p.srv.URL+"/console/licenses", form); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("without the form's token: %d, want 403", resp.StatusCode)
	}
	resp, _ = post(t, c, p.srv.URL+"/console/licenses/"+ls[0].ID+"/revoke", url.Values{"csrf": {csrf}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if ls, _ := p.exam.ListLicenses(context.Background(), ""); !ls[0].Revoked() {
		t.Fatal("the licence was not revoked")
	}
	if _, body := get(t, c, p.srv.URL+"/console/licenses"); !strings.Contains(body, "revoked") {
		t.Fatal("the list does not show the revocation")
	}
}

// TestAPIKeysAndSyncLogs: a directory key is created (shown once, and it
// works on the directory API), listed by its prefix and revoked; the sync
// log lists a handshake and filters by outcome.
func TestAPIKeysAndSyncLogs(t *testing.T) {
	p := newPortal(t)
	ctx := context.Background()
	c := browser(t)
	csrf := p.signIn(t, c)
	resp, body := post(t, c, p.srv.URL+"/console/api-keys", url.Values{"csrf": {csrf}, "name": {"Aplikasi rapor"}})
	if resp.StatusCode != http.StatusCreated || !strings.Contains(body, "Copy it now") {
		t.Fatalf("create key: %d", resp.StatusCode)
	}
	i := strings.Index(body, `<textarea id="newkey" rows="2" readonly>`) + len(`<textarea id="newkey" rows="2" readonly>`)
	key := body[i : i+strings.Index(body[i:], "<")]
	if _, err := p.exam.AuthenticateAPIKey(ctx, key); err != nil {
		t.Fatalf("the shown key does not work: %v", err)
	}
	if _, body = get(t, c, p.srv.URL+"/console/api-keys"); strings.Contains(body, key) || !strings.Contains(body, "Aplikasi rapor") {
		t.Fatal("the list shows the whole key, or not the key's name")
	}
	keys, _ := p.exam.ListAPIKeys(ctx)
	if resp, _ := post(t, c, p.srv.URL+"/console/api-keys/"+keys[0].ID+"/revoke", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke key: %d", resp.StatusCode)
	}
	if _, err := p.exam.AuthenticateAPIKey(ctx, key); err == nil {
		t.Fatal("a revoked key still works")
	}

	lic, err := p.exam.GenerateLicense(ctx, exam.LicenseInput{NPSN: "20100001", SchoolName: "SMA 1", HardwareID: "HW-1",
		MaxStudents: 10, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.exam.VerifyServer(ctx, exam.VerifyInput{ServerCode: "LAB-07", NPSN: "20100001", HardwareID: "HW-1", LicenseToken: lic.License.Token}); err != nil {
		t.Fatal(err)
	}
	if _, body = get(t, c, p.srv.URL+"/console/sync-logs"); !strings.Contains(body, "LAB-07") || !strings.Contains(body, "verify_server") {
		t.Fatal("the sync log misses the handshake")
	}
	if _, body = get(t, c, p.srv.URL+"/console/sync-logs?outcome=rejected"); strings.Contains(body, "LAB-07") {
		t.Fatal("the rejected filter lists an accepted handshake")
	}
	if resp, body := get(t, c, p.srv.URL+"/console/sync-logs?outcome=maybe"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "status must be") {
		t.Fatalf("bad outcome: %d", resp.StatusCode)
	}
}

// TestExamResultsPage: an exam's results page shows each student's score
// (a matching question's partial points included) and each question's
// correct rate; the CSV holds the scores.
func TestExamResultsPage(t *testing.T) {
	p := newPortal(t)
	ctx := context.Background()
	if _, err := p.exam.CreateAcademicYear(ctx, "2025/2026", true); err != nil {
		t.Fatal(err)
	}
	rep, err := p.exam.ImportMembers(ctx, []exam.MemberInput{{NPSN: "20100001", Nama: "Ani Lestari", Role: "siswa", NISN: "0051234561",
		Username: "ani", Kelas: "XII IPA 1"}}, "")
	if err != nil || rep.Created != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	e, err := p.exam.CreateExam(ctx, exam.ExamInput{Title: "Matematika", Subject: "MTK", NPSNs: []string{"20100001"},
		StartsAt: time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC), EndsAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), DurationMinutes: 90,
		Questions: []exam.Question{
			{ID: "q1", Type: exam.SingleChoice, Text: "2+2", Options: []exam.Option{{ID: "a", Text: "3"}, {ID: "b", Text: "4"}}, Answer: []string{"b"}, Points: 10},
			{ID: "q2", Type: exam.SingleChoice, Text: "3+3", Options: []exam.Option{{ID: "a", Text: "6"}, {ID: "b", Text: "7"}}, Answer: []string{"a"}, Points: 10},
			{ID: "q3", Type: exam.Matching, Text: "Jodohkan", Scoring: exam.ScoringPartial, Points: 3,
				Premises:  []exam.Option{{ID: "p1", Text: "Bali"}, {ID: "p2", Text: "Jawa Barat"}},
				Responses: []exam.Option{{ID: "r1", Text: "Denpasar"}, {ID: "r2", Text: "Bandung"}, {ID: "r3", Text: "Medan"}},
				Answer:    []string{"p1=r1", "p2=r2"}}}})
	if err != nil {
		t.Fatal(err)
	}
	lic, err := p.exam.GenerateLicense(ctx, exam.LicenseInput{NPSN: "20100001", SchoolName: "SMA 1", HardwareID: "HW-1",
		MaxStudents: 10, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.exam.VerifyServer(ctx, exam.VerifyInput{ServerCode: "LAB-01", NPSN: "20100001", HardwareID: "HW-1", LicenseToken: lic.License.Token})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := p.exam.AuthenticateServer(ctx, v.AccessToken)
	cards, err := p.exam.LoginCards(ctx, "20100001")
	if err != nil || len(cards) != 1 {
		t.Fatalf("cards: %v", err)
	}
	answers := []byte(`[{"exam_id":"` + e.ID + `","member_id":"` + cards[0].MemberID + `","question_id":"q1","answer":"b","answered_at":"2026-12-01T07:30:00Z"},` +
		`{"exam_id":"` + e.ID + `","member_id":"` + cards[0].MemberID + `","question_id":"q2","answer":"b","answered_at":"2026-12-01T07:31:00Z"},` +
		`{"exam_id":"` + e.ID + `","member_id":"` + cards[0].MemberID + `","question_id":"q3","answer":"p1=r1,p2=r3","answered_at":"2026-12-01T07:32:00Z"}]`)
	if _, err := p.exam.PushAnswers(ctx, id, exam.PushInput{ServerCode: "LAB-01", NPSN: "20100001", Checksum: labwire.ChecksumSHA256(answers),
		TotalRecords: 3, Answers: answers}); err != nil {
		t.Fatal(err)
	}
	c := browser(t)
	p.signIn(t, c)
	if _, body := get(t, c, p.srv.URL+"/console/exams"); !strings.Contains(body, "Matematika") || !strings.Contains(body, "/console/exams/"+e.ID+"/results") {
		t.Fatal("the exams page misses the exam")
	}
	_, body := get(t, c, p.srv.URL+"/console/exams/"+e.ID+"/results")
	// q1 right, q2 wrong, q3 one pair of two: 10 + 1.5, and q3 not correct
	// but half its points earned. Each question shows its id and text.
	for _, want := range []string{"Ani Lestari", "<td>11.5</td>", `<td class="qtext"><code>q1</code> `, "</td><td>1</td><td>1</td><td>100.0 %</td><td>100.0 %</td><td>0</td></tr>",
		`<td class="qtext"><code>q3</code> `, "</td><td>1</td><td>0</td><td>0.0 %</td><td>50.0 %</td><td>0</td></tr>"} {
		if !strings.Contains(body, want) {
			t.Errorf("results page lacks %q", want)
		}
	}
	resp, csv := get(t, c, p.srv.URL+"/console/exams/"+e.ID+"/results.csv")
	if resp.StatusCode != 200 || !strings.Contains(csv, "ani,XII IPA 1,11.5,3,1") {
		t.Fatalf("results CSV: %d\n%s", resp.StatusCode, csv)
	}
	if resp, _ := get(t, c, p.srv.URL+"/console/exams/nope/results"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown exam: %d", resp.StatusCode)
	}
	// With answers stored, the editor says the exam is locked, and a delete
	// is refused with the reason.
	if _, body := get(t, c, p.srv.URL+"/console/exams/"+e.ID+"/edit"); !strings.Contains(body, "can no longer be edited") {
		t.Error("the editor of an exam with answers does not say it is locked")
	}
	csrf := p.signIn(t, c)
	if resp, body := post(t, c, p.srv.URL+"/console/exams/"+e.ID+"/delete", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusConflict ||
		!strings.Contains(body, "answers") {
		t.Errorf("delete of an exam with answers: %d", resp.StatusCode)
	}
}

// TestStudentsPages: a CSV import shows the report of every row (the bad
// one named, the good one written), the school's students are listed, a
// student's exam password is reset and shown, and the login cards print
// one card per student.
func TestStudentsPages(t *testing.T) {
	p := newPortal(t)
	if _, err := p.exam.CreateAcademicYear(context.Background(), "2025/2026", true); err != nil {
		t.Fatal(err)
	}
	c := browser(t)
	csrf := p.signIn(t, c)
	resp, body := postMultipart(t, c, p.srv.URL+"/console/students/import", url.Values{"csrf": {csrf}, "npsn": {"20100001"}},
		formFile{"file", "students.csv", []byte("nama,username,nisn,kelas\nAni Lestari,ani,0051234561,XII IPA 1\nBudi,budi,12,XII IPA 1\n")})
	if resp.StatusCode != 200 || !strings.Contains(body, "Import done: 1 created, 0 updated, 1 rejected") || !strings.Contains(body, "nisn") {
		t.Fatalf("import: %d\n%s", resp.StatusCode, body)
	}
	_, body = get(t, c, p.srv.URL+"/console/students?npsn=20100001")
	if !strings.Contains(body, "Ani Lestari") || strings.Contains(body, ">Budi<") || !strings.Contains(body, "2025/2026 <strong>(active)</strong>") {
		t.Fatal("the students page does not show the imported student and the year")
	}
	cards, _ := p.exam.LoginCards(context.Background(), "20100001")
	resp, body = post(t, c, p.srv.URL+"/console/students/"+cards[0].MemberID+"/reset-password", url.Values{"csrf": {csrf}, "npsn": {"20100001"}})
	after, _ := p.exam.LoginCards(context.Background(), "20100001")
	if resp.StatusCode != 200 || after[0].ExamPassword == cards[0].ExamPassword || !strings.Contains(body, after[0].ExamPassword) {
		t.Fatalf("reset password: %d", resp.StatusCode)
	}
	if _, body = get(t, c, p.srv.URL+"/console/login-cards?npsn=20100001"); strings.Count(body, `class="logincard"`) != 1 || !strings.Contains(body, after[0].ExamPassword) {
		t.Fatal("the login cards do not show the student's card")
	}
}

// TestAcademicYears: the operator adds an academic year (made active at
// once or not), a refused name says why and adds nothing, and another year
// is made the active one; a form without its token is refused.
func TestAcademicYears(t *testing.T) {
	p := newPortal(t)
	ctx := context.Background()
	c := browser(t)
	csrf := p.signIn(t, c)
	if resp, _ := post(t, c, p.srv.URL+"/console/academic-years", url.Values{"name": {"2026/2027"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a form without its token: %d, want 403", resp.StatusCode)
	}
	resp, _ := post(t, c, p.srv.URL+"/console/academic-years", url.Values{"csrf": {csrf}, "name": {"2026/2027"}, "active": {"1"}, "npsn": {"20100001"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/students?npsn=20100001#years" {
		t.Fatalf("add a year: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, body := post(t, c, p.srv.URL+"/console/academic-years", url.Values{"csrf": {csrf}, "name": {""}}); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, `role="alert"`) {
		t.Fatalf("an empty name: %d", resp.StatusCode)
	}
	post(t, c, p.srv.URL+"/console/academic-years", url.Values{"csrf": {csrf}, "name": {"2027/2028"}})
	years, err := p.exam.ListAcademicYears(ctx)
	if err != nil || len(years) != 2 {
		t.Fatalf("years: %+v (%v), want 2", years, err)
	}
	var next exam.AcademicYear
	for _, y := range years {
		if y.Name == "2026/2027" && !y.IsActive || y.Name == "2027/2028" && y.IsActive {
			t.Fatalf("after adding: %+v", years)
		}
		if y.Name == "2027/2028" {
			next = y
		}
	}
	_, body := get(t, c, p.srv.URL+"/console/students")
	if !strings.Contains(body, "/console/academic-years/"+next.ID+"/activate") {
		t.Fatal("the students page offers no way to make the other year active")
	}
	if resp, _ := post(t, c, p.srv.URL+"/console/academic-years/"+next.ID+"/activate", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("activate: %d", resp.StatusCode)
	}
	if y, err := p.exam.ActiveAcademicYear(ctx); err != nil || y.ID != next.ID {
		t.Fatalf("active year %+v (%v), want %s", y, err, next.Name)
	}
}
