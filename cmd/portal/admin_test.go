package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/proc"
	"github.com/seedhq/portal/pkg/client"
)

// adminCLI runs "portal admin ..." against a running portal.
type adminCLI struct {
	t   *testing.T
	env []string
}

// run runs "portal admin args..." and returns what it printed.
func (a *adminCLI) run(args ...string) proc.Result {
	a.t.Helper()
	return runPortal(a.t, a.env, "", append([]string{"admin"}, args...)...)
}

// mustRun runs the command and fails the test unless it exits 0.
func (a *adminCLI) mustRun(args ...string) string {
	a.t.Helper()
	r := a.run(args...)
	if r.Code != 0 {
		a.t.Fatalf("portal admin %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// mustJSON runs the command with --output json and decodes its output.
func (a *adminCLI) mustJSON(v any, args ...string) {
	a.t.Helper()
	out := a.mustRun(append(args, "--output", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		a.t.Fatalf("portal admin %s: output is not JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// mustFail runs the command, expects exit status code and stderr holding want.
func (a *adminCLI) mustFail(code int, want string, args ...string) {
	a.t.Helper()
	r := a.run(args...)
	if r.Code != code || !strings.Contains(r.Stderr, want) {
		a.t.Errorf("portal admin %s: exit %d, stderr %q; want exit %d and %q", strings.Join(args, " "), r.Code, r.Stderr, code, want)
	}
}

// TestAdminCommands drives the real binary's admin commands against a
// running portal and checks their output and exit statuses.
func TestAdminCommands(t *testing.T) {
	t.Parallel()
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), []string{"PORTAL_ADMIN_PASSWORD=cli-test-password"})
	defer p.Stop()
	dir := t.TempDir()

	// Credentials: a wrong password, none at all, then a token from login.
	bad := &adminCLI{t: t, env: []string{"PORTAL_URL=" + p.URL, "PORTAL_ADMIN_PASSWORD=wrong-password"}}
	bad.mustFail(1, "error: INVALID_CREDENTIALS: ", "license", "list")
	none := &adminCLI{t: t, env: []string{"PORTAL_URL=" + p.URL}}
	none.mustFail(1, "error: no credentials", "license", "list")
	down := &adminCLI{t: t, env: []string{"PORTAL_URL=http://127.0.0.1:1", "PORTAL_TOKEN=x"}}
	down.mustFail(1, "error: cannot reach the portal at http://127.0.0.1:1", "license", "list")

	withPassword := &adminCLI{t: t, env: []string{"PORTAL_URL=" + p.URL, "PORTAL_ADMIN_PASSWORD=cli-test-password"}}
	token := strings.TrimSpace(withPassword.mustRun("login"))
	if strings.Count(token, ".") != 2 {
		t.Fatalf("login printed %q, want a JWT", token)
	}
	a := &adminCLI{t: t, env: []string{"PORTAL_URL=" + p.URL, "PORTAL_TOKEN=" + token}}
	a.mustFail(1, "error: UNAUTHORIZED: ", "license", "list", "--token", "not-a-token")

	// Licences.
	var issued client.IssuedLicense
	a.mustJSON(&issued, "license", "generate", "--npsn", e2eNPSN, "--school", e2eSchool, "--region", "Jawa Barat/Kota Bandung",
		"--hardware-id", e2eHardwareID, "--max-students", "50")
	if issued.LicenseToken == "" || issued.Payload.LicenseID == "" {
		t.Fatalf("license generate: %+v", issued)
	}
	a.mustFail(1, "error: VALIDATION_FAILED: ", "license", "generate", "--npsn", "123", "--school", "x", "--hardware-id", "y")
	a.mustFail(2, "required flag(s)", "license", "generate", "--npsn", e2eNPSN)
	var lics []client.License
	a.mustJSON(&lics, "license", "list", "--npsn", e2eNPSN)
	if len(lics) != 1 || lics[0].Status != "active" || lics[0].MaxStudents != 50 || lics[0].Region != "Jawa Barat/Kota Bandung" {
		t.Errorf("license list: %+v", lics)
	}
	// Without --output and not on a terminal, the output is JSON.
	if out := a.mustRun("license", "list"); !strings.HasPrefix(strings.TrimSpace(out), "[") {
		t.Errorf("license list on a pipe: %q, want JSON", out)
	}
	if out := a.mustRun("license", "list", "--output", "table"); !strings.Contains(out, "ID") || !strings.Contains(out, "HARDWARE ID") ||
		!strings.Contains(out, issued.Payload.LicenseID) || !strings.Contains(out, "active") {
		t.Errorf("license list --output table:\n%s", out)
	}

	// A lab server shakes hands, so that servers, monitors and logs have rows.
	lab, err := client.NewClient(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	ver, _, err := lab.Exam.Sync.VerifyServer(t.Context(), &client.VerifyServerRequest{
		ServerCode: e2eServerCode, NPSN: e2eNPSN, HardwareID: e2eHardwareID, LicenseToken: issued.LicenseToken,
	})
	if err != nil {
		t.Fatalf("verify server: %v", err)
	}
	lab.SetToken(ver.AccessToken)
	if _, _, err := lab.Exam.Sync.Heartbeat(t.Context(), &client.HeartbeatRequest{ServerCode: e2eServerCode, Status: client.MonitorOnline, ClientVersion: "cli-test"}); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	if out := a.mustRun("server", "list", "--output", "table"); !strings.Contains(out, e2eServerCode) || !strings.Contains(out, e2eHardwareID) {
		t.Errorf("server list:\n%s", out)
	}
	var mons []client.Monitor
	a.mustJSON(&mons, "monitors", "--status", "online")
	if len(mons) != 1 || mons[0].ClientVersion != "cli-test" {
		t.Errorf("monitors: %+v", mons)
	}
	var logs []client.SyncLog
	a.mustJSON(&logs, "sync-logs", "--server-code", e2eServerCode, "--limit", "10")
	if len(logs) == 0 || logs[0].Action != client.ActionVerifyServer {
		t.Errorf("sync-logs: %+v", logs)
	}
	if out := a.mustRun("server", "reset", e2eServerCode, "--output", "table"); !strings.Contains(out, "binding of "+e2eServerCode+" deleted") {
		t.Errorf("server reset: %q", out)
	}
	a.mustFail(1, "error: NOT_FOUND: ", "server", "reset", e2eServerCode)

	// Academic years.
	var year client.AcademicYear
	a.mustJSON(&year, "academic-year", "create", "2025/2026", "--active")
	if !year.IsActive || year.ID == "" {
		t.Errorf("academic-year create: %+v", year)
	}
	a.mustFail(1, "error: ACADEMIC_YEAR_EXISTS: ", "academic-year", "create", "2025/2026")
	var next client.AcademicYear
	a.mustJSON(&next, "academic-year", "create", "2026/2027")
	a.mustJSON(&next, "academic-year", "activate", next.ID)
	var years []client.AcademicYear
	a.mustJSON(&years, "academic-year", "list")
	if len(years) != 2 || !(years[0].IsActive != years[1].IsActive) {
		t.Errorf("academic-year list: %+v", years)
	}

	// Members from CSV and JSON; a rejected row exits 1 after the report.
	csvFile := filepath.Join(dir, "students.csv")
	os.WriteFile(csvFile, []byte("nama,username,nisn,kelas\nAni Lestari,ani,0051234561,XII IPA 1\nBudi Santoso,budi,0051234562,XII IPA 1\n"), 0o600)
	var rep client.ImportReport
	a.mustJSON(&rep, "members", "import", csvFile, "--npsn", e2eNPSN)
	if rep.Created != 2 || rep.Rejected != 0 {
		t.Errorf("members import csv: %+v", rep)
	}
	jsonFile := filepath.Join(dir, "members.json")
	os.WriteFile(jsonFile, []byte(`{"members":[{"npsn":"`+e2eNPSN+`","nama":"Citra","username":"citra","kelas":"XI"},{"nama":"No School"}]}`), 0o600)
	r := a.run("members", "import", jsonFile, "--output", "table")
	if r.Code != 1 || !strings.Contains(r.Stdout, "created   1") || !strings.Contains(r.Stdout, "ROW") ||
		!strings.Contains(r.Stderr, "error: rows rejected: 1 of 2 rows were not imported") {
		t.Errorf("members import with a bad row: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	badJSON := filepath.Join(dir, "bad.json")
	os.WriteFile(badJSON, []byte(`[{"nama":"x","nisn_typo":"1"}]`), 0o600)
	a.mustFail(1, `unknown field "nisn_typo"`, "members", "import", badJSON)
	a.mustFail(2, "want a .csv or .json file", "members", "import", filepath.Join(dir, "members.xlsx"))

	// Login cards to a private file, and a password reset.
	cardsFile := filepath.Join(dir, "cards.csv")
	a.mustRun("login-cards", "--npsn", e2eNPSN, "-o", cardsFile)
	if st, err := os.Stat(cardsFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("login cards file: %v, %v; want mode 0600", st, err)
	}
	cards, _ := os.ReadFile(cardsFile)
	if !strings.HasPrefix(string(cards), "npsn,kelas,nama,username,nisn,exam_password") || strings.Count(string(cards), "\n") != 4 {
		t.Errorf("login cards:\n%s", cards)
	}
	var cardList []client.LoginCard
	a.mustJSON(&cardList, "login-cards", "--npsn", e2eNPSN) // --output json alone selects JSON
	if len(cardList) != 3 {
		t.Fatalf("login cards json: %+v", cardList)
	}
	if out := a.mustRun("login-cards", "--npsn", e2eNPSN, "--format", "json"); !strings.HasPrefix(strings.TrimSpace(out), "[") {
		t.Errorf("login-cards --format json:\n%s", out)
	}
	a.mustFail(2, "contradicts --output json", "login-cards", "--npsn", e2eNPSN, "--format", "csv", "--output", "json")
	var pw client.ExamPassword
	a.mustJSON(&pw, "member", "reset-password", cardList[0].MemberID)
	if pw.ExamPassword == "" || pw.ExamPassword == cardList[0].ExamPassword {
		t.Errorf("reset-password: %+v (old %q)", pw, cardList[0].ExamPassword)
	}

	// Exams.
	examFile := filepath.Join(dir, "exam.json")
	os.WriteFile(examFile, []byte(`{"title":"Fisika","subject":"FIS","npsn":["`+e2eNPSN+`"],
		"starts_at":"2026-12-01T07:00:00Z","ends_at":"2026-12-01T09:00:00Z","duration_minutes":90,
		"questions":[{"id":"q1","type":"single_choice","text":"g?","options":[{"id":"a","text":"9.8"},{"id":"b","text":"1"}],"answer":["a"],"points":10}]}`), 0o600)
	var ex client.Exam
	a.mustJSON(&ex, "exam", "create", "--file", examFile)
	if ex.ID == "" || ex.Title != "Fisika" {
		t.Fatalf("exam create: %+v", ex)
	}
	if out := a.mustRun("exam", "get", ex.ID, "--output", "table"); !strings.Contains(out, "QUESTION") || !strings.Contains(out, "single_choice") {
		t.Errorf("exam get:\n%s", out)
	}
	var exams []client.Exam
	a.mustJSON(&exams, "exam", "list", "--npsn", e2eNPSN)
	if len(exams) != 1 || exams[0].QuestionCount != 1 {
		t.Errorf("exam list: %+v", exams)
	}
	var res client.ExamResults
	a.mustJSON(&res, "exam", "results", ex.ID)
	if res.ExamID != ex.ID || res.MaxScore != 10 {
		t.Errorf("exam results: %+v", res)
	}
	// No answers yet: an empty list, a CSV of its header alone; --output
	// csv is for exports only.
	var noAnswers []client.StoredAnswer
	a.mustJSON(&noAnswers, "exam", "answers", ex.ID)
	if noAnswers == nil || len(noAnswers) != 0 {
		t.Errorf("exam answers without answers: %+v", noAnswers)
	}
	if out := a.mustRun("exam", "answers", ex.ID, "--output", "csv"); out != "exam_id,member_id,question_id,answer,answered_at,server_code,sync_id,correct,points,graded,grade_comment\n" {
		t.Errorf("exam answers --output csv:\n%q", out)
	}
	a.mustFail(2, "--output csv is for exports", "exam", "results", ex.ID, "--output", "csv")
	a.mustFail(1, "error: NOT_FOUND: ", "exam", "answers", "no-such-exam")
	a.mustRun("exam", "delete", ex.ID)
	a.mustFail(1, "error: NOT_FOUND: ", "exam", "get", ex.ID)
	badExam := filepath.Join(dir, "bad-exam.json")
	os.WriteFile(badExam, []byte("{\n\"title\": \"x\",\n}"), 0o600)
	a.mustFail(1, "bad-exam.json: line 3", "exam", "create", "--file", badExam)

	// Media: uploaded from files, typed by their bytes.
	chart, tone := filepath.Join(dir, "chart.png"), filepath.Join(dir, "tone.mp3")
	os.WriteFile(chart, testkit.ChartPNG(60, 40, 20, 80), 0o600)
	os.WriteFile(tone, testkit.ToneMP3, 0o600)
	var media []client.Media
	a.mustJSON(&media, "exam", "media", chart, tone)
	if len(media) != 2 || media[0].Type != "image/png" || media[0].Name != "chart.png" || media[1].Kind != "audio" ||
		!strings.HasPrefix(media[1].Reference, "media:") {
		t.Errorf("exam media: %+v", media)
	}
	if out := a.mustRun("exam", "media", chart, "--output", "table"); !strings.Contains(out, "REFERENCE") || !strings.Contains(out, media[0].Reference) {
		t.Errorf("exam media --output table:\n%s", out)
	}
	a.mustFail(1, "error: UNSUPPORTED_MEDIA: ", "exam", "media", badExam)

	// API keys.
	var key struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	}
	a.mustJSON(&key, "api-key", "create", "cli test")
	if key.ID == "" || key.Key == "" {
		t.Fatalf("api-key create: %+v", key)
	}
	if out := a.mustRun("api-key", "list", "--output", "table"); !strings.Contains(out, "cli test") || strings.Contains(out, key.Key) {
		t.Errorf("api-key list (must not show the key):\n%s", out)
	}
	var revoked client.APIKey
	a.mustJSON(&revoked, "api-key", "revoke", key.ID)
	if revoked.RevokedAt == nil {
		t.Errorf("api-key revoke: %+v", revoked)
	}

	// Link-management users: the key works on the link API, rotating it
	// retires the old one; overlays and splash pages show in the user's lists.
	var lu struct {
		ID  int64  `json:"id"`
		Key string `json:"key"`
	}
	a.mustJSON(&lu, "link-user", "create", "--email", "ana@example.org", "--account-username", "ana", "--rate-limit", "500")
	if lu.ID == 0 || !strings.HasPrefix(lu.Key, "lk_") {
		t.Fatalf("link-user create: %+v", lu)
	}
	// --password is the operator's, as on every admin command; the new
	// account's password has its own flag.
	var bob struct {
		Username string `json:"username"`
	}
	none.mustJSON(&bob, "link-user", "create", "--password", "cli-test-password",
		"--email", "bob@example.org", "--account-username", "bob", "--account-password", "bob-account-secret")
	if bob.Username != "bob" {
		t.Fatalf("link-user create with the operator's --password: %+v", bob)
	}
	if out := a.mustRun("link-user", "list", "--output", "table"); !strings.Contains(out, "ana@example.org") || strings.Contains(out, lu.Key) {
		t.Errorf("link-user list (must not show the key):\n%s", out)
	}
	a.mustRun("link-user", "add-overlay", fmt.Sprint(lu.ID), "Promo", "--type", "contact")
	a.mustRun("link-user", "add-splash", fmt.Sprint(lu.ID), "Welcome")
	linkUser, err := client.NewClient(p.URL, client.WithLinkKey(lu.Key))
	if err != nil {
		t.Fatal(err)
	}
	if ovs, _, err := linkUser.Links.Overlays.List(t.Context(), nil); err != nil || len(ovs) != 1 || ovs[0].Name != "Promo" {
		t.Errorf("overlays of the new user: %+v, %v", ovs, err)
	}
	var rotated struct{ Key string }
	a.mustJSON(&rotated, "link-user", "rotate-key", fmt.Sprint(lu.ID))
	if _, _, err := linkUser.Links.Account.Get(t.Context()); !errors.Is(err, client.ErrUnauthorized) {
		t.Errorf("old key after rotate-key: %v, want 401", err)
	}
	linkUser.SetLinkKey(rotated.Key)
	if acc, _, err := linkUser.Links.Account.Get(t.Context()); err != nil || acc.Username != "ana" {
		t.Errorf("new key: %+v, %v", acc, err)
	}
	a.mustFail(2, "user id", "link-user", "rotate-key", "x")

	// Revoking the licence: the next handshake is refused.
	a.mustRun("license", "revoke", issued.Payload.LicenseID)
	_, _, err = lab.Exam.Sync.VerifyServer(t.Context(), &client.VerifyServerRequest{
		ServerCode: e2eServerCode, NPSN: e2eNPSN, HardwareID: e2eHardwareID, LicenseToken: issued.LicenseToken,
	})
	if !errors.Is(err, &client.Error{Code: client.CodeLicenseRevoked}) {
		t.Errorf("handshake after revoke: %v, want LICENSE_REVOKED", err)
	}

	// Usage errors exit 2.
	a.mustFail(2, "takes 1 argument(s): LICENSE_ID", "license", "revoke")
	a.mustFail(2, "unknown flag: --nope", "monitors", "--nope")
}

// TestCommandLine checks the commands that need no running portal.
func TestCommandLine(t *testing.T) {
	t.Parallel()
	if r := runPortal(t, nil, "", "version"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "portal e2e-test ") {
		t.Errorf("version: %+v", r)
	}
	if r := runPortal(t, nil, "", "--version"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "portal e2e-test ") {
		t.Errorf("--version: %+v", r)
	}
	if r := runPortal(t, nil, "", "migrate"); r.Code != 1 || !strings.Contains(r.Stderr, "error: no database URL") {
		t.Errorf("migrate without a URL: %+v", r)
	}
	r := runPortal(t, nil, "", "serve", "--log-level", "loud", "--data-dir", t.TempDir())
	if r.Code != 1 || !strings.Contains(r.Stderr, `error: config: log-level (--log-level, PORTAL_LOG_LEVEL): "loud" is not one of`) {
		t.Errorf("serve with a bad log level: %+v", r)
	}
	cfg := writeFile(t, "portal.yaml", "lisen: :1\n")
	if r := runPortal(t, nil, "", "serve", "--config", cfg); r.Code != 1 || !strings.Contains(r.Stderr, `unknown key "lisen"`) {
		t.Errorf("serve with a typo in the config file: %+v", r)
	}
	if r := runPortal(t, nil, "", "nope"); r.Code != 2 || !strings.Contains(r.Stderr, `unknown command "nope"`) {
		t.Errorf("unknown command: %+v", r)
	}
}
